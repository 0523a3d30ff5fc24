package diagnostic

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Error is an error diagnostic with a fixed summary and a detail of whole
// sentences, located nowhere: a caller that knows where sets Subject, or
// uses At.
func Error(summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
	}
}

// At is an error diagnostic whose subject is r.
func At(r hcl.Range, summary, detail string) *hcl.Diagnostic {
	d := Error(summary, detail)
	d.Subject = r.Ptr()
	return d
}

// Wrap is an error diagnostic about a Go error: its detail says what was
// being done when err happened, then err, as one sentence.
func Wrap(summary, doing string, err error) *hcl.Diagnostic {
	return Error(summary, Failed(doing, err))
}

// Failed is the sentence a detail gives a Go error: "While DOING: ERR."
// A doing of "" leaves only the error, capitalized.
func Failed(doing string, err error) string {
	msg := strings.TrimSuffix(err.Error(), ".")
	if doing == "" {
		return capitalize(msg) + "."
	}
	return "While " + doing + ": " + msg + "."
}

// Object is an error diagnostic about the object at address, declared at
// decl (nil for an object only state records).
func Object(address string, decl *hcl.Range, summary, detail string) *hcl.Diagnostic {
	return About(address, decl, hcl.Diagnostics{Error(summary, detail)})[0]
}

// About names the object at address on each diagnostic, in its Extra, and
// locates those that say nothing of where at decl, the object's
// declaration; one located more precisely (at one of its arguments) gets
// decl as its Context. A diagnostic that already names an object keeps it.
// The Extra a diagnostic had (a provider's attribute path) stays reachable
// through hcl.DiagnosticExtra.
func About(address string, decl *hcl.Range, diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d == nil {
			continue
		}
		if Address(d) == "" {
			d.Extra = addressExtra{address: address, wrapped: d.Extra}
		}
		if decl == nil {
			continue
		}
		switch {
		case d.Subject == nil:
			d.Subject = decl.Ptr()
		case d.Context == nil && *d.Subject != *decl:
			d.Context = decl.Ptr()
		}
	}
	return diags
}

// Address is the address of the object d is about, or "".
func Address(d *hcl.Diagnostic) string {
	if a, ok := hcl.DiagnosticExtra[Addressed](d); ok {
		return a.DiagnosticAddress()
	}
	return ""
}

// Addressed is what the Extra of a diagnostic about one object implements.
// The ui finds it through hcl.DiagnosticExtra, so it needs no import of
// this package.
type Addressed interface {
	DiagnosticAddress() string
}

type addressExtra struct {
	address string
	wrapped any
}

func (e addressExtra) DiagnosticAddress() string  { return e.address }
func (e addressExtra) UnwrapDiagnosticExtra() any { return e.wrapped }

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return fmt.Sprintf("%c%s", unicode.ToUpper(r), s[n:])
}

// AttributePath is the path of the attribute d is about, from its Extra (a
// provider's diagnostic carries one, directly or behind an address), or
// nil.
func AttributePath(d *hcl.Diagnostic) cty.Path {
	if pe, ok := hcl.DiagnosticExtra[interface{ AttributePath() cty.Path }](d); ok {
		return pe.AttributePath()
	}
	return nil
}

// AttributeName is how the attribute d is about is written after the
// address: as the configuration names it (a Go program's field, .Dir),
// else as its path (.dir); "" for a diagnostic about no attribute.
func AttributeName(d *hcl.Diagnostic) string {
	if n, ok := hcl.DiagnosticExtra[interface{ DiagnosticAttributeName() string }](d); ok {
		return n.DiagnosticAttributeName()
	}
	return PathString(AttributePath(d))
}

// NameAttribute records in d's Extra how the configuration names the
// attribute d is about (see AttributeName); its path stays reachable.
func NameAttribute(d *hcl.Diagnostic, name string) {
	d.Extra = attrNameExtra{name: name, wrapped: d.Extra}
}

type attrNameExtra struct {
	name    string
	wrapped any
}

func (e attrNameExtra) DiagnosticAttributeName() string { return e.name }
func (e attrNameExtra) UnwrapDiagnosticExtra() any      { return e.wrapped }

// PathString writes p as an attribute reference, the way it follows an
// address: .tags["a"], .rule[0].port.
func PathString(p cty.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			b.WriteString("." + s.Name)
		case cty.IndexStep:
			switch s.Key.Type() {
			case cty.String:
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			case cty.Number:
				fmt.Fprintf(&b, "[%s]", s.Key.AsBigFloat().Text('f', -1))
			}
		}
	}
	return b.String()
}
