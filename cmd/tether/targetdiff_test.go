package main

import (
	"os"
	"path/filepath"
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
