package engine

import (
	"math/big"
	"testing"
	"unsafe"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// identical reads a cty.Value as words: that is exact only while a Value is
// a type and an interface, with no other field nor padding.
func TestIdenticalLayout(t *testing.T) {
	var v cty.Value
	words := unsafe.Sizeof(uintptr(0))
	if got, want := unsafe.Sizeof(v), 2*unsafe.Sizeof(any(nil)); got != want {
		t.Fatalf("cty.Value is %d bytes, identical expects %d (a type and an interface)", got, want)
	}
	if valueWords*words != unsafe.Sizeof(v) {
		t.Fatalf("cty.Value is not a whole number of words")
	}
}

func TestIdentical(t *testing.T) {
	obj := cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a"), "n": cty.NumberIntVal(1)})
	same := cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a"), "n": cty.NumberIntVal(1)})
	copied := obj
	values := []cty.Value{
		obj, same,
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("b"), "n": cty.NumberIntVal(1)}),
		obj.Mark("sensitive"),
		cty.NullVal(obj.Type()),
		cty.NullVal(cty.String),
		cty.UnknownVal(obj.Type()),
		cty.StringVal("a"),
		cty.NumberVal(big.NewFloat(1)),
		cty.ListValEmpty(cty.String),
		cty.NilVal,
	}
	if !identical(obj, copied) {
		t.Errorf("a copy of a value is not identical to it")
	}
	for i, a := range values {
		if !identical(a, a) {
			t.Errorf("value %d (%#v) is not identical to itself", i, a)
		}
		for j, b := range values {
			if i == j {
				continue
			}
			// Identical must imply RawEquals; the converse need not hold
			// (obj and same are equal, made apart).
			if identical(a, b) && !(a == cty.NilVal || b == cty.NilVal) && !a.RawEquals(b) {
				t.Errorf("values %d and %d are identical but not RawEquals", i, j)
			}
			if rawEquals(a, b) != (a != cty.NilVal && b != cty.NilVal && a.RawEquals(b)) && a != cty.NilVal && b != cty.NilVal {
				t.Errorf("rawEquals(%d, %d) differs from RawEquals", i, j)
			}
		}
	}
	if identical(obj, same) {
		t.Errorf("two objects made apart are identical")
	}
	if !rawEquals(obj, same) {
		t.Errorf("rawEquals of two equal objects made apart is false")
	}
}

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
	in := &instance{sources: []string{}, meta: objectMeta{Sensitive: []cty.Path{cty.GetAttrPath("input")}}}
	for name, f := range map[string]func(){
		"scrubbing no diagnostics":          func() { in.scrubDiags(nil) },
		"showing an id that is no secret":   func() { in.shownID(n, obj) },
		"knowing an object is wholly known": func() { whollyKnown(obj) },
		"comparing an object with itself":   func() { rawEquals(obj, obj) },
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
	in.sources = []string{"some-id-long-enough"}
	in.meta.Sensitive = nil
	if got := in.shownID(n, cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("x-some-id-long-enough"), "input": cty.StringVal("v")})); got != "" {
		t.Errorf("shownID of an id holding a secret = %q, want none", got)
	}
}
