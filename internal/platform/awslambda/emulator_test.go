package awslambda_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestEchoUnderLambdaEmulator builds examples/echo as a Lambda function's
// bootstrap (linux/amd64) and runs it under the AWS Lambda Runtime
// Interface Emulator on loopback, as the closure of its GET /echo route:
// API Gateway HTTP API events reach the same handler as on this machine.
func TestEchoUnderLambdaEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program and the Lambda runtime interface emulator: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	invoke := runUnderEmulator(t, echoCopy(t), "TETHER_CLOSURE=tether_function.main_get_echo")
	for _, c := range []struct {
		query, want string
	}{
		{"message=Hello", "Hello"},
		{"message=%C3%A9t%C3%A9%20%26%20more", "été & more"},
		{"", ""},
	} {
		ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /echo", RawPath: "/echo", RawQueryString: c.query,
			Headers: map[string]string{"host": "example.execute-api.eu-west-1.amazonaws.com"}}
		ev.RequestContext.HTTP.Method = "GET"
		ev.RequestContext.HTTP.Path = "/echo"
		ev.RequestContext.DomainName = "example.execute-api.eu-west-1.amazonaws.com"
		body, _ := json.Marshal(ev)
		resp := invokeEmulator(t, invoke, body)
		if resp.StatusCode != 200 || resp.Body != c.want || resp.IsBase64Encoded {
			t.Errorf("GET /echo?%s answered %+v, want 200 with body %q", c.query, resp, c.want)
		}
	}
}

// runUnderEmulator builds the Go program in dir as a Lambda function's
// bootstrap and runs it under the AWS Lambda Runtime Interface Emulator on
// loopback, with env added to the environment, until the test ends. It
// returns the emulator's invocation address.
func runUnderEmulator(t *testing.T, dir string, env ...string) string {
	t.Helper()
	rie := providertest.LambdaEmulator(t)
	build := exec.Command("go", "build", "-o", "bootstrap", ".")
	build.Dir = dir
	// As the aws platform builds a function's program: static, for the
	// provided.al2023 runtime. The go command works offline.
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	build.Env = append(build.Env, providertest.OfflineGoEnv(t)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the bootstrap: %v\n%s", err, out)
	}
	invoke, api := freeAddr(t), freeAddr(t)
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", invoke, "--runtime-api-address", api, filepath.Join(dir, "bootstrap"))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "AWS_LAMBDA_FUNCTION_TIMEOUT=30"), env...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("emulator and bootstrap output:\n%s", logs.String())
		}
	})
	return invoke
}

// invokeEmulator invokes the function through the emulator, waiting for
// it to listen.
func invokeEmulator(t *testing.T, addr string, event []byte) events.APIGatewayV2HTTPResponse {
	t.Helper()
	url := "http://" + addr + "/2015-03-31/functions/function/invocations"
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Post(url, "application/json", bytes.NewReader(event))
		if err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the emulator never answered at %s: %v", addr, err)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out events.APIGatewayV2HTTPResponse
		if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != 200 || strings.Contains(string(raw), "errorMessage") {
			t.Fatalf("the invocation answered %d %s (%v)", resp.StatusCode, raw, err)
		}
		return out
	}
}

// echoCopy copies examples/echo to a temporary folder with a go.mod that
// builds it with this repository's SDK.
func echoCopy(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(repo, "examples", "echo", "*.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	providertest.GoModule(t, dir, "example.com/echo", repo)
	return dir
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
