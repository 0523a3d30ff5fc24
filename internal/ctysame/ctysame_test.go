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
		cty.StringVal(string([]byte("a"))), // the same text, made apart
		cty.StringVal("b"),
		cty.StringVal(""),
		cty.StringVal("a").Mark("sensitive"),
		cty.StringVal("a").Mark("sensitive"),
		cty.UnknownVal(cty.String),
		cty.UnknownVal(cty.String).RefineNotNull(),
		cty.UnknownVal(cty.String).Refine().StringPrefix("a").NewValue(),
		cty.DynamicVal,
		cty.NullVal(cty.DynamicPseudoType),
		cty.StringVal("e\u0301"), // NFC: é, as "\u00e9"
		cty.StringVal("\u00e9"),
		cty.True,
		cty.False,
		cty.ListVal([]cty.Value{cty.StringVal("a")}),
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

// typeWordsOf is a type's words, its identity.
func typeWordsOf(ty cty.Type) [2]uintptr { return *(*[2]uintptr)(unsafe.Pointer(&ty)) }

// TestTypeLayout: sameType and ByType read a cty.Type as the two words of
// the interface it is.
func TestTypeLayout(t *testing.T) {
	if got, want := unsafe.Sizeof(cty.Type{}), unsafe.Sizeof(any(nil)); got != want || typeWords != 2 {
		t.Fatalf("cty.Type is %d bytes, want %d (an interface)", got, want)
	}
	a := cty.Object(map[string]cty.Type{"id": cty.String})
	b := cty.Object(map[string]cty.Type{"id": cty.String})
	if !sameType(a, a) || sameType(a, b) || typeWordsOf(a) == typeWordsOf(b) {
		t.Fatalf("two object types made apart are the same type, or one is not itself")
	}
}

// TestObjectVal: ObjectVal is cty.ObjectVal, the same value by every test
// go-cty has, for attributes of every kind (marked, unknown, null, nested,
// a name to be normalised), and the objects it makes of equal attribute
// types hold one type.
func TestObjectVal(t *testing.T) {
	nested := cty.ObjectVal(map[string]cty.Value{"x": cty.ListVal([]cty.Value{cty.NumberIntVal(1)})})
	cases := []struct {
		name  string
		attrs map[string]cty.Value
	}{
		{"strings", map[string]cty.Value{"id": cty.StringVal("a"), "input": cty.StringVal("v")}},
		{"other strings", map[string]cty.Value{"id": cty.StringVal("b"), "input": cty.StringVal("w")}},
		{"another type", map[string]cty.Value{"id": cty.StringVal("b"), "input": cty.NumberIntVal(3)}},
		{"nulls", map[string]cty.Value{"id": cty.NullVal(cty.String), "input": cty.NullVal(cty.DynamicPseudoType)}},
		{"marked and unknown", map[string]cty.Value{"id": cty.StringVal("s").Mark("sensitive"), "input": cty.UnknownVal(cty.String)}},
		{"nested", map[string]cty.Value{"id": cty.StringVal("a"), "input": nested}},
		{"one", map[string]cty.Value{"id": cty.StringVal("a")}},
		{"empty", map[string]cty.Value{}},
		{"not NFC", map[string]cty.Value{"cafe\u0301": cty.True, "id": cty.StringVal("a")}},
	}
	var ts Types
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var none *Types // what ByType.For gives once it keeps maxKeyed
			var names []string
			var vals []cty.Value
			for n, v := range c.attrs {
				names, vals = append(names, n), append(vals, v)
			}
			want := cty.ObjectVal(c.attrs)
			got := ts.ObjectVal(names, vals)
			if !got.Type().Equals(want.Type()) || !want.Type().Equals(got.Type()) {
				t.Fatalf("type %#v, want %#v", got.Type(), want.Type())
			}
			if !got.RawEquals(want) || !want.RawEquals(got) || got.GoString() != want.GoString() {
				t.Fatalf("ObjectVal = %#v, want %#v", got, want)
			}
			if alone := none.ObjectVal(names, vals); !alone.RawEquals(want) || !alone.Type().Equals(want.Type()) {
				t.Errorf("a nil Types's ObjectVal = %#v, want %#v", alone, want)
			}
			again := ts.ObjectVal(names, vals)
			if len(names) > 0 && typeWordsOf(again.Type()) != typeWordsOf(got.Type()) && c.name != "not NFC" {
				t.Errorf("two objects of one type hold two types")
			}
		})
	}
	a := ts.ObjectVal([]string{"id", "input"}, []cty.Value{cty.StringVal("a"), cty.StringVal("v")})
	b := ts.ObjectVal([]string{"input", "id"}, []cty.Value{cty.StringVal("w"), cty.StringVal("b")})
	if typeWordsOf(a.Type()) != typeWordsOf(b.Type()) {
		t.Errorf("objects of equal types, attributes given in another order, hold two types")
	}
	if shared := ts.Share(cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("c"), "input": cty.StringVal("x")})); typeWordsOf(shared.Type()) != typeWordsOf(a.Type()) {
		t.Errorf("Share does not give the type ObjectVal made")
	}
	// A type kept with an optional attribute is not an object value's.
	var opt Types
	optType := cty.ObjectWithOptionalAttrs(map[string]cty.Type{"id": cty.String}, []string{"id"})
	opt.Share(cty.UnknownVal(optType))
	if got := opt.ObjectVal([]string{"id"}, []cty.Value{cty.StringVal("a")}); !got.Type().Equals(cty.Object(map[string]cty.Type{"id": cty.String})) {
		t.Errorf("ObjectVal took a type with optional attributes: %#v", got.Type())
	}
}

// TestObjectValOfASeenType: an object of a type seen before is made
// without making its type anew, in fewer allocations than go-cty's.
func TestObjectValOfASeenType(t *testing.T) {
	var ts Types
	names, vals := []string{"id", "n"}, []cty.Value{cty.StringVal("a"), cty.NumberIntVal(1)}
	attrs := map[string]cty.Value{"id": vals[0], "n": vals[1]}
	ts.ObjectVal(names, vals)
	got := testing.AllocsPerRun(10, func() { ts.ObjectVal(names, vals) })
	if want := testing.AllocsPerRun(10, func() { cty.ObjectVal(attrs) }); got >= want {
		t.Errorf("ObjectVal of a type seen before made %v allocations, cty.ObjectVal %v", got, want)
	}
}

// TestByType: one Types per type as made, not per equal type.
func TestByType(t *testing.T) {
	var b ByType
	a := cty.Object(map[string]cty.Type{"id": cty.String})
	copied := a
	if b.For(a) == nil || b.For(a) != b.For(copied) {
		t.Errorf("one type has two Types")
	}
	if b.For(a) == b.For(cty.Object(map[string]cty.Type{"id": cty.String})) {
		t.Errorf("two types made apart share a Types")
	}
	if b.For(cty.String) == b.For(cty.Bool) {
		t.Errorf("two primitive types share a Types")
	}
}
