package aws

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/providertest"
)

// awsMirrorSides are terraform and tether each in a copy of the testdata
// folder src, with an environment that installs hashicorp/aws from this
// machine's filesystem mirror and sends the provider nowhere (fake keys,
// the provider's skip_* settings in the configuration, a proxy on
// loopback that answers nothing). It skips t where that cannot run.
func awsMirrorSides(t *testing.T, src string) (tf, tt e2e.Side) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs terraform and tether with the real hashicorp/aws provider: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	mirror := providertest.AWSMirror()
	if mirror == "" {
		t.Skip("no filesystem mirror on this machine (such as /opt/tf-plugins) holds hashicorp/aws 5.100.0")
	}
	tools := e2e.BuildDiffTools(t)
	rc := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(e2e.DiffEnv(tools), "TF_CLI_CONFIG_FILE="+rc, "AWS_EC2_METADATA_DISABLED=true",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=")
	tf = e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env, Timeout: 5 * time.Minute}
	tt = e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env, Timeout: 5 * time.Minute}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(filepath.Join("testdata", src), s.Dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	e2e.InitBoth(t, tf, tt, "init")
	return tf, tt
}

// TestAWSBlocksDifferential plans testdata/awsblocks/plan, attributes
// written as blocks (aws_security_group's ingress, aws_route_table's
// route, aws_network_acl's rules, their aws_default_* forms; as blocks,
// dynamic blocks and attributes) and dynamic blocks nested in static ones
// (aws_s3_bucket_lifecycle_configuration's rule { dynamic "transition" }),
// in native and JSON syntax, with terraform and with tether through the
// real hashicorp/aws 5.100.0 offline: show -json must show the same
// planned values (after and after_unknown of every resource change) and
// the same configuration expressions. What tether synth writes of it
// plans under terraform to the same values.
func TestAWSBlocksDifferential(t *testing.T) {
	t.Parallel()
	tf, tt := awsMirrorSides(t, filepath.Join("awsblocks", "plan"))
	tfRes, ttRes := e2e.Both(tf, tt, e2e.PlanAndShow)
	e2e.MustSucceed(t, "plan -out, show -json", tfRes, ttRes)
	tfPlan, ttPlan := plannedValues(t, tfRes.Stdout), plannedValues(t, ttRes.Stdout)
	if len(tfPlan) != 17 {
		t.Errorf("terraform plans %d resources, want 17", len(tfPlan))
	}
	for addr, want := range tfPlan {
		e2e.CompareJSON(t, addr+"'s planned values", want, ttPlan[addr])
	}
	for addr := range ttPlan {
		if _, ok := tfPlan[addr]; !ok {
			t.Errorf("tether plans %s, terraform does not", addr)
		}
	}
	e2e.CompareJSON(t, "configuration", e2e.ConfigurationOf(t, tfRes.Stdout), e2e.ConfigurationOf(t, ttRes.Stdout))

	// What tether synth writes of the native syntax's resources plans
	// under terraform as the files themselves do.
	if err := os.Remove(filepath.Join(tt.Dir, "json.tf.json")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "synth")
	if r := tt.Run("synth", "--out", out); r.Code != 0 || r.Err != nil {
		t.Fatalf("tether synth: %v\n%s", r.Err, r)
	}
	synth := tf
	synth.Dir = out
	if r := synth.Run("init", "-input=false", "-no-color"); r.Code != 0 || r.Err != nil {
		t.Fatalf("terraform init of what synth wrote: %v\n%s", r.Err, r)
	}
	r := e2e.PlanAndShow(synth)
	e2e.MustSucceed(t, "terraform plan of what synth wrote", r)
	synthPlan := plannedValues(t, r.Stdout)
	if len(synthPlan) != 15 {
		t.Errorf("terraform plans %d resources of what synth wrote, want the 15 of main.tf", len(synthPlan))
	}
	for addr, got := range synthPlan {
		e2e.CompareJSON(t, addr+"'s planned values from what synth wrote", tfPlan[addr], got)
	}
}

// plannedValues are a JSON plan's resource changes by address: the
// actions and the planned values, known and unknown.
func plannedValues(t *testing.T, planJSON string) map[string]any {
	t.Helper()
	var doc struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions      any `json:"actions"`
				After        any `json:"after"`
				AfterUnknown any `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(planJSON), &doc); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	out := map[string]any{}
	for _, rc := range doc.ResourceChanges {
		out[rc.Address] = map[string]any{"actions": rc.Change.Actions, "after": rc.Change.After, "after_unknown": rc.Change.AfterUnknown}
	}
	return out
}

// TestAWSBlocksMixedForms plans testdata/awsblocks/mixed, where one body
// writes an argument both as an attribute and as blocks (static or
// dynamic): terraform and tether refuse it with the same errors at the
// same places.
func TestAWSBlocksMixedForms(t *testing.T) {
	t.Parallel()
	tf, tt := awsMirrorSides(t, filepath.Join("awsblocks", "mixed"))
	tfRes := tf.Run("validate", "-json", "-no-color")
	var doc struct {
		Diagnostics []struct {
			Severity, Summary, Detail string
			Range                     struct {
				Filename string
				Start    struct{ Line, Column int }
			}
		}
	}
	if err := json.Unmarshal([]byte(tfRes.Stdout), &doc); err != nil || len(doc.Diagnostics) != 2 {
		t.Fatalf("terraform validate -json: want two errors\n%s", tfRes)
	}
	ttRes := tt.Run("plan", "--no-color")
	if ttRes.Code != 1 {
		t.Errorf("tether plan exits %d, want 1", ttRes.Code)
	}
	stderr := strings.Join(strings.Fields(ttRes.Stderr), " ")
	for _, d := range doc.Diagnostics {
		want := fmt.Sprintf("Error: %s:%d:%d: %s", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column, d.Summary)
		if !strings.Contains(stderr, want) || !strings.Contains(stderr, strings.Join(strings.Fields(d.Detail), " ")) {
			t.Errorf("tether does not say %q, %q\n%s", want, d.Detail, ttRes.Stderr)
		}
	}
	if n := strings.Count(ttRes.Stderr, "Error: "); n != len(doc.Diagnostics) {
		t.Errorf("tether reports %d errors, terraform %d\n%s", n, len(doc.Diagnostics), ttRes.Stderr)
	}
}
