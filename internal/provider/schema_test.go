package provider

import (
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/diagnostic"
)

// TestSensitivePaths: the sensitive attributes of a block and of its
// nested blocks are found in a value, asked once or again (the block
// then knows whether it has any), and a block with none has none.
func TestSensitivePaths(t *testing.T) {
	// Attribute maps, each block made of its own (a Block holds caches,
	// and is not copied).
	inner := func() map[string]*Attribute {
		return map[string]*Attribute{"k": {Type: cty.String, Sensitive: true}, "v": {Type: cty.String, Optional: true}}
	}
	plain := func() map[string]*Attribute { return map[string]*Attribute{"a": {Type: cty.String, Optional: true}} }
	obj := func(attrs map[string]cty.Value) cty.Value { return cty.ObjectVal(attrs) }
	innerVal := obj(map[string]cty.Value{"k": cty.StringVal("s"), "v": cty.StringVal("x")})
	cases := []struct {
		name  string
		block *Block
		val   cty.Value
		want  []string
	}{
		{"none", &Block{Attributes: plain()}, obj(map[string]cty.Value{"a": cty.StringVal("x")}), nil},
		{"top", &Block{Attributes: map[string]*Attribute{"p": {Type: cty.String, Sensitive: true}, "a": {Type: cty.String}}},
			obj(map[string]cty.Value{"p": cty.StringVal("s"), "a": cty.StringVal("x")}), []string{".p"}},
		{"nested single", &Block{Attributes: plain(), BlockTypes: map[string]*NestedBlock{"b": {Block: Block{Attributes: inner()}, Nesting: NestingSingle}}},
			obj(map[string]cty.Value{"a": cty.StringVal("x"), "b": innerVal}), []string{".b.k"}},
		{"nested list", &Block{Attributes: plain(), BlockTypes: map[string]*NestedBlock{"b": {Block: Block{Attributes: inner()}, Nesting: NestingList}}},
			obj(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.ListVal([]cty.Value{innerVal, innerVal})}), []string{".b[0].k", ".b[1].k"}},
		{"nested, none", &Block{Attributes: plain(), BlockTypes: map[string]*NestedBlock{"b": {Block: Block{Attributes: plain()}, Nesting: NestingList}}},
			obj(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.ListVal([]cty.Value{obj(map[string]cty.Value{"a": cty.StringVal("y")})})}), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				var got []string
				for _, p := range c.block.SensitivePaths(c.val, nil) {
					got = append(got, diagnostic.PathString(p))
				}
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("SensitivePaths = %q, want %q", got, c.want)
				}
			}
			if got := c.block.hasSensitive(); got != (c.want != nil) {
				t.Errorf("hasSensitive = %v, want %v", got, c.want != nil)
			}
		})
	}
}
