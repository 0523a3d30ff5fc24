package differential

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
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
			step := func(label string, tfArgs, ttArgs []string) (e2e.CmdResult, e2e.CmdResult) {
				t.Helper()
				a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
					if s.Name == "terraform" {
						return s.Run(tfArgs...)
					}
					return s.Run(ttArgs...)
				})
				if a.Err != nil || b.Err != nil || a.Code != b.Code {
					t.Fatalf("%s: the exit statuses differ\n%s\n%s", label, a, b)
				}
				return a, b
			}
			if r := tf.Run("get", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform get: %s", r)
			}
			if _, err := os.Stat(filepath.Join(caseDir, "mod")); err == nil {
				if r := tt.Run("init"); r.Code != 0 {
					t.Fatalf("tether init: %s", r)
				}
			}
			step("plan", append(e2e.TFPlan, "-out", "p.tfplan"), append(e2e.TTPlan, "-out", "p.tfplan"))
			compareChecks(t, "the plan's checks", tf, tt, "show", "-json", "p.tfplan")
			a, b := step("apply", []string{"apply", "-input=false", "-no-color", "p.tfplan"}, []string{"up", "p.tfplan"})
			for _, r := range []e2e.CmdResult{a, b} {
				if strings.Contains(caseDir, "mixed") && !strings.Contains(r.Stdout+r.Stderr, "Check block assertion failed") {
					t.Errorf("apply: no warning of the failed assertions:\n%s", r)
				}
			}
			compareCheckResults(t, "state after apply", tf, tt)
			compareStateList(t, "state after apply", tf, tt)
			compareChecks(t, "the state's checks", tf, tt, "show", "-json")
			if a.Code == 0 {
				step("second plan", append(e2e.TFPlan, "-out", "p2.tfplan"), append(e2e.TTPlan, "-out", "p2.tfplan"))
				compareChecks(t, "the second plan's checks", tf, tt, "show", "-json", "p2.tfplan")
			}
			// target.args, one argument a line, makes a targeted apply.
			if raw, err := os.ReadFile(filepath.Join(caseDir, "target.args")); err == nil {
				args := strings.Fields(string(raw))
				step("targeted apply", append(append([]string(nil), e2e.TFApply...), args...), append(append([]string(nil), e2e.TTApply...), args...))
				compareCheckResults(t, "state after the targeted apply", tf, tt)
			}
			step("destroy", e2e.TFDestroy, e2e.TTDestroy)
			compareCheckResults(t, "state after destroy", tf, tt)
		})
	}
}

// compareChecks compares `checks` of a show -json.
func compareChecks(t *testing.T, what string, tf, tt e2e.Side, args ...string) {
	t.Helper()
	a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run(args...) })
	e2e.MustSucceed(t, what, a, b)
	var ja, jb struct {
		Checks any `json:"checks"`
	}
	if err := json.Unmarshal([]byte(a.Stdout), &ja); err != nil {
		t.Fatalf("%s: terraform: %v", what, err)
	}
	if err := json.Unmarshal([]byte(b.Stdout), &jb); err != nil {
		t.Fatalf("%s: tether: %v\n%s", what, err, b.Stdout)
	}
	if ja.Checks == nil {
		t.Fatalf("%s: terraform wrote none; the case checks nothing", what)
	}
	e2e.CompareJSON(t, what, ja.Checks, jb.Checks)
}

// compareCheckResults compares check_results of state pull, each list in
// order of address.
func compareCheckResults(t *testing.T, what string, tf, tt e2e.Side) {
	t.Helper()
	a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run("state", "pull") })
	e2e.MustSucceed(t, what, a, b)
	results := func(r e2e.CmdResult) []map[string]any {
		var f struct {
			CheckResults []map[string]any `json:"check_results"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &f); err != nil {
			t.Fatalf("%s: %s: %v\n%s", what, r.Args[0], err, r.Stdout)
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
	e2e.CompareJSON(t, what+": check_results", results(a), results(b))
}
