package aws

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/e2e"
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
	tools := e2e.BuildDiffTools(t)
	rc := filepath.Join(t.TempDir(), "terraformrc")
	text := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(e2e.DiffEnv(tools), "TF_CLI_CONFIG_FILE="+rc, "AWS_EC2_METADATA_DISABLED=true",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=")
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env, Timeout: 5 * time.Minute}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env, Timeout: 5 * time.Minute}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(filepath.Join("testdata", "awsplan"), s.Dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		steps := [][]string{
			{"init", "-input=false", "-no-color"},
			{"plan", "-input=false", "-no-color", "-refresh=false", "-out", "p.tfplan"},
		}
		if s.Name == "tether" {
			steps[0] = []string{"init", "-force-copy"}
		}
		for _, args := range steps {
			if r := s.Run(args...); r.Code != 0 || r.Err != nil {
				return r
			}
		}
		return s.Run("show", "-json", "p.tfplan")
	})
	e2e.MustSucceed(t, "init, plan -out, show -json", tfRes, ttRes)
	var tfPlan, ttPlan tfjson.Plan
	if err := json.Unmarshal([]byte(tfRes.Stdout), &tfPlan); err != nil {
		t.Fatalf("terraform's plan JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ttRes.Stdout), &ttPlan); err != nil {
		t.Fatalf("tether's plan JSON: %v\n%s", err, ttRes.Stdout)
	}
	if len(tfPlan.ResourceChanges) != 8 {
		t.Errorf("terraform planned %d resource changes, want the 8 of the configuration", len(tfPlan.ResourceChanges))
	}
	a, b := e2e.Changes(tfPlan.ResourceChanges), e2e.Changes(ttPlan.ResourceChanges)
	e2e.CompareJSON(t, "resource_changes", a, e2e.CoveredBy(t, a, b))
}
