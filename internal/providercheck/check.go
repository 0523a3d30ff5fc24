package providercheck

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// NoErrors fails the test at once when diags hold an error.
func NoErrors(t testing.TB, what string, diags hcl.Diagnostics) {
	t.Helper()
	if diags.HasErrors() {
		t.Fatalf("%s: unexpected errors: %s", what, diags.Error())
	}
}

// String is the attribute name of obj, which must be a known string.
func String(t testing.TB, obj cty.Value, name string) string {
	t.Helper()
	v := obj.GetAttr(name)
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		t.Fatalf("%s is %#v, want a known string", name, v)
	}
	return v.AsString()
}

// HasReplace reports whether paths, a plan's RequiresReplace, names the
// top-level attribute name.
func HasReplace(paths []cty.Path, name string) bool {
	for _, p := range paths {
		if p.Equals(cty.GetAttrPath(name)) {
			return true
		}
	}
	return false
}

// attributePather is what a diagnostic about an attribute carries in
// Extra, whether made in process or decoded from the plugin protocol.
type attributePather interface{ AttributePath() cty.Path }

// pathOf is the attribute path a diagnostic is about, or nil.
func pathOf(d *hcl.Diagnostic) cty.Path {
	if pe, ok := hcl.DiagnosticExtra[attributePather](d); ok {
		return pe.AttributePath()
	}
	return nil
}

// WantAttrError checks for exactly the diagnostic a user sees for a bad
// attribute value: the fixed summary "Invalid attribute value" and the
// attribute's path, which names it and lets the diagnostic point at it.
func WantAttrError(t testing.TB, diags hcl.Diagnostics, name string) {
	t.Helper()
	if !diags.HasErrors() {
		t.Fatalf("no error for invalid %s", name)
	}
	const want = "Invalid attribute value"
	for _, d := range diags {
		if d.Summary == want && pathOf(d).Equals(cty.GetAttrPath(name)) {
			return
		}
	}
	t.Fatalf("no diagnostic %q about %s among: %s", want, name, diags.Error())
}

// WantOnlyError checks that diags hold exactly one diagnostic, an error
// about path whose summary or detail contains text.
func WantOnlyError(t testing.TB, diags hcl.Diagnostics, path cty.Path, text string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity != hcl.DiagError {
		t.Fatalf("want one error, got %v", diags)
	}
	d := diags[0]
	if !strings.Contains(d.Summary+" "+d.Detail, text) {
		t.Errorf("diagnostic %q: %q does not mention %q", d.Summary, d.Detail, text)
	}
	if got := pathOf(d); got == nil {
		t.Errorf("diagnostic %q carries no attribute path", d.Summary)
	} else if !got.Equals(path) {
		t.Errorf("diagnostic path %#v, want %#v", got, path)
	}
}
