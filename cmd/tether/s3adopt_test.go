package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/s3state"
)

const s3BackendTF = `terraform {
  backend "s3" {
    bucket         = "tfstate"
    key            = "adopt/terraform.tfstate"
    region         = "eu-west-1"
    dynamodb_table = "locks"
    use_lockfile   = true
    use_path_style = true

    skip_credentials_validation = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
  }
}
`

// TestTerraformS3Backend runs terraform 1.11 and tether against the same
// S3 and DynamoDB emulators with the same backend "s3" block (lock file
// and DynamoDB lock both on):
//
//   - terraform applies; while a terraform apply waits for its answer,
//     holding its lock, tether init -force-copy is refused naming it;
//   - tether init -force-copy takes the state over, moving Terraform's
//     object aside, and tether plan finds nothing to change, with the
//     secrets sealed;
//   - while tether holds the lock, terraform plan is refused naming it;
//     once released, terraform still refuses Tether's document as state.
func TestTerraformS3Backend(t *testing.T) {
	tools, env := adoptionTools(t)
	emus, awsEnv, err := startS3Emulators(t.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	env = append(append([]string{}, env...), awsEnv...)
	dir := filepath.Join(t.TempDir(), "adopt")
	if err := copyTree(filepath.Join("testdata", "adopt"), dir, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(s3BackendTF), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(r cmdResult, want int) cmdResult {
		t.Helper()
		if r.err != nil || r.code != want {
			t.Fatalf("want exit %d\n%s", want, r)
		}
		return r
	}
	tf := func(args ...string) cmdResult {
		return side{name: "terraform", bin: tools.terraform, dir: dir, env: env}.run(args...)
	}
	tt := func(args ...string) cmdResult {
		return side{name: "tether", bin: tools.tether, dir: dir, env: env}.run(args...)
	}
	must(tf("init", "-input=false", "-no-color"), 0)
	must(tf(tfApply...), 0)
	if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
		t.Fatal("terraform wrote terraform.tfstate: the s3 backend was not used")
	}

	// Terraform holds its lock while it waits for an answer.
	stop := holdTerraformLock(t, tools.terraform, dir, env)
	r := tt("init", "-force-copy")
	if r.code != 1 || !strings.Contains(r.stderr, `locked by operation "terraform OperationTypeApply"`) {
		t.Errorf("tether init while terraform apply holds the lock: want a refusal naming terraform's operation\n%s", r)
	}
	stop()

	takeOver(t, tt, `Terraform's state of workspace "default" at s3://tfstate/adopt/terraform.tfstate`, "s3://tfstate/adopt/terraform.tfstate.terraform-adopted-")
	list, err := emus.mem.ListBucket("tfstate", nil, gofakes3Page())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Contents {
		if strings.Contains(o.Key, "terraform-adopted") {
			continue // Terraform's own state, as it kept it
		}
		obj, err := emus.mem.GetObject("tfstate", o.Key, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		if strings.Contains(string(body), adoptCanary) {
			t.Errorf("s3://tfstate/%s holds the sensitive value in clear text", o.Key)
		}
	}

	// Tether holds the lock: terraform is refused, naming it.
	getenv := envLookup(env)
	cfg, err := s3state.FromSettings(map[string]string{
		"bucket": "tfstate", "key": "adopt/terraform.tfstate", "region": "eu-west-1", "dynamodb_table": "locks",
		"use_path_style": "true", "skip_credentials_validation": "true", "skip_metadata_api_check": "true",
		"access_key": getenv("AWS_ACCESS_KEY_ID"), "secret_key": getenv("AWS_SECRET_ACCESS_KEY"),
	}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s3state.Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Open(context.Background(), s3state.DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unlock, err := st.Lock(context.Background(), state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	r = tf("plan", "-input=false", "-no-color", "-lock-timeout=0s")
	if r.code != 1 || !strings.Contains(r.stderr, "Error acquiring the state lock") || !strings.Contains(r.stderr, "tether") {
		t.Errorf("terraform plan while tether holds the lock: want a refusal naming tether\n%s", r)
	}
	if err := unlock.Unlock(); err != nil {
		t.Fatal(err)
	}
	// Terraform cannot use Tether's document as its state: it stops
	// rather than planning to create everything again.
	r = tf("plan", "-input=false", "-no-color")
	if r.code != 1 || !strings.Contains(r.stderr, "Unsupported state file format") {
		t.Errorf("terraform plan on the state tether took over: want a refusal\n%s", r)
	}
}

// holdTerraformLock starts terraform apply -destroy without -auto-approve:
// it takes its lock and waits for an answer. stop answers no (nothing is
// destroyed) and waits for it to end.
func holdTerraformLock(t *testing.T, bin, dir string, env []string) (stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "apply", "-destroy", "-no-color", "-refresh=false")
	cmd.Dir, cmd.Env = dir, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	asked := make(chan error, 1)
	go func() {
		br := bufio.NewReader(out)
		var seen strings.Builder
		for {
			b, err := br.ReadByte()
			if err != nil {
				asked <- errors.New("terraform apply ended before asking:\n" + seen.String())
				return
			}
			seen.WriteByte(b)
			if strings.HasSuffix(seen.String(), "Enter a value: ") {
				asked <- nil
				io.Copy(io.Discard, br)
				return
			}
		}
	}()
	select {
	case err := <-asked:
		if err != nil {
			cmd.Process.Kill()
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("terraform apply did not ask within 2 minutes")
	}
	return func() {
		io.WriteString(stdin, "no\n")
		stdin.Close()
		cmd.Wait()
	}
}

func envLookup(env []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}
