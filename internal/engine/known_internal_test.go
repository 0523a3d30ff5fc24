package engine

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

func TestWhollyKnown(t *testing.T) {
	known := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})})
	for name, v := range map[string]cty.Value{
		"known object":      known,
		"marked object":     known.Mark("sensitive"),
		"marked attribute":  cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark("sensitive")}),
		"unknown attribute": cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String)}),
		"unknown marked":    cty.ObjectVal(map[string]cty.Value{"a": cty.UnknownVal(cty.String).Mark("sensitive")}),
		"unknown in a list": cty.ObjectVal(map[string]cty.Value{"b": cty.ListVal([]cty.Value{cty.UnknownVal(cty.Number)})}),
		"unknown in nested": cty.ObjectVal(map[string]cty.Value{"o": cty.ObjectVal(map[string]cty.Value{"c": cty.UnknownVal(cty.Bool)})}),
		"unknown object":    cty.UnknownVal(known.Type()),
		"null object":       cty.NullVal(known.Type()),
		"null attribute":    cty.ObjectVal(map[string]cty.Value{"a": cty.NullVal(cty.String)}),
		"empty object":      cty.EmptyObjectVal,
		"string":            cty.StringVal("s"),
		"dynamic unknown":   cty.DynamicVal,
	} {
		t.Run(name, func(t *testing.T) {
			u, _ := v.UnmarkDeep()
			if got, want := whollyKnown(v), u.IsWhollyKnown(); got != want {
				t.Errorf("whollyKnown = %v, IsWhollyKnown = %v", got, want)
			}
		})
	}
}

// TestNothingToDoAllocatesNothing checks the per-instance steps that
// nearly always have nothing to do: at 100,000 instances each allocation
// they made was 100,000 more for the collector.
func TestNothingToDoAllocatesNothing(t *testing.T) {
	obj := cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("some-id"), "input": cty.StringVal("v")})
	n := &node{schema: &provider.ResourceSchema{Block: &provider.Block{Attributes: map[string]*provider.Attribute{
		"id":    {Type: cty.String, Computed: true},
		"input": {Type: cty.String, Optional: true},
	}}}}
	in := &instance{judged: true, meta: objectMeta{Sensitive: []cty.Path{cty.GetAttrPath("input")}}}
	for name, f := range map[string]func(){
		"scrubbing no diagnostics":          func() { in.scrubDiags(nil) },
		"showing an id that is no secret":   func() { in.shownID(n, obj) },
		"knowing an object is wholly known": func() { whollyKnown(obj) },
	} {
		if got := testing.AllocsPerRun(10, f); got != 0 {
			t.Errorf("%s: %v allocations, want none", name, got)
		}
	}
	if got := in.shownID(n, obj); got != "some-id" {
		t.Errorf("shownID = %q, want the id", got)
	}
	in.meta.Sensitive = append(in.meta.Sensitive, cty.GetAttrPath("id"))
	if got := in.shownID(n, obj); got != "" {
		t.Errorf("shownID of a sensitive id = %q, want none", got)
	}
	in.setSources([]string{"some-id-long-enough"})
	in.meta.Sensitive = nil
	if got := in.shownID(n, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x-some-id-long-enough"), "input": cty.StringVal("v")})); got != "" {
		t.Errorf("shownID of an id holding a secret = %q, want none", got)
	}
}
