package hclconfig

import (
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// TestBodySpecDecodesAsTheSchemaSpec checks that a body decodes to the
// same value, with the same diagnostics, through bodySpec's spec as
// through the schema's whole one, whichever nested block types it has.
func TestBodySpecDecodesAsTheSchemaSpec(t *testing.T) {
	nested := func(dynamic bool, nesting provider.Nesting, min int) *provider.NestedBlock {
		nb := &provider.NestedBlock{Nesting: nesting, MinItems: min}
		nb.Attributes = map[string]*provider.Attribute{"port": {Type: cty.Number, Optional: true}}
		if dynamic {
			nb.Attributes["any"] = &provider.Attribute{Type: cty.DynamicPseudoType, Optional: true}
		}
		return nb
	}
	block := &provider.Block{
		Attributes: map[string]*provider.Attribute{
			"name": {Type: cty.String, Optional: true},
			"id":   {Type: cty.String, Computed: true},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"single":   nested(false, provider.NestingSingle, 0),
			"required": nested(false, provider.NestingSingle, 1),
			"group":    nested(false, provider.NestingGroup, 0),
			"list":     nested(false, provider.NestingList, 0),
			"list_min": nested(false, provider.NestingList, 1),
			"tuple":    nested(true, provider.NestingList, 0),
			"set":      nested(false, provider.NestingSet, 0),
			"map":      nested(false, provider.NestingMap, 0),
			"object":   nested(true, provider.NestingMap, 0),
		},
	}
	spec := decoderSpec(block)
	l := newLoader(t.TempDir(), Options{})
	n := &config.Node{Kind: config.Resource, Source: "example.com/x/x", Type: "x_thing"}
	for _, c := range []struct{ name, src string }{
		{"no blocks", `name = "a"`},
		{"required missing", `
name = "a"
list_min {}
`},
		{"every block", `
single {
  port = 1
}
required {}
group {}
list {
  port = 2
}
list_min {}
list_min {}
tuple {
  any = "s"
}
tuple {
  any = 3
}
set {
  port = 4
}
map "k" {
  port = 5
}
object "k" {
  any = true
}
`},
		{"unknown block type", `
required {}
list_min {}
nope {}
`},
		{"too many", `
required {}
required {}
list_min {}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(c.src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			want, wantDiags := hcldec.Decode(f.Body, spec, nil)
			got, gotDiags := hcldec.Decode(f.Body, l.bodySpec(n, spec, f.Body), nil)
			if !got.RawEquals(want) {
				t.Errorf("decoded %#v\nwant %#v", got, want)
			}
			// hcldec reports in its spec's map order: compare as sets.
			if got, want := diagSet(gotDiags), diagSet(wantDiags); !slices.Equal(got, want) {
				t.Errorf("diagnostics %q\nwant %q", got, want)
			}
		})
	}

	// Without blocks, every optional block type is a literal, and the
	// required ones are left to hcldec, which reports them missing.
	f, _ := hclsyntax.ParseConfig([]byte(`name = "a"`), "main.tf", hcl.InitialPos)
	for name, s := range l.bodySpec(n, spec, f.Body).(hcldec.ObjectSpec) {
		_, literal := s.(*hcldec.LiteralSpec)
		if want := block.BlockTypes[name] != nil && name != "required" && name != "list_min"; literal != want {
			t.Errorf("%s: literal %t, want %t", name, literal, want)
		}
	}
}

func diagSet(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Error())
	}
	slices.Sort(out)
	return out
}
