package provider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestNormalizeBlocks checks the fix-up Terraform gives every refreshed
// object (objchange.NormalizeObjectFromLegacySDK).
func TestNormalizeBlocks(t *testing.T) {
	inner := func() Block { return Block{Attributes: map[string]*Attribute{"v": {Type: cty.String, Optional: true}}} }
	b := &Block{
		Attributes: map[string]*Attribute{"id": {Type: cty.String, Computed: true}},
		BlockTypes: map[string]*NestedBlock{
			"list":   {Nesting: NestingList, Block: inner()},
			"set":    {Nesting: NestingSet, Block: inner()},
			"group":  {Nesting: NestingGroup, Block: inner()},
			"single": {Nesting: NestingSingle, Block: inner()},
		},
	}
	ety := b.BlockTypes["list"].Block.ImpliedType()
	el := func(v cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"v": v}) }
	obj := func(list, set, group, single cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i"), "list": list, "set": set, "group": group, "single": single})
	}
	for _, tc := range []struct {
		name    string
		in, out cty.Value
	}{
		{"null blocks are empty, a null single block stays null",
			obj(cty.NullVal(cty.List(ety)), cty.NullVal(cty.Set(ety)), cty.NullVal(ety), cty.NullVal(ety)),
			obj(cty.ListValEmpty(ety), cty.SetValEmpty(ety), el(cty.NullVal(cty.String)), cty.NullVal(ety))},
		{"unknown blocks are known blocks of unknowns",
			obj(cty.UnknownVal(cty.List(ety)), cty.UnknownVal(cty.Set(ety)), cty.UnknownVal(ety), cty.UnknownVal(ety)),
			obj(cty.ListVal([]cty.Value{el(cty.UnknownVal(cty.String))}), cty.SetVal([]cty.Value{el(cty.UnknownVal(cty.String))}),
				el(cty.UnknownVal(cty.String)), el(cty.UnknownVal(cty.String)))},
		{"known blocks are kept",
			obj(cty.ListVal([]cty.Value{el(cty.StringVal("a"))}), cty.SetValEmpty(ety), el(cty.StringVal("g")), el(cty.StringVal("s"))),
			obj(cty.ListVal([]cty.Value{el(cty.StringVal("a"))}), cty.SetValEmpty(ety), el(cty.StringVal("g")), el(cty.StringVal("s")))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NormalizeBlocks(b, tc.in); !got.RawEquals(tc.out) {
				t.Errorf("got  %#v\nwant %#v", got, tc.out)
			}
		})
	}
}

// TestNormalizeBlocksWithoutBlocks checks that an object of a schema with
// no blocks comes back as the slow path builds it: the same value, marks
// kept, and attributes the schema lacks dropped.
func TestNormalizeBlocksWithoutBlocks(t *testing.T) {
	b := &Block{Attributes: map[string]*Attribute{"id": {Type: cty.String, Computed: true}, "n": {Type: cty.Number, Optional: true},
		"any": {Type: cty.DynamicPseudoType, Optional: true}}}
	for _, in := range []cty.Value{
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i"), "n": cty.NumberIntVal(1), "any": cty.StringVal("s")}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i").Mark("sensitive"), "n": cty.NullVal(cty.Number), "any": cty.ListValEmpty(cty.Bool)}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i"), "n": cty.NumberIntVal(1), "any": cty.NullVal(cty.DynamicPseudoType)}).Mark("sensitive"),
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i"), "n": cty.UnknownVal(cty.Number), "any": cty.True, "extra": cty.True}),
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("i"), "n": cty.StringVal("1"), "any": cty.Zero}),
	} {
		unmarked, pvm := in.UnmarkDeepWithPaths()
		want := normalizeBlocks(b, unmarked).MarkWithPaths(pvm)
		if got := NormalizeBlocks(b, in); !got.RawEquals(want) {
			t.Errorf("NormalizeBlocks(%#v)\n got  %#v\n want %#v", in, got, want)
		}
	}
}
