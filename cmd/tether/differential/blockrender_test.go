package differential

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestDifferentialBlockRendering compares how terraform 1.11 and tether
// show nested blocks to people: testdata/blockrender (the built-in
// provider's tether_bundle, a list of file blocks each with a map of
// header blocks, and tether_tester, a map of test blocks) is planned with
// -out, the saved plan shown, and applied, by both tools, then its
// update/ and replace/ steps in turn, then a destroy. After each step
// the plan's resource changes, `show` of the saved plan, `state show` of
// every resource and `show` of the state must be the same bytes (ids,
// which are random, left out). Between them the steps cover blocks
// created, changed, added, removed and hidden as unchanged, in lists,
// maps and blocks inside blocks; a replacement's "# forces replacement";
// sensitive attributes in blocks and blocks from a sensitive value; and
// values and whole block lists known only after apply.
func TestDifferentialBlockRendering(t *testing.T) {
	tools := differentialTools(t)
	caseDir := filepath.Join("testdata", "blockrender")
	tf, tt := twoSides(t, tools, caseDir)
	renderSteps(t, caseDir, tf, tt, "update", "replace")
}

// TestNestedAttributeRendering is TestDifferentialBlockRendering for
// protocol 6 nested attributes, through the test provider's
// testing_nested (testdata/blockrender_nested): a single object, and a
// list and a map of objects, created, changed and destroyed.
func TestNestedAttributeRendering(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the test provider and runs terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	tools, env := e2e.RealProviders(t)
	caseDir := filepath.Join("testdata", "blockrender_nested")
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(caseDir, s.Dir, "update"); err != nil {
			t.Fatal(err)
		}
	}
	e2e.InitBoth(t, tf, tt, "init")
	renderSteps(t, caseDir, tf, tt, "update")
}

// renderSteps plans, shows and applies the case in caseDir on both
// sides, then each step folder copied over it in turn, then a destroy,
// comparing what each tool shows (see TestDifferentialBlockRendering).
func renderSteps(t *testing.T, caseDir string, tf, tt e2e.Side, stepDirs ...string) {
	t.Helper()
	steps := []struct{ label, dir string }{{"create", ""}}
	for _, d := range stepDirs {
		steps = append(steps, struct{ label, dir string }{d, d})
	}
	steps = append(steps, struct{ label, dir string }{"destroy", ""})
	for _, step := range steps {
		if step.dir != "" {
			for _, s := range []e2e.Side{tf, tt} {
				if err := e2e.CopyTree(filepath.Join(caseDir, step.dir), s.Dir, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			args := []string{"plan", "-out", "p.tfplan"}
			if s.Name == "terraform" {
				args = []string{"plan", "-input=false", "-no-color", "-out", "p.tfplan"}
			}
			if step.label == "destroy" {
				args = append(args, "-destroy")
			}
			return s.Run(args...)
		})
		e2e.MustSucceed(t, step.label+": plan -out", tfRes, ttRes)
		e2e.SameText(t, step.label+": plan", e2e.PlannedChanges(tfRes.Stdout), e2e.PlannedChanges(ttRes.Stdout))

		tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			if s.Name == "terraform" {
				return s.Run("show", "-no-color", "p.tfplan")
			}
			return s.Run("show", "p.tfplan")
		})
		e2e.MustSucceed(t, step.label+": show of the saved plan", tfRes, ttRes)
		e2e.SameText(t, step.label+": show p.tfplan", e2e.PlannedChanges(tfRes.Stdout), e2e.PlannedChanges(ttRes.Stdout))

		tfRes, ttRes = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			if s.Name == "terraform" {
				return s.Run("apply", "-input=false", "-no-color", "p.tfplan")
			}
			return s.Run("up", "p.tfplan")
		})
		e2e.MustSucceed(t, step.label+": apply of the saved plan", tfRes, ttRes)
		if step.label == "destroy" {
			break
		}
		compareShownState(t, step.label, tf, tt)
	}
}

// compareShownState compares `show` of the state, and `state show` of
// every object it records, on the two sides.
func compareShownState(t *testing.T, label string, tf, tt e2e.Side) {
	t.Helper()
	tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
		if s.Name == "terraform" {
			return s.Run("show", "-no-color")
		}
		return s.Run("show")
	})
	e2e.MustSucceed(t, label+": show", tfRes, ttRes)
	e2e.SameText(t, label+": show", e2e.MaskIDs(tfRes.Stdout), e2e.MaskIDs(ttRes.Stdout))
	list := tt.Run("state", "list")
	e2e.MustSucceed(t, label+": state list", list)
	for _, a := range strings.Fields(list.Stdout) {
		tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
			if s.Name == "terraform" {
				return s.Run("state", "show", "-no-color", a)
			}
			return s.Run("state", "show", a)
		})
		e2e.MustSucceed(t, label+": state show "+a, tfRes, ttRes)
		e2e.SameText(t, label+": state show "+a, e2e.MaskIDs(tfRes.Stdout), e2e.MaskIDs(ttRes.Stdout))
	}
}
