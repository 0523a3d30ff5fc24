package codegen

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestFieldType(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"a": cty.String})
	name := func(cty.Type) string { return "Obj" }
	for _, c := range []struct {
		t        cty.Type
		optional bool
		want     string
	}{
		{cty.String, false, "string"},
		{cty.String, true, "*string"},
		{cty.Bool, false, "bool"},
		{cty.Bool, true, "*bool"},
		{cty.Number, false, "tether.Number"},
		{cty.Number, true, "tether.Number"},
		{cty.List(cty.String), true, "[]string"},
		{cty.Set(cty.Number), true, "[]tether.Number"},
		{cty.Map(cty.Bool), true, "map[string]bool"},
		{cty.List(obj), true, "[]Obj"},
		{obj, true, "Obj"},
		{cty.Tuple([]cty.Type{cty.String}), true, "any"},
		{cty.DynamicPseudoType, false, "any"},
	} {
		t.Run(c.t.FriendlyName(), func(t *testing.T) {
			if got := FieldType(c.t, c.optional, name); got != c.want {
				t.Errorf("FieldType(%s, optional %v) = %s, want %s", c.t.FriendlyName(), c.optional, got, c.want)
			}
			// As an argument, a number takes a Number or an
			// Output[tether.Number]; everything else is as a value.
			want := c.want
			if c.t == cty.Number {
				want = "tether.NumberInput"
			}
			if got := ArgType(c.t, c.optional, name); got != want {
				t.Errorf("ArgType(%s, optional %v) = %s, want %s", c.t.FriendlyName(), c.optional, got, want)
			}
		})
	}
}
