package tether_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/internal/providertest"
)

// kvProgram is a Go program whose test closure uses its store through
// store.Client(), whatever the store's endpoint.
const kvProgram = `package main

import (
	"context"
	"errors"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
	"github.com/tetherhq/tether/runtime/kv"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		store := builtin.NewKv(s, "store", builtin.KvArgs{})
		tester := builtin.NewTester(s, "e2e", builtin.TesterArgs{})
		tester.Test("kv", func(t *tether.T) {
			c, err := store.Client()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := c.Put(ctx, "greeting", []byte("hello from a closure")); err != nil {
				t.Fatal(err)
			}
			v, err := c.Get(ctx, "greeting")
			if err != nil || string(v) != "hello from a closure" {
				t.Fatalf("get: %q %v", v, err)
			}
			if _, err := c.Get(ctx, "missing"); !errors.Is(err, kv.ErrNotFound) {
				t.Fatalf("get of a missing key: %v", err)
			}
		})
		return nil
	})
}
`

// TestClosureUsesDynamoDBStore runs a Go program's test closure the way a
// deployed function runs it, with the store's endpoint a DynamoDB table in
// its environment, as the aws platform deploys it: store.Client() speaks
// DynamoDB (here the fake, through AWS_ENDPOINT_URL_DYNAMODB) with the code
// unchanged.
func TestClosureUsesDynamoDBStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("runs a linux/amd64 build of the program")
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(kvProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	providertest.GoModule(t, dir, "example.com/kvprogram", repo)
	build := exec.Command("go", "build", "-o", "program", ".")
	build.Dir = dir
	// Built as the aws platform builds a function (and as the Lambda
	// emulator's tests do, which shares the build cache), since this is
	// the program that runs there.
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	build.Env = append(build.Env, providertest.OfflineGoEnv(t)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the program: %v\n%s", err, out)
	}

	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-west-1", SessionToken: "from-the-role"})
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	if err := ddb.CreateTable("tether-store", "key", "S"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, endpoint string
		code           int
		want           string
	}{
		{"the table", "dynamodb://tether-store?region=eu-west-1", 0, ""},
		{"a missing table", "dynamodb://absent-table?region=eu-west-1", 1,
			`kv: put "greeting": DynamoDB table "absent-table" in region eu-west-1 does not exist, or these credentials cannot see it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A deployed closure's environment: the basics and its own
			// variables, here those Lambda sets from the function's role.
			cmd := exec.Command(filepath.Join(dir, "program"))
			cmd.Dir = dir
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + t.TempDir(),
				"TETHER_CLOSURE=tether_tester.e2e/kv", "TETHER_KV_STORE_ENDPOINT=" + c.endpoint}, ddb.Env()...)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code || !strings.Contains(string(out), c.want) {
				t.Fatalf("the closure exited %d, want %d with %q:\n%s", code, c.code, c.want, out)
			}
		})
	}
	if item, _ := ddb.Item("tether-store", "greeting"); item != `{"key":{"S":"greeting"},"value":{"B":"aGVsbG8gZnJvbSBhIGNsb3N1cmU="}}` {
		t.Errorf("the table holds %s", item)
	}
}
