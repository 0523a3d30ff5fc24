package differential

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/tfstate"
)

// TestDifferentialTerraformData runs terraform_data (Terraform's built-in
// provider, which Tether serves in process) under terraform 1.11 and
// tether through a create with an import, a change of input (an update in
// place that keeps the id), a change of triggers_replace (a replacement,
// with replace_triggered_by following it) and a destroy, comparing the
// summaries, outputs, state list, show -json and state pull after each,
// and that the next plan is clean.
func TestDifferentialTerraformData(t *testing.T) {
	tools := differentialTools(t)
	tf, tt := twoSides(t, tools, filepath.Join("testdata", "builtin", "terraform_data"))
	steps := []struct {
		label, tfvars string
		// sameID says whether terraform_data.d keeps its id.
		sameID bool
	}{
		{"create", "", false},
		{"input changed", "in = \"b\"\n", true},
		{"triggers_replace changed", "in = \"b\"\ntrig = \"2\"\n", false},
	}
	ids := map[string]string{}
	for i, step := range steps {
		for _, s := range []e2e.Side{tf, tt} {
			if err := os.WriteFile(filepath.Join(s.Dir, "terraform.tfvars"), []byte(step.tfvars), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tfRes, ttRes := e2e.ApplyBoth(tf, tt)
		checkApplied(t, step.label, tf, tt, tfRes, ttRes)
		if t.Failed() {
			return
		}
		for _, s := range []e2e.Side{tf, tt} {
			id := dataID(t, s, "d")
			if i > 0 && (id == ids[s.Name]) != step.sameID {
				t.Errorf("%s: %s: terraform_data.d's id went from %s to %s; kept should be %v", step.label, s.Name, ids[s.Name], id, step.sameID)
			}
			ids[s.Name] = id
		}
	}
	e2e.DestroyBoth(t, tf, tt)
}

// dataID is the id state records for terraform_data.NAME on one side.
func dataID(t *testing.T, s e2e.Side, name string) string {
	t.Helper()
	r := s.Run("state", "pull")
	e2e.MustSucceed(t, s.Name+" state pull", r)
	f, err := tfstate.Read(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatalf("%s state pull: %v", s.Name, err)
	}
	for _, res := range f.Resources {
		if res.Type == "terraform_data" && res.Name == name && len(res.Instances) == 1 {
			var attrs struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(res.Instances[0].Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			return attrs.ID
		}
	}
	t.Fatalf("%s: no terraform_data.%s in state", s.Name, name)
	return ""
}

// TestDifferentialTerraformFunctions compares the built-in terraform
// provider's functions (encode_expr, encode_tfvars, decode_tfvars) with
// terraform's, through the outputs and a file they write.
func TestDifferentialTerraformFunctions(t *testing.T) {
	runDiffCase(t, differentialTools(t), filepath.Join("testdata", "builtin", "functions"))
}

// TestDifferentialRemoteState compares terraform_remote_state over the
// local backend, reading a Terraform state file, with terraform's: the
// outputs and defaults, and the data source's result in state.
func TestDifferentialRemoteState(t *testing.T) {
	runDiffCase(t, differentialTools(t), filepath.Join("testdata", "builtin", "remote_state"))
}

// TestDifferentialBecomesSensitive compares the plan of a value that
// becomes sensitive after it was applied in clear: an update of state
// alone, each such attribute with Terraform's "will be marked as
// sensitive" warning. The resource change is compared line for line (the
// object's id, a random UUID, left out), and so are the summary, the
// exit code of -detailed-exitcode and the next plan after applying it.
func TestDifferentialBecomesSensitive(t *testing.T) {
	tools := differentialTools(t)
	tf, tt := twoSides(t, tools, filepath.Join("testdata", "builtin", "becomes_sensitive"))
	tfRes, ttRes := e2e.ApplyBoth(tf, tt)
	checkApplied(t, "first apply", tf, tt, tfRes, ttRes)
	if t.Failed() {
		return
	}
	for _, s := range []e2e.Side{tf, tt} {
		main, err := os.ReadFile(filepath.Join(s.Dir, "main.tf"))
		if err != nil {
			t.Fatal(err)
		}
		sensitive := strings.Replace(string(main), `default = "hello"`, "default   = \"hello\"\n  sensitive = true", 1)
		if err := os.WriteFile(filepath.Join(s.Dir, "main.tf"), []byte(sensitive), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run(e2e.TFPlan...)
		}
		return s.Run(e2e.TTPlan...)
	})
	if tfRes.Code != 2 || ttRes.Code != 2 {
		t.Fatalf("plan after the variable became sensitive: want exit 2 (changes) from both\n%s\n%s", tfRes, ttRes)
	}
	if tfBody, ttBody := resourceChanges(tfRes.Stdout), resourceChanges(ttRes.Stdout); tfBody != ttBody {
		t.Errorf("the plans differ\nterraform:\n%s\ntether:\n%s", tfBody, ttBody)
	}
	tfRes, ttRes = e2e.ApplyBoth(tf, tt)
	checkApplied(t, "apply of the sensitivity change", tf, tt, tfRes, ttRes)
	e2e.DestroyBoth(t, tf, tt)
}

// resourceChanges is a human-readable plan's part from its first resource
// change to its summary line ("Plan: ..."), with each id attribute's value
// left out and trailing spaces trimmed.
func resourceChanges(plan string) string {
	var out []string
	in := false
	for _, line := range strings.Split(plan, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "# ") && strings.Contains(trimmed, " will be ") {
			in = true
		}
		if !in {
			continue
		}
		if strings.HasPrefix(trimmed, "id ") && strings.Contains(trimmed, "= \"") {
			line = line[:strings.Index(line, "= \"")] + "= …"
		}
		out = append(out, strings.TrimRight(line, " "))
		if strings.HasPrefix(trimmed, "Plan:") {
			break
		}
	}
	return strings.Join(out, "\n")
}
