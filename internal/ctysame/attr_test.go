package ctysame

import (
	"fmt"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestAttr checks Attr against go-cty's GetAttr: the very same value (or
// an equal one with the same marks, where marks are added anew), and a
// panic exactly where GetAttr panics.
func TestAttr(t *testing.T) {
	obj := cty.ObjectVal(map[string]cty.Value{
		"id":     cty.StringVal("a"),
		"n":      cty.NumberIntVal(1),
		"secret": cty.StringVal("s").Mark("sensitive"),
		"list":   cty.ListVal([]cty.Value{cty.StringVal("x")}),
		"null":   cty.NullVal(cty.String),
		"later":  cty.UnknownVal(cty.Bool),
		"nested": cty.ObjectVal(map[string]cty.Value{"x": cty.True}),
		"\u00e9": cty.StringVal("nfc"), // é, composed
		"":       cty.StringVal("empty name"),
	})
	ty := obj.Type()
	values := map[string]cty.Value{
		"known":          obj,
		"marked":         obj.Mark("sensitive"),
		"marked twice":   obj.Mark("sensitive").Mark("ephemeral"),
		"null":           cty.NullVal(ty),
		"marked null":    cty.NullVal(ty).Mark("sensitive"),
		"unknown":        cty.UnknownVal(ty),
		"refined":        cty.UnknownVal(ty).RefineNotNull(),
		"marked unknown": cty.UnknownVal(ty).Mark("sensitive"),
		"empty object":   cty.EmptyObjectVal,
		"dynamic":        cty.DynamicVal,
		"null dynamic":   cty.NullVal(cty.DynamicPseudoType),
		"string":         cty.StringVal("id"),
		"map":            cty.MapVal(map[string]cty.Value{"id": cty.StringVal("a")}),
		"unknown map":    cty.UnknownVal(cty.Map(cty.String)),
	}
	names := []string{"id", "n", "secret", "list", "null", "later", "nested", "", "missing", "Id",
		"\u00e9",  // the attribute as it is
		"e\u0301", // the same in NFD: GetAttr normalises it to the attribute
		"\u00e9x", // non-ASCII, missing
	}
	if got := Attr(obj, "e\u0301"); !got.RawEquals(cty.StringVal("nfc")) {
		t.Fatalf("Attr of the NFD name is %#v, want the NFC attribute's value", got)
	}
	for vname, v := range values {
		for _, name := range names {
			t.Run(fmt.Sprintf("%s/%q", vname, name), func(t *testing.T) {
				want, wantPanic := catch(func() cty.Value { return v.GetAttr(name) })
				got, gotPanic := catch(func() cty.Value { return Attr(v, name) })
				// PlainAttr never panics; it answers for a plain object
				// with the attribute, and then as GetAttr.
				plain, ok := PlainAttr(v, name)
				switch {
				case ok && wantPanic != nil:
					t.Errorf("PlainAttr answered %#v where GetAttr panics", plain)
				case ok:
					same(t, plain, want)
				case vname == "known" && wantPanic == nil && isASCII(name):
					t.Errorf("PlainAttr did not answer for a known object's attribute")
				}
				if (wantPanic == nil) != (gotPanic == nil) {
					t.Fatalf("Attr panicked with %v, GetAttr with %v", gotPanic, wantPanic)
				}
				if wantPanic != nil {
					if fmt.Sprint(gotPanic) != fmt.Sprint(wantPanic) {
						t.Errorf("Attr panicked with %v, GetAttr with %v", gotPanic, wantPanic)
					}
					return
				}
				same(t, got, want)
			})
		}
	}
}

// same fails t unless got is want: the very same words when unmarked, else
// equal with equal marks.
func same(t *testing.T, got, want cty.Value) {
	t.Helper()
	if want.IsMarked() || got.IsMarked() {
		if !got.RawEquals(want) || !got.Type().Equals(want.Type()) || !marksEqual(got.Marks(), want.Marks()) {
			t.Errorf("got %#v, want %#v", got, want)
		}
		return
	}
	if !Identical(got, want) {
		t.Errorf("got %#v, want the very same %#v", got, want)
	}
}

func marksEqual(a, b cty.ValueMarks) bool {
	if len(a) != len(b) {
		return false
	}
	for m := range a {
		if _, ok := b[m]; !ok {
			return false
		}
	}
	return true
}

// TestAttrType checks AttrType against HasAttribute and AttributeType.
func TestAttrType(t *testing.T) {
	ty := cty.Object(map[string]cty.Type{"id": cty.String, "\u00e9": cty.Number, "dyn": cty.DynamicPseudoType})
	for _, name := range []string{"id", "dyn", "missing", "", "\u00e9", "e\u0301", "\u00e9x"} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			got, ok := AttrType(ty, name)
			if want := ty.HasAttribute(name); ok != want {
				t.Fatalf("AttrType says %v, HasAttribute %v", ok, want)
			}
			if !ok {
				if got != cty.NilType {
					t.Errorf("AttrType gave %#v for a missing attribute", got)
				}
				if _, p := catch(func() cty.Value { AttributeType(ty, name); return cty.NilVal }); p == nil {
					t.Errorf("AttributeType of a missing attribute did not panic")
				}
				return
			}
			if want := ty.AttributeType(name); !got.Equals(want) {
				t.Errorf("AttrType is %#v, AttributeType %#v", got, want)
			}
			if got := AttributeType(ty, name); !got.Equals(ty.AttributeType(name)) {
				t.Errorf("AttributeType is %#v, go-cty's %#v", got, ty.AttributeType(name))
			}
		})
	}
	if _, p := catch(func() cty.Value { AttrType(cty.String, "id"); return cty.NilVal }); p == nil {
		t.Errorf("AttrType of a string type did not panic")
	}
}

