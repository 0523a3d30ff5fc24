package ctysame

import (
	"math/big"
	"testing"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// Identical reads a cty.Value as words: that is exact only while a Value is
// a type and an interface, with no other field nor padding.
func TestLayout(t *testing.T) {
	var v cty.Value
	words := unsafe.Sizeof(uintptr(0))
	if got, want := unsafe.Sizeof(v), 2*unsafe.Sizeof(any(nil)); got != want {
		t.Fatalf("cty.Value is %d bytes, identical expects %d (a type and an interface)", got, want)
	}
	if valueWords*words != unsafe.Sizeof(v) {
		t.Fatalf("cty.Value is not a whole number of words")
	}
	if got, want := unsafe.Sizeof(cty.Type{}), unsafe.Sizeof(any(nil)); got != want || typeWords*words != got {
		t.Fatalf("cty.Type is %d bytes, sameType expects %d (an interface)", got, want)
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
	if !Identical(obj, copied) {
		t.Errorf("a copy of a value is not identical to it")
	}
	for i, a := range values {
		if !Identical(a, a) {
			t.Errorf("value %d (%#v) is not identical to itself", i, a)
		}
		for j, b := range values {
			if i == j {
				continue
			}
			// Identical must imply RawEquals; the converse need not hold
			// (obj and same are equal, made apart).
			if Identical(a, b) && !(a == cty.NilVal || b == cty.NilVal) && !a.RawEquals(b) {
				t.Errorf("values %d and %d are identical but not RawEquals", i, j)
			}
			if RawEquals(a, b) != (a != cty.NilVal && b != cty.NilVal && a.RawEquals(b)) && a != cty.NilVal && b != cty.NilVal {
				t.Errorf("RawEquals(%d, %d) differs from RawEquals", i, j)
			}
		}
	}
	if Identical(obj, same) {
		t.Errorf("two objects made apart are identical")
	}
	if !RawEquals(obj, same) {
		t.Errorf("rawEquals of two equal objects made apart is false")
	}
}

// TestIdenticalIsCheap checks that an object compared with itself is not
// walked: no allocation, whatever its size.
func TestIdenticalIsCheap(t *testing.T) {
	attrs := map[string]cty.Value{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		attrs[n] = cty.ListVal([]cty.Value{cty.StringVal(n)})
	}
	obj := cty.ObjectVal(attrs)
	if n := testing.AllocsPerRun(10, func() { RawEquals(obj, obj) }); n != 0 {
		t.Errorf("RawEquals of an object with itself made %v allocations", n)
	}
}

// TestTypesShare checks that a value given a shared type is RawEquals to
// itself before and holds the very type seen first, and that values
// whose type differs or that are marked are given back as they were.
func TestTypesShare(t *testing.T) {
	obj := func(id string) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal(id), "n": cty.NumberIntVal(1)})
	}
	var ts Types
	first := ts.Share(obj("a"))
	if !Identical(first, obj("a")) && !first.RawEquals(obj("a")) {
		t.Fatalf("the first value came back as %#v", first)
	}
	words := func(ty cty.Type) [2]uintptr { return *(*[2]uintptr)(unsafe.Pointer(&ty)) }
	second := obj("b")
	got := ts.Share(second)
	if !got.RawEquals(second) || !second.RawEquals(got) {
		t.Errorf("Share changed the value: %#v", got)
	}
	if words(got.Type()) != words(first.Type()) {
		t.Errorf("the value does not hold the type seen first")
	}
	if words(second.Type()) == words(first.Type()) {
		t.Fatalf("the test's values share a type already")
	}
	if again := ts.Share(got); !Identical(again, got) {
		t.Errorf("a value holding the type seen first came back as %#v", again)
	}
	if u := ts.Share(cty.UnknownVal(second.Type())); u.IsKnown() || words(u.Type()) != words(first.Type()) {
		t.Errorf("an unknown object came back as %#v", u)
	}
	for _, v := range []cty.Value{
		cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a")}),
		obj("c").Mark("sensitive"),
		cty.StringVal("a"),
		cty.NilVal,
	} {
		if got := ts.Share(v); !Identical(got, v) {
			t.Errorf("Share(%#v) = %#v, want it unchanged", v, got)
		}
	}
}

// TestTypesObjectVal checks ObjectVal against cty.ObjectVal: an equal
// value (marks, unknowns and nulls inside it included), made the second
// time with the type made the first.
func TestTypesObjectVal(t *testing.T) {
	words := func(ty cty.Type) [2]uintptr { return *(*[2]uintptr)(unsafe.Pointer(&ty)) }
	for name, attrs := range map[string]map[string]cty.Value{
		"plain":   {"id": cty.StringVal("a"), "n": cty.NumberIntVal(1)},
		"marked":  {"id": cty.StringVal("a"), "secret": cty.StringVal("s").Mark("sensitive")},
		"unknown": {"id": cty.UnknownVal(cty.String), "out": cty.DynamicVal, "later": cty.UnknownVal(cty.String).RefineNotNull()},
		"null":    {"id": cty.NullVal(cty.String), "n": cty.NullVal(cty.Number), "any": cty.NullVal(cty.DynamicPseudoType)},
		"nested":  {"o": cty.ObjectVal(map[string]cty.Value{"x": cty.True}), "l": cty.ListVal([]cty.Value{cty.StringVal("x")})},
		"empty":   {},
		"nfc":     {"\u00e9": cty.StringVal("nfc"), "id": cty.StringVal("a")},
		"nfd":     {"e\u0301": cty.StringVal("nfd"), "id": cty.StringVal("a")},
	} {
		t.Run(name, func(t *testing.T) {
			want := cty.ObjectVal(attrs)
			var ts Types
			first := ts.ObjectVal(attrs)
			second := ts.ObjectVal(attrs)
			for i, got := range []cty.Value{first, second} {
				if !got.Type().Equals(want.Type()) || !got.RawEquals(want) || !want.RawEquals(got) {
					t.Errorf("value %d is %#v, want %#v", i, got, want)
				}
				for n := range want.Type().AttributeTypes() {
					same(t, got.GetAttr(n), want.GetAttr(n))
				}
			}
			if words(second.Type()) != words(first.Type()) {
				t.Errorf("the second value does not hold the first's type")
			}
		})
	}
	// A value of a type seen before is made without making its type anew.
	var ts Types
	attrs := map[string]cty.Value{"id": cty.StringVal("a"), "n": cty.NumberIntVal(1)}
	ts.ObjectVal(attrs)
	got := testing.AllocsPerRun(10, func() { ts.ObjectVal(attrs) })
	if want := testing.AllocsPerRun(10, func() { cty.ObjectVal(attrs) }); got >= want {
		t.Errorf("ObjectVal of a type seen before made %v allocations, cty.ObjectVal %v", got, want)
	}
	// A value of another type is not given the type seen first.
	ts = Types{}
	ts.ObjectVal(map[string]cty.Value{"id": cty.StringVal("a")})
	for _, attrs := range []map[string]cty.Value{
		{"id": cty.NumberIntVal(1)},
		{"id": cty.StringVal("a"), "n": cty.NumberIntVal(1)},
		{"other": cty.StringVal("a")},
		{},
	} {
		if got, want := ts.ObjectVal(attrs), cty.ObjectVal(attrs); !got.Type().Equals(want.Type()) || !got.RawEquals(want) {
			t.Errorf("ObjectVal(%#v) = %#v, want %#v", attrs, got, want)
		}
	}
}
