package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	targeted := func(extra ...string) (cmdResult, cmdResult) {
		return both(tf, tt, func(s side) cmdResult {
			args := append(append([]string{}, ttApply...), "-target", "tether_value.b")
			if s.name == "terraform" {
				args = append(append([]string{}, tfApply...), "-target", "tether_value.b")
			}
			return s.run(append(args, extra...)...)
		})
	}

	tfRes, ttRes := targeted()
	sameApply(t, "targeted apply", tf, tt, tfRes, ttRes)

	tfRes, ttRes = applyBoth(tf, tt)
	mustSucceed(t, "apply", tfRes, ttRes)
	checkApplied(t, "apply", tf, tt, tfRes, ttRes)

	// Files replaced by folders: reading tether_file.f back fails, and so
	// does reading data.tether_file.other; neither may stop a plan whose
	// target does not depend on them.
	for _, s := range []side{tf, tt} {
		for _, f := range []string{filepath.Join(s.dir, "out", "f.txt"), filepath.Join(s.dir, "other.txt")} {
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
func sameApply(t *testing.T, label string, tf, tt side, tfRes, ttRes cmdResult) {
	t.Helper()
	mustSucceed(t, label, tfRes, ttRes)
	if tfSum, ttSum := applySummary(tfRes.stdout), applySummary(ttRes.stdout); tfSum != ttSum {
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
			if r := tf.run("get", "-no-color"); r.code != 0 {
				t.Fatalf("terraform get: %s", r)
			}
			var args []string
			for _, a := range c.targets {
				args = append(args, "-target", a)
			}
			if c.destroy {
				tfRes, ttRes := applyBoth(tf, tt)
				mustSucceed(t, "apply", tfRes, ttRes)
			}
			tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
				base := ttApply
				switch {
				case s.name == "terraform" && c.destroy:
					base = tfDestroy
				case s.name == "terraform":
					base = tfApply
				case c.destroy:
					base = ttDestroy
				}
				return s.run(append(append([]string{}, base...), args...)...)
			})
			if c.fails {
				for _, r := range []cmdResult{tfRes, ttRes} {
					if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "Invalid index") {
						t.Errorf("the plan fails on an output's Invalid index:\n%s", r)
					}
				}
				// Terraform wrote no state: nothing was applied.
				if r := tt.run("state", "list"); strings.TrimSpace(r.stdout) != "" {
					t.Errorf("the failed plan applied nothing: tether's state lists\n%s", r.stdout)
				}
				return
			}
			if c.destroy {
				mustSucceed(t, "targeted destroy", tfRes, ttRes)
				if tfSum, ttSum := destroySummary(tfRes.stdout), destroySummary(ttRes.stdout); tfSum != ttSum {
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
