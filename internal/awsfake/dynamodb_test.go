package awsfake

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
	"github.com/tetherhq/tether/internal/recorder"
	"github.com/tetherhq/tether/runtime/kv"
)

// TestDynamoDBTableThroughProvider applies an aws_dynamodb_table, as the
// aws platform writes it, with terraform and the real hashicorp/aws
// 5.100.0 to the fake: the table the control plane created is the one the
// data plane serves (runtime/kv stores and reads a value in it through
// the fake's address), the second plan is clean, a changed tag is applied
// in place, and destroy leaves the fake empty.
func TestDynamoDBTableThroughProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform and the hashicorp/aws provider: skipped with -short")
	}
	mirror := providertest.AWSMirror()
	if mirror == "" {
		t.Skip("needs hashicorp/aws 5.100.0 in a filesystem mirror (/opt/tf-plugins), and there is none")
	}
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("needs terraform on the PATH")
	}
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	rc := filepath.Join(dir, "terraformrc")
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proxies := []string{"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1"}
	for _, e := range append(s.Env(), proxies...) {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	// One real provider, started here with the fake's environment, serves
	// every terraform command: terraform starts a provider several times a
	// command, and each start of hashicorp/aws costs seconds of CPU. The
	// recording provider stands in the mirror as a plain proxy to it
	// (no log, no mock), and gives every caller the first configuration's
	// response, since the provider is configured once in its life.
	real := filepath.Join(mirror, "registry.terraform.io", "hashicorp", "aws", "5.100.0", providertest.Platform(), "terraform-provider-aws_v5.100.0_x5")
	wrapper := filepath.Join(dir, "mirror", strings.TrimPrefix(real, mirror))
	if err := providertest.GoBuildAt("./internal/recorder/recording-provider", wrapper); err != nil {
		t.Fatalf("building the recording provider: %v", err)
	}
	shared, err := recorder.StartShared(real)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	write("terraformrc", fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", filepath.Join(dir, "mirror")))
	config := func(team string) string {
		return `terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "5.100.0" }
  }
}
provider "aws" {
  region                      = "eu-west-1"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = "true"
}
resource "aws_dynamodb_table" "notes" {
  name         = "app-notes"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "key"
  attribute {
    name = "key"
    type = "S"
  }
  tags = { team = "` + team + `" }
}
`
	}
	write("main.tf", config("a"))
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		recorder.EnvProvider+"="+real, recorder.EnvSchemaCache+"="+t.TempDir(), shared.Env)
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(tf, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := run("init", "-input=false"); code != 0 {
		t.Fatalf("terraform init: %s", out)
	}
	if out, code := run("apply", "-auto-approve", "-input=false"); code != 0 || !strings.Contains(out, "1 added") {
		t.Fatalf("terraform apply: %s", out)
	}
	if got := s.Objects(); !slices.Equal(got, []string{"dynamodb table app-notes"}) {
		t.Errorf("after apply the fake holds %q", got)
	}

	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", s.URL)
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	c, err := kv.Open("dynamodb://app-notes?region=eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Put(ctx, "greeting", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, "greeting"); err != nil || string(v) != "hello" {
		t.Errorf("Get after Put: %q, %v", v, err)
	}
	if item, ok := s.Item("app-notes", "greeting"); !ok || !strings.Contains(item, `"value":{"B":"aGVsbG8="}`) {
		t.Errorf("the table holds %s", item)
	}

	if out, code := run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("second plan: exit %d\n%s", code, out)
	}
	write("main.tf", config("b"))
	if out, code := run("apply", "-auto-approve", "-input=false"); code != 0 || !strings.Contains(out, "1 changed") {
		t.Errorf("apply of a changed tag: %s", out)
	}
	if out, code := run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Errorf("plan after the tag changed: exit %d\n%s", code, out)
	}
	if out, code := run("destroy", "-auto-approve", "-input=false"); code != 0 || !strings.Contains(out, "1 destroyed") {
		t.Fatalf("terraform destroy: %s", out)
	}
	if left := s.Objects(); len(left) > 0 {
		t.Errorf("destroy left %q", left)
	}
}
