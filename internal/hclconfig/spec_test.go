package hclconfig

import (
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/provider"
)

// TestBodySpecDecodesAsTheSchemaSpec checks that a body decodes to the
// same value, with the same diagnostics, through bodySpec's spec as
// through the schema's whole one, whichever arguments and nested block
// types it sets, as the loader decodes it: with bodySpec's spec only when
// checkBody found nothing wrong.
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
			"name":  {Type: cty.String, Optional: true},
			"id":    {Type: cty.String, Computed: true},
			"must":  {Type: cty.String, Required: true},
			"count": {Type: cty.Number, Optional: true, Computed: true},
			"list":  {Type: cty.List(cty.String), Optional: true},
			"any":   {Type: cty.DynamicPseudoType, Optional: true},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"single":   nested(false, provider.NestingSingle, 0),
			"required": nested(false, provider.NestingSingle, 1),
			"group":    nested(false, provider.NestingGroup, 0),
			"blocks":   nested(false, provider.NestingList, 0),
			"list_min": nested(false, provider.NestingList, 1),
			"tuple":    nested(true, provider.NestingList, 0),
			"set":      nested(false, provider.NestingSet, 0),
			"map":      nested(false, provider.NestingMap, 0),
			"object":   nested(true, provider.NestingMap, 0),
		},
	}
	spec := schemabody.Spec(block)
	l := newLoader(t.TempDir(), Options{})
	n := &config.Node{Kind: config.Resource, Source: "example.com/x/x", Type: "x_thing"}
	for _, c := range []struct{ name, src string }{
		{"no blocks", `
must = "m"
required {}
list_min {}
`},
		{"required blocks missing", `
must = "m"
name = "a"
list_min {}
`},
		{"required argument missing", `
required {}
list_min {}
`},
		{"references", `
name = var.a
must = "${local.b}-${var.c[0]}"
required {
  port = local.d
}
list_min {
  port = count.index
}
`},
		{"every argument", `
name  = "a"
must  = "m"
count = 2
list  = ["x"]
any   = { a = 1 }
required {}
list_min {}
`},
		{"computed argument", `
id   = "x"
must = "m"
required {}
list_min {}
`},
		{"every block", `
must = "m"
single {
  port = 1
}
required {}
group {}
blocks {
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
must = "m"
required {}
list_min {}
nope {}
`},
		{"unknown argument", `
must = "m"
nam  = "a"
required {}
list_min {}
`},
		{"too many", `
must = "m"
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
			decodeSpec := spec
			if content := l.checkBody(f.Body, spec, block); content != nil {
				decodeSpec, _ = l.bodySpec(n, spec, content)
			} else if !wantDiags.HasErrors() && c.name != "computed argument" {
				t.Fatal("checkBody found something wrong in a body that decodes without error")
			}
			// The references found through either spec are the same.
			if got, want := traversalSet(hcldec.Variables(f.Body, decodeSpec)), traversalSet(hcldec.Variables(f.Body, spec)); !slices.Equal(got, want) {
				t.Errorf("references %q\nwant %q", got, want)
			}
			got, gotDiags := hcldec.Decode(f.Body, decodeSpec, nil)
			if !got.RawEquals(want) {
				t.Errorf("decoded %#v\nwant %#v", got, want)
			}
			// hcldec reports in its spec's map order: compare as sets.
			if got, want := diagSet(gotDiags), diagSet(wantDiags); !slices.Equal(got, want) {
				t.Errorf("diagnostics %q\nwant %q", got, want)
			}
		})
	}

	// What a body does not set is a literal, unless it must be set: that
	// is left to hcldec, which reports it missing.
	content := &hcl.BodyContent{Attributes: hcl.Attributes{"name": {Name: "name"}}}
	narrowed, _ := l.bodySpec(n, spec, content)
	for name, s := range narrowed.(hcldec.ObjectSpec) {
		_, literal := s.(*hcldec.LiteralSpec)
		if want := name != "name" && name != "must" && name != "required" && name != "list_min"; literal != want {
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

func traversalSet(ts []hcl.Traversal) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.SourceRange().String())
	}
	slices.Sort(out)
	return out
}
