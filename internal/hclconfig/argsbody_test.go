package hclconfig

import (
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestArgsBodyContent checks that argsBody, the short way hcldec reads a
// body of arguments only, gives what referenceBody gives: the same
// arguments with the same ranges, each wrapped to resolve references, and
// hclsyntax's own diagnostics for a missing or an unexpected argument.
func TestArgsBodyContent(t *testing.T) {
	schema := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "input", Required: true}, {Name: "delay_ms"}}}
	for _, tc := range []struct{ name, src string }{
		{"required only", "input = \"v1\"\n"},
		{"both", "delay_ms = 5\ninput = \"v${1}\"\n"},
		{"missing required", "delay_ms = 5\n"},
		{"unexpected", "input = \"v1\"\ninptu = 2\n"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tc.src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			body := f.Body.(*hclsyntax.Body)
			want, wantDiags := referenceBody{body}.Content(schema)
			got, gotDiags := argsBody{body}.Content(schema)
			if g, w := fmt.Sprint(gotDiags), fmt.Sprint(wantDiags); g != w {
				t.Errorf("diagnostics %s, want %s", g, w)
			}
			if len(got.Attributes) != len(want.Attributes) || len(got.Blocks) != 0 || got.MissingItemRange != want.MissingItemRange {
				t.Fatalf("content %+v, want %+v", got, want)
			}
			for name, w := range want.Attributes {
				g := got.Attributes[name]
				if g == nil || g.Name != w.Name || g.Range != w.Range || g.NameRange != w.NameRange || g.Expr.Range() != w.Expr.Range() {
					t.Errorf("argument %s: %+v, want %+v", name, g, w)
					continue
				}
				if _, ok := g.Expr.(referenceExpr); !ok {
					t.Errorf("argument %s is not wrapped to resolve references: %T", name, g.Expr)
				}
			}
		})
	}
}

// TestValidName checks that the ASCII shortcut of hclsyntaxValidName says
// what hclsyntax.ValidIdentifier says, for names it decides and names it
// leaves to hclsyntax.
func TestValidName(t *testing.T) {
	for _, name := range []string{"r0", "_x", "a-b_c9", "A", "null", "", "0a", "-a", "a.b", "a b", "a\"", "ä", "aé", "名前", "a\n"} {
		t.Run(name, func(t *testing.T) {
			if got, want := hclsyntaxValidName(name), hclsyntax.ValidIdentifier(name); got != want {
				t.Errorf("hclsyntaxValidName(%q) = %v, hclsyntax says %v", name, got, want)
			}
		})
	}
}
