package diagnostic

import (
	"errors"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

type pathExtra struct{ path cty.Path }

func (e pathExtra) AttributePath() cty.Path { return e.path }

func TestFailed(t *testing.T) {
	for _, c := range []struct {
		doing string
		err   error
		want  string
	}{
		{"writing \"a.txt\"", errors.New("open a.txt: permission denied"), `While writing "a.txt": open a.txt: permission denied.`},
		{"recording the outputs", errors.New("database is locked."), "While recording the outputs: database is locked."},
		{"", errors.New("context canceled"), "Context canceled."},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := Failed(c.doing, c.err); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestAbout(t *testing.T) {
	decl := hcl.Range{Filename: "main.tf", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 20}}
	arg := hcl.Range{Filename: "main.tf", Start: hcl.Pos{Line: 2, Column: 3}, End: hcl.Pos{Line: 2, Column: 9}}
	unlocated := Error("Invalid attribute value", "The value is not valid.")
	unlocated.Extra = pathExtra{cty.GetAttrPath("port")}
	located := At(arg, "Invalid attribute value", "The value is not valid.")
	named := Object("tether_file.b", nil, "Cannot record object", "x")
	diags := About("tether_file.a", &decl, hcl.Diagnostics{unlocated, located, named})

	for i, want := range []struct {
		address          string
		subject, context *hcl.Range
	}{
		{"tether_file.a", &decl, nil},
		{"tether_file.a", &arg, &decl},
		{"tether_file.b", &decl, nil},
	} {
		d := diags[i]
		if got := Address(d); got != want.address {
			t.Errorf("%d: address %q, want %q", i, got, want.address)
		}
		if !sameRange(d.Subject, want.subject) || !sameRange(d.Context, want.context) {
			t.Errorf("%d: subject %v context %v, want %v %v", i, d.Subject, d.Context, want.subject, want.context)
		}
		if d.Summary == "" || d.Summary[0] == 't' {
			t.Errorf("%d: summary %q names the object", i, d.Summary)
		}
	}
	// The provider's attribute path stays reachable under the address.
	if pe, ok := hcl.DiagnosticExtra[interface{ AttributePath() cty.Path }](diags[0]); !ok || !pe.AttributePath().Equals(cty.GetAttrPath("port")) {
		t.Errorf("attribute path lost: %v %v", pe, ok)
	}
}

func sameRange(a, b *hcl.Range) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
