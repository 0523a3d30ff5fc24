package differential

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestDifferentialCheckData applies a configuration with data sources in
// check blocks, one that reads and one that fails, with terraform and
// tether, then plans again: both must exit 2 with -detailed-exitcode (the
// data sources are read again to verify their checks), plan the same
// reads (the failed one with its configured path, not all unknown), and
// say nothing of an assertion known after apply for the check whose data
// source failed.
func TestDifferentialCheckData(t *testing.T) {
	tools := differentialTools(t)
	tf, tt := twoSides(t, tools, filepath.Join("testdata", "checkdata"))
	tfRes, ttRes := e2e.ApplyBoth(tf, tt)
	e2e.MustSucceed(t, "apply", tfRes, ttRes)
	compareState(t, "apply", tf, tt)

	tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run(append(e2e.TFPlan, "-out", "p.tfplan")...)
		}
		return s.Run(append(e2e.TTPlan, "-out", "p.tfplan")...)
	})
	for _, r := range []e2e.CmdResult{tfRes, ttRes} {
		if r.Err != nil || r.Code != 2 {
			t.Errorf("the plan re-reads the check blocks' data sources: it must exit 2:\n%s", r)
		}
	}
	for _, r := range []e2e.CmdResult{tfRes, ttRes} {
		if strings.Contains(r.Stdout+r.Stderr, "known after apply\n") || strings.Contains(r.Stderr, "assertion known after apply") {
			t.Errorf("the check whose data source failed is skipped, not known after apply:\n%s", r)
		}
		if !strings.Contains(r.Stdout+r.Stderr, `File "out/nope.txt" does not exist`) {
			t.Errorf("the failed read is a warning:\n%s", r)
		}
	}
	tfShow, ttShow := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run("show", "-json", "p.tfplan") })
	e2e.MustSucceed(t, "show -json", tfShow, ttShow)
	var a, b tfjson.Plan
	if err := json.Unmarshal([]byte(tfShow.Stdout), &a); err != nil {
		t.Fatalf("terraform's plan JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ttShow.Stdout), &b); err != nil {
		t.Fatalf("tether's plan JSON does not parse with terraform-json: %v\n%s", err, ttShow.Stdout)
	}
	e2e.CompareJSON(t, "resource_changes", e2e.Changes(a.ResourceChanges), e2e.Changes(b.ResourceChanges))
	if a.PriorState == nil || b.PriorState == nil {
		t.Fatalf("prior_state: terraform has one: %v, tether has one: %v", a.PriorState != nil, b.PriorState != nil)
	}
	e2e.CompareJSON(t, "prior_state resources", stateResources(a.PriorState.Values.RootModule), stateResources(b.PriorState.Values.RootModule))
}
