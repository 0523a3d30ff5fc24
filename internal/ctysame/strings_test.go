package ctysame

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// TestStringsLayout: Strings.Val writes an interface as its two words,
// type then data, and go-cty reads the string back through it.
func TestStringsLayout(t *testing.T) {
	if unsafe.Sizeof(eface{}) != unsafe.Sizeof(any(nil)) {
		t.Fatalf("an interface is %d bytes, eface %d", unsafe.Sizeof(any(nil)), unsafe.Sizeof(eface{}))
	}
	s := "held"
	var a any
	e := (*eface)(unsafe.Pointer(&a))
	e.typ, e.data = stringType, unsafe.Pointer(&s)
	if got, ok := a.(string); !ok || got != "held" {
		t.Fatalf("an interface set word by word holds %#v, want the string %q", a, s)
	}
}

// TestStringsVal: Strings.Val is cty.StringVal by every test go-cty has,
// for ASCII, empty and non-NFC text, and its values stay whole after a
// collection, when only the values hold the strings' array.
func TestStringsVal(t *testing.T) {
	texts := []string{"a", "9a683462b58cb2f7", "", "v0", "cafe\u0301", "caf\u00e9", "a b\tc", "x", "y", "z"}
	var ss Strings
	vals := make([]cty.Value, len(texts))
	for i, s := range texts {
		vals[i] = ss.Val(string([]byte(s))) // text of its own, as read from a file
	}
	ss = Strings{}
	runtime.GC()
	runtime.GC()
	for i, s := range texts {
		got, want := vals[i], cty.StringVal(s)
		if !got.Type().Equals(cty.String) || !got.RawEquals(want) || !want.RawEquals(got) || !got.Equals(want).True() {
			t.Errorf("Val(%q) = %#v, want %#v", s, got, want)
		}
		if got.AsString() != want.AsString() || got.GoString() != want.GoString() {
			t.Errorf("Val(%q) reads %q (%s), want %q (%s)", s, got.AsString(), got.GoString(), want.AsString(), want.GoString())
		}
		if m := got.Mark("sensitive"); !m.RawEquals(want.Mark("sensitive")) {
			t.Errorf("Val(%q) marked is not cty.StringVal marked", s)
		}
		if RawEquals(got, want) != true {
			t.Errorf("ctysame.RawEquals(Val(%q), cty.StringVal) is false", s)
		}
	}
}

// TestStringsAllocations: several ASCII strings' values take one
// allocation for their data, where cty.StringVal takes one each.
func TestStringsAllocations(t *testing.T) {
	texts := []string{"id-1", "v0", "v1", "other"}
	kept := make([]cty.Value, len(texts))
	got := testing.AllocsPerRun(10, func() {
		var ss Strings
		for i, s := range texts {
			kept[i] = ss.Val(s)
		}
	})
	want := testing.AllocsPerRun(10, func() {
		for i, s := range texts {
			kept[i] = cty.StringVal(s)
		}
	})
	if got != 1 || want != float64(len(texts)) {
		t.Errorf("%d strings: Strings.Val made %v allocations, cty.StringVal %v; want 1 and %d", len(texts), got, want, len(texts))
	}
}
