package diagnostic

import "github.com/hashicorp/hcl/v2"

// CheckKind is the kind of custom condition a diagnostic reports on, as
// Terraform's check rules are kinds.
type CheckKind string

const (
	Precondition  CheckKind = "precondition"
	Postcondition CheckKind = "postcondition"
	// Assertion is a check block's assert.
	Assertion CheckKind = "assertion"
	// Validation is a variable's validation rule.
	Validation CheckKind = "validation"
)

// CheckRule is what the Extra of a diagnostic reported by a custom
// condition implements: the object whose rule it is (var.x,
// tether_file.a[0], output.o, check.c, each with its module instance
// path) and the rule's kind. Terraform marks these diagnostics the same
// way, so that terraform test's expect_failures can tell them from any
// other diagnostic whatever their summary says.
type CheckRule interface {
	CheckRuleObject() string
	CheckRuleKind() CheckKind
}

// MarkCheckRule records in d's Extra that it reports a custom condition
// of kind on object; what its Extra held stays reachable.
func MarkCheckRule(d *hcl.Diagnostic, object string, kind CheckKind) {
	d.Extra = checkRuleExtra{object: object, kind: kind, wrapped: d.Extra}
}

// CheckRuleOf is the object and kind of the custom condition d reports
// on; ok is false for a diagnostic no custom condition reported.
func CheckRuleOf(d *hcl.Diagnostic) (object string, kind CheckKind, ok bool) {
	if r, found := hcl.DiagnosticExtra[CheckRule](d); found {
		return r.CheckRuleObject(), r.CheckRuleKind(), true
	}
	return "", "", false
}

type checkRuleExtra struct {
	object  string
	kind    CheckKind
	wrapped any
}

func (e checkRuleExtra) CheckRuleObject() string    { return e.object }
func (e checkRuleExtra) CheckRuleKind() CheckKind   { return e.kind }
func (e checkRuleExtra) UnwrapDiagnosticExtra() any { return e.wrapped }