// catch runs f, giving back its value or what it panicked with.
func catch(f func() cty.Value) (v cty.Value, p any) {
	defer func() { p = recover() }()
	return f(), nil
}

// TestAnyAttr checks that AnyAttr visits each attribute once, with the
// value GetAttr gives, and stops at the first for which f holds.
func TestAnyAttr(t *testing.T) {
	obj := cty.ObjectVal(map[string]cty.Value{
		"id":     cty.StringVal("a"),
		"secret": cty.StringVal("s").Mark("sensitive"),
		"later":  cty.UnknownVal(cty.Bool),
		"nested": cty.ObjectVal(map[string]cty.Value{"x": cty.True}),
		"\u00e9": cty.StringVal("nfc"),
	})
	ty := obj.Type()
	for vname, v := range map[string]cty.Value{
		"known":          obj,
		"marked":         obj.Mark("sensitive"),
		"unknown":        cty.UnknownVal(ty),
		"marked unknown": cty.UnknownVal(ty).Mark("sensitive"),
		"empty":          cty.EmptyObjectVal,
	} {
		t.Run(vname, func(t *testing.T) {
			seen := map[string]bool{}
			if AnyAttr(v, func(name string, av cty.Value) bool {
				if seen[name] {
					t.Errorf("%q visited twice", name)
				}
				seen[name] = true
				same(t, av, v.GetAttr(name))
				return false
			}) {
				t.Errorf("AnyAttr is true where f never held")
			}
			if len(seen) != len(ty.AttributeTypes()) && vname != "empty" {
				t.Errorf("visited %v, want all of %v", seen, ty.AttributeTypes())
			}
			calls := 0
			got := AnyAttr(v, func(string, cty.Value) bool { calls++; return true })
			if want := len(v.Type().AttributeTypes()) > 0; got != want || calls > 1 {
				t.Errorf("AnyAttr with f always true = %v after %d calls, want %v after at most 1", got, calls, want)
			}
		})
	}
	for _, v := range []cty.Value{cty.NullVal(ty), cty.NullVal(cty.EmptyObject), cty.StringVal("id"), cty.DynamicVal} {
		if _, p := catch(func() cty.Value { AnyAttr(v, func(string, cty.Value) bool { return false }); return cty.NilVal }); p == nil {
			t.Errorf("AnyAttr(%#v) did not panic", v)
		}
	}
}
