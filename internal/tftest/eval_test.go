package tftest

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/tetherhq/tether/internal/diagnostic"
)

// TestExpectFailuresMatchesMarkedRules: expect_failures takes a
// diagnostic as its object's failure by the check-rule mark the engine
// puts on it, not by its summary: a renamed summary still matches, and an
// unmarked diagnostic with a condition's summary does not.
func TestExpectFailuresMatchesMarkedRules(t *testing.T) {
	marked := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Some new wording"}
	diagnostic.MarkCheckRule(marked, "tether_file.a[0]", diagnostic.Precondition)
	unmarked := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Resource precondition failed"}
	ref, diags := hclsyntax.ParseTraversalAbs([]byte("tether_file.a"), "t.tftest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	run := &Run{Name: "r", Plan: true, ExpectFailures: []hcl.Traversal{ref}}
	if got := expectFailures(run, Outcome{PlanDiags: hcl.Diagnostics{marked}}); len(got) != 0 {
		t.Errorf("a marked failure of tether_file.a was not taken as expected: %v", got)
	}
	got := expectFailures(run, Outcome{PlanDiags: hcl.Diagnostics{unmarked}})
	if len(got) != 1 || got[0] != unmarked {
		t.Errorf("an unmarked diagnostic was taken as the expected failure: %v", got)
	}
}
