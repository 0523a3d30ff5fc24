package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDifferentialChecks runs each configuration of testdata/checks with
// terraform and tether through a saved plan, its apply, a second plan and
// a destroy, and compares the check results they write: `checks` in `show
// -json` of each plan and of the state, and `check_results` of `state
// pull` (in any order: Terraform writes them in map order), and the
// addresses state records after the apply. Both must exit alike, and both
// must warn of a failed check block assertion. A case with a target.args
// file also applies with those arguments (-target) after the second plan.
func TestDifferentialChecks(t *testing.T) {
	tools := differentialTools(t)
	cases, err := filepath.Glob(filepath.Join("testdata", "checks", "*", "main.tf"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases in testdata/checks: %v", err)
	}
	for _, mainTF := range cases {
		caseDir := filepath.Dir(mainTF)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			tf, tt := twoSides(t, tools, caseDir)
			step := func(label string, tfArgs, ttArgs []string) (cmdResult, cmdResult) {
				t.Helper()
				a, b := both(tf, tt, func(s side) cmdResult {
					if s.name == "terraform" {
						return s.run(tfArgs...)
					}
					return s.run(ttArgs...)
				})
				if a.err != nil || b.err != nil || a.code != b.code {
					t.Fatalf("%s: the exit statuses differ\n%s\n%s", label, a, b)
				}
				return a, b
			}
			if r := tf.run("get", "-no-color"); r.code != 0 {
				t.Fatalf("terraform get: %s", r)
			}
			if _, err := os.Stat(filepath.Join(caseDir, "mod")); err == nil {
				if r := tt.run("init"); r.code != 0 {
					t.Fatalf("tether init: %s", r)
				}
			}
			step("plan", append(tfPlan, "-out", "p.tfplan"), append(ttPlan, "-out", "p.tfplan"))
			compareChecks(t, "the plan's checks", tf, tt, "show", "-json", "p.tfplan")
			a, b := step("apply", []string{"apply", "-input=false", "-no-color", "p.tfplan"}, []string{"up", "p.tfplan"})
			for _, r := range []cmdResult{a, b} {
				if strings.Contains(caseDir, "mixed") && !strings.Contains(r.stdout+r.stderr, "Check block assertion failed") {
					t.Errorf("apply: no warning of the failed assertions:\n%s", r)
				}
			}
			compareCheckResults(t, "state after apply", tf, tt)
			compareStateList(t, "state after apply", tf, tt)
			compareChecks(t, "the state's checks", tf, tt, "show", "-json")
			if a.code == 0 {
				step("second plan", append(tfPlan, "-out", "p2.tfplan"), append(ttPlan, "-out", "p2.tfplan"))
				compareChecks(t, "the second plan's checks", tf, tt, "show", "-json", "p2.tfplan")
			}
			// target.args, one argument a line, makes a targeted apply.
			if raw, err := os.ReadFile(filepath.Join(caseDir, "target.args")); err == nil {
				args := strings.Fields(string(raw))
				step("targeted apply", append(append([]string(nil), tfApply...), args...), append(append([]string(nil), ttApply...), args...))
				compareCheckResults(t, "state after the targeted apply", tf, tt)
			}
			step("destroy", tfDestroy, ttDestroy)
			compareCheckResults(t, "state after destroy", tf, tt)
		})
	}
}

// compareChecks compares `checks` of a show -json.
func compareChecks(t *testing.T, what string, tf, tt side, args ...string) {
	t.Helper()
	a, b := both(tf, tt, func(s side) cmdResult { return s.run(args...) })
	mustSucceed(t, what, a, b)
	var ja, jb struct {
		Checks any `json:"checks"`
	}
	if err := json.Unmarshal([]byte(a.stdout), &ja); err != nil {
		t.Fatalf("%s: terraform: %v", what, err)
	}
	if err := json.Unmarshal([]byte(b.stdout), &jb); err != nil {
		t.Fatalf("%s: tether: %v\n%s", what, err, b.stdout)
	}
	if ja.Checks == nil {
		t.Fatalf("%s: terraform wrote none; the case checks nothing", what)
	}
	compareJSON(t, what, ja.Checks, jb.Checks)
}

// compareCheckResults compares check_results of state pull, each list in
// order of address.
func compareCheckResults(t *testing.T, what string, tf, tt side) {
	t.Helper()
	a, b := both(tf, tt, func(s side) cmdResult { return s.run("state", "pull") })
	mustSucceed(t, what, a, b)
	results := func(r cmdResult) []map[string]any {
		var f struct {
			CheckResults []map[string]any `json:"check_results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &f); err != nil {
			t.Fatalf("%s: %s: %v\n%s", what, r.args[0], err, r.stdout)
		}
		for _, res := range f.CheckResults {
			if objs, ok := res["objects"].([]any); ok {
				sort.Slice(objs, func(i, j int) bool {
					return objs[i].(map[string]any)["object_addr"].(string) < objs[j].(map[string]any)["object_addr"].(string)
				})
			}
		}
		sort.Slice(f.CheckResults, func(i, j int) bool {
			return f.CheckResults[i]["config_addr"].(string) < f.CheckResults[j]["config_addr"].(string)
		})
		return f.CheckResults
	}
	compareJSON(t, what+": check_results", results(a), results(b))
}
