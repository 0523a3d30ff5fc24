package differential

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestDifferentialTarget applies testdata/target with -target on both
// sides, then whole, then with -target again after changing a variable
// and turning a file the target does not depend on into a folder. Both must record the
// same root outputs each time (under -target, only those computed from
// what it keeps: not a constant's, not one that also reads a resource
// left out), the same state, and refresh and read the same objects (the
// target and its dependencies, not a file or a data source whose reading
// fails).
func TestDifferentialTarget(t *testing.T) {
	tools := differentialTools(t)
	tf, tt := twoSides(t, tools, filepath.Join("testdata", "target"))
	targeted := func(extra ...string) (e2e.CmdResult, e2e.CmdResult) {
		return e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			args := append(append([]string{}, e2e.TTApply...), "-target", "tether_value.b")
			if s.Name == "terraform" {
				args = append(append([]string{}, e2e.TFApply...), "-target", "tether_value.b")
			}
			return s.Run(append(args, extra...)...)
		})
	}

	tfRes, ttRes := targeted()
	sameApply(t, "targeted apply", tf, tt, tfRes, ttRes)

	tfRes, ttRes = e2e.ApplyBoth(tf, tt)
	e2e.MustSucceed(t, "apply", tfRes, ttRes)
	checkApplied(t, "apply", tf, tt, tfRes, ttRes)

	// Files replaced by folders: reading tether_file.f back fails, and so
	// does reading data.tether_file.other; neither may stop a plan whose
	// target does not depend on them.
	for _, s := range []e2e.Side{tf, tt} {
		for _, f := range []string{filepath.Join(s.Dir, "out", "f.txt"), filepath.Join(s.Dir, "other.txt")} {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(f, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	tfRes, ttRes = targeted("-var", "ain=a2", "-var", "kv=constant2")
	sameApply(t, "targeted apply after changes", tf, tt, tfRes, ttRes)
}

// sameApply compares what a targeted apply did on the two sides: the
// summaries, the root outputs and the state recorded, data source results
// included (a plan after it has changes).
func sameApply(t *testing.T, label string, tf, tt e2e.Side, tfRes, ttRes e2e.CmdResult) {
	t.Helper()
	e2e.MustSucceed(t, label, tfRes, ttRes)
	if tfSum, ttSum := e2e.ApplySummary(tfRes.Stdout), e2e.ApplySummary(ttRes.Stdout); tfSum != ttSum {
		t.Errorf("%s: terraform reports %q, tether %q\n%s\n%s", label, tfSum, ttSum, tfRes, ttRes)
	}
	compareOutputs(t, label, tf, tt)
	compareState(t, label, tf, tt)
}

// TestDifferentialTargetInstances applies testdata/target_instances with
// -target on both sides, each case on a fresh copy: the same summary,
// root outputs and state after the apply, or the same failure with
// nothing recorded (an output that indexes an instance the target leaves
// out); then, for a destroy case, applies it whole and destroys with
// -target. Before, tether applied every instance of a needed for_each
// resource, where Terraform applies the instances the target needs.
func TestDifferentialTargetInstances(t *testing.T) {
	tools := differentialTools(t)
	for _, c := range []struct {
		name    string
		targets []string
		destroy bool
		fails   bool
	}{
		{name: "constant_key", targets: []string{"tether_value.onlya"}},
		{name: "instance", targets: []string{`tether_value.x["a"]`}},
		{name: "module_output", targets: []string{"tether_value.usem"}},
		{name: "two", targets: []string{"tether_value.onlya", `module.m["c"].tether_value.r["q"]`}, fails: true},
		{name: "sibling_indexed", targets: []string{`tether_value.x["b"]`}, fails: true},
		{name: "module_sibling", targets: []string{`module.m["a"]`}, fails: true},
		{name: "destroy_instance", targets: []string{`tether_value.v["a"]`}, destroy: true},
		{name: "destroy_module", targets: []string{`module.m["b"]`}, destroy: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tf, tt := twoSides(t, tools, filepath.Join("testdata", "target_instances"))
			if r := tf.Run("get", "-no-color"); r.Code != 0 {
				t.Fatalf("terraform get: %s", r)
			}
			var args []string
			for _, a := range c.targets {
				args = append(args, "-target", a)
			}
			if c.destroy {
				tfRes, ttRes := e2e.ApplyBoth(tf, tt)
				e2e.MustSucceed(t, "apply", tfRes, ttRes)
			}
			tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
				base := e2e.TTApply
				switch {
				case s.Name == "terraform" && c.destroy:
					base = e2e.TFDestroy
				case s.Name == "terraform":
					base = e2e.TFApply
				case c.destroy:
					base = e2e.TTDestroy
				}
				return s.Run(append(append([]string{}, base...), args...)...)
			})
			if c.fails {
				for _, r := range []e2e.CmdResult{tfRes, ttRes} {
					if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "Invalid index") {
						t.Errorf("the plan fails on an output's Invalid index:\n%s", r)
					}
				}
				// Terraform wrote no state: nothing was applied.
				if r := tt.Run("state", "list"); strings.TrimSpace(r.Stdout) != "" {
					t.Errorf("the failed plan applied nothing: tether's state lists\n%s", r.Stdout)
				}
				return
			}
			if c.destroy {
				e2e.MustSucceed(t, "targeted destroy", tfRes, ttRes)
				if tfSum, ttSum := e2e.DestroySummary(tfRes.Stdout), e2e.DestroySummary(ttRes.Stdout); tfSum != ttSum {
					t.Errorf("targeted destroy: terraform reports %q, tether %q\n%s\n%s", tfSum, ttSum, tfRes, ttRes)
				}
				compareOutputs(t, "targeted destroy", tf, tt)
				compareState(t, "targeted destroy", tf, tt)
				return
			}
			sameApply(t, "targeted apply", tf, tt, tfRes, ttRes)
		})
	}
}
