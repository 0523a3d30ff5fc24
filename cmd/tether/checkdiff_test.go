package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
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
	tfRes, ttRes := applyBoth(tf, tt)
	mustSucceed(t, "apply", tfRes, ttRes)
	compareState(t, "apply", tf, tt)

	tfRes, ttRes = both(tf, tt, func(s side) cmdResult {
		if s.name == "terraform" {
			return s.run(append(tfPlan, "-out", "p.tfplan")...)
		}
		return s.run(append(ttPlan, "-out", "p.tfplan")...)
	})
	for _, r := range []cmdResult{tfRes, ttRes} {
		if r.err != nil || r.code != 2 {
			t.Errorf("the plan re-reads the check blocks' data sources: it must exit 2:\n%s", r)
		}
	}
	for _, r := range []cmdResult{tfRes, ttRes} {
		if strings.Contains(r.stdout+r.stderr, "known after apply\n") || strings.Contains(r.stderr, "assertion known after apply") {
			t.Errorf("the check whose data source failed is skipped, not known after apply:\n%s", r)
		}
		if !strings.Contains(r.stdout+r.stderr, `File "out/nope.txt" does not exist`) {
			t.Errorf("the failed read is a warning:\n%s", r)
		}
	}
	tfShow, ttShow := both(tf, tt, func(s side) cmdResult { return s.run("show", "-json", "p.tfplan") })
	mustSucceed(t, "show -json", tfShow, ttShow)
	var a, b tfjson.Plan
	if err := json.Unmarshal([]byte(tfShow.stdout), &a); err != nil {
		t.Fatalf("terraform's plan JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ttShow.stdout), &b); err != nil {
		t.Fatalf("tether's plan JSON does not parse with terraform-json: %v\n%s", err, ttShow.stdout)
	}
	compareJSON(t, "resource_changes", changes(a.ResourceChanges), changes(b.ResourceChanges))
	if a.PriorState == nil || b.PriorState == nil {
		t.Fatalf("prior_state: terraform has one: %v, tether has one: %v", a.PriorState != nil, b.PriorState != nil)
	}
	compareJSON(t, "prior_state resources", stateResources(a.PriorState.Values.RootModule), stateResources(b.PriorState.Values.RootModule))
}
