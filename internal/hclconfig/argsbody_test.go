package hclconfig

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/provider"
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

// TestArgsContent checks that argsContent, checkBody's short way for a
// body of arguments only, gives what checkBody gives where it answers, and
// leaves to checkBody every body it would report on; and that
// argsVariables finds what hcldec.Variables finds.
func TestArgsContent(t *testing.T) {
	block := &provider.Block{Attributes: map[string]*provider.Attribute{
		"input":    {Type: cty.String, Required: true},
		"delay_ms": {Type: cty.Number, Optional: true},
		"id":       {Type: cty.String, Computed: true},
	}, BlockTypes: map[string]*provider.NestedBlock{"rule": {Nesting: provider.NestingList}}}
	for _, tc := range []struct {
		name, src string
		short     bool // argsContent answers
	}{
		{"required only", "input = \"v1\"\n", true},
		{"both", "delay_ms = 5\ninput = \"v-${var.x}\"\n", true},
		{"references", "input = local.a\ndelay_ms = length([var.b, \"c\"])\n", true},
		{"missing required", "delay_ms = 5\n", false},
		{"unexpected", "input = \"v1\"\ninptu = 2\n", false},
		{"computed only", "input = \"v1\"\nid = \"x\"\n", false},
		{"block as argument", "input = \"v1\"\nrule = []\n", false},
		{"a block", "input = \"v1\"\nrule {}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tc.src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			body := f.Body.(*hclsyntax.Body)
			l := newLoader(t.TempDir(), Options{})
			spec := schemabody.Spec(block)
			got := l.argsContent(body, block)
			if (got != nil) != tc.short {
				t.Fatalf("argsContent answered %v, want %v", got != nil, tc.short)
			}
			if got == nil {
				return
			}
			want := l.checkBody(body, spec, block)
			if want == nil {
				t.Fatalf("checkBody found problems argsContent did not: %v", l.diags)
			}
			if len(got.Attributes) != len(want.Attributes) || len(want.Blocks) != 0 || got.MissingItemRange != want.MissingItemRange {
				t.Fatalf("content %+v, want %+v", got, want)
			}
			for name, w := range want.Attributes {
				if g := got.Attributes[name]; g == nil || *g != *w {
					t.Errorf("argument %s: %+v, want %+v", name, g, w)
				}
			}
			gotVars, wantVars := argsVariables(body), hcldec.Variables(body, spec)
			if g, w := traversalSet(gotVars), traversalSet(wantVars); !slices.Equal(g, w) {
				t.Errorf("references %q, want %q", g, w)
			}
		})
	}
}
