package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestAWSPlanMatchesTerraform plans testdata/awsplan through the real
// hashicorp/aws 5.100.0 provider with terraform and with tether, from the
// same filesystem mirror, offline (-refresh=false, a proxy on loopback
// that answers nothing), and compares what each planned for every
// resource (show -json of a saved plan: before, after, after_unknown):
// aws_sqs_queue.q is created, and the objects terraform.tfstate records
// (tether init takes them over) are unchanged, as Terraform plans them.
func TestAWSPlanMatchesTerraform(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs terraform and tether with the real hashicorp/aws provider: skipped with -short")
	}
	mirror := providertest.AWSMirror()
	if mirror == "" {
		t.Skip("no filesystem mirror holds hashicorp/aws 5.100.0 (see providertest.AWSMirror)")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: this test compares tether's plan with terraform 1.11's")
	}
	tools := buildDiffTools(t)
	rc := filepath.Join(t.TempDir(), "terraformrc")
	text := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(diffEnv(tools), "TF_CLI_CONFIG_FILE="+rc, "AWS_EC2_METADATA_DISABLED=true",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=")
	tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "terraform"), env: env, timeout: 5 * time.Minute}
	tt := side{name: "tether", bin: tools.tether, dir: filepath.Join(t.TempDir(), "tether"), env: env, timeout: 5 * time.Minute}
	for _, s := range []side{tf, tt} {
		if err := copyTree(filepath.Join("testdata", "awsplan"), s.dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
		steps := [][]string{
			{"init", "-input=false", "-no-color"},
			{"plan", "-input=false", "-no-color", "-refresh=false", "-out", "p.tfplan"},
		}
		if s.name == "tether" {
			steps[0] = []string{"init", "-force-copy"}
		}
		for _, args := range steps {
			if r := s.run(args...); r.code != 0 || r.err != nil {
				return r
			}
		}
		return s.run("show", "-json", "p.tfplan")
	})
	mustSucceed(t, "init, plan -out, show -json", tfRes, ttRes)
	var tfPlan, ttPlan tfjson.Plan
	if err := json.Unmarshal([]byte(tfRes.stdout), &tfPlan); err != nil {
		t.Fatalf("terraform's plan JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ttRes.stdout), &ttPlan); err != nil {
		t.Fatalf("tether's plan JSON: %v\n%s", err, ttRes.stdout)
	}
	if len(tfPlan.ResourceChanges) != 8 {
		t.Errorf("terraform planned %d resource changes, want the 8 of the configuration", len(tfPlan.ResourceChanges))
	}
	a, b := changes(tfPlan.ResourceChanges), changes(ttPlan.ResourceChanges)
	compareJSON(t, "resource_changes", a, coveredBy(t, a, b))
}
