package ctysame

import (
	"sync"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// Identical reports whether a and b are the very same value: the same
// type and the same data, word for word as go-cty holds them. go-cty never
// changes a value once made, so identical values are RawEquals without
// being walked.
//
// go-cty's Value is a type and an interface holding the data, both words
// only (TestLayout keeps that true); Go's == cannot compare them, since it
// panics on the maps an object's data and type hold.
func Identical(a, b cty.Value) bool {
	return *(*[valueWords]uintptr)(unsafe.Pointer(&a)) == *(*[valueWords]uintptr)(unsafe.Pointer(&b))
}

const valueWords = unsafe.Sizeof(cty.Value{}) / unsafe.Sizeof(uintptr(0))

// RawEquals is a.RawEquals(b), without the walk when the two are
// identical.
func RawEquals(a, b cty.Value) bool {
	return Identical(a, b) || a.RawEquals(b)
}

// Types hands out one type for equal object types: go-cty makes a new
// type (a map of attribute types) for every object value it makes, so
// 100,000 objects of one resource type hold 100,000 equal maps. Share
// gives a value the type it holds of those seen first; the value is the
// same in every way go-cty can tell (types compare by structure), only
// its memory differs. The zero Types is ready; it is safe for concurrent
// use.
type Types struct {
	mu   sync.Mutex
	seen []cty.Type
}

// maxTypes bounds the types a Types keeps and compares with: a resource
// type's objects differ only where its schema has a dynamic attribute.
const maxTypes = 8

// Share is v with the equal type that ts saw first. A marked value keeps
// its own (the value inside its marks holds it too), and so does one
// whose type is not an object type or is unlike the first maxTypes seen.
func (ts *Types) Share(v cty.Value) cty.Value {
	if v == cty.NilVal || v.IsMarked() || !v.Type().IsObjectType() {
		return v
	}
	ty := v.Type()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.seen {
		// Most values given come with a type handed out before (by
		// ObjectVal, or by Share to the value they were made from):
		// found without Equals walking two maps.
		if sameType(t, ty) {
			return v
		}
	}
	for _, t := range ts.seen {
		if t.Equals(ty) {
			(*valueLayout)(unsafe.Pointer(&v)).ty = t
			return v
		}
	}
	if len(ts.seen) < maxTypes {
		ts.seen = append(ts.seen, ty)
	}
	return v
}

// ObjectVal is cty.ObjectVal(attrs) given the type of an equal object
// that ts saw first (as Share does), when there is one: then it makes one
// map, of the attributes' data, where go-cty makes three (two of them
// types) and normalises each name twice. The
// value is the same in every way go-cty can tell. attrs is only read.
func (ts *Types) ObjectVal(attrs map[string]cty.Value) cty.Value {
	ty, ok := ts.objectType(attrs)
	if !ok {
		return ts.Share(cty.ObjectVal(attrs))
	}
	data := make(map[string]any, len(attrs))
	for name, av := range attrs {
		// cty.ObjectVal keeps a marked attribute's marks in its data too.
		data[name] = (*valueLayout)(unsafe.Pointer(&av)).v
	}
	var v cty.Value
	*(*valueLayout)(unsafe.Pointer(&v)) = valueLayout{ty: ty, v: data}
	return v
}

// objectType is the type seen first that is the type of an object of
// attrs, when there is one. A name it has is normalised already (go-cty's
// names are, and NFC leaves an NFC name as it is); any other, an NFD name
// say, finds none.
func (ts *Types) objectType(attrs map[string]cty.Value) (cty.Type, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.seen {
		if objectOf(t, attrs) {
			return t, true
		}
	}
	return cty.NilType, false
}

// objectOf reports whether ty is the type of an object of attrs.
func objectOf(ty cty.Type, attrs map[string]cty.Value) bool {
	atys := ty.AttributeTypes()
	if len(atys) != len(attrs) || len(ty.OptionalAttributes()) > 0 {
		return false
	}
	for name, av := range attrs {
		if aty, ok := atys[name]; !ok || !aty.Equals(av.Type()) {
			return false
		}
	}
	return true
}

// sameType reports whether a and b are the very same type, word for word
// (a cty.Type is an interface only, as TestLayout checks): then they are
// equal.
func sameType(a, b cty.Type) bool {
	return *(*[typeWords]uintptr)(unsafe.Pointer(&a)) == *(*[typeWords]uintptr)(unsafe.Pointer(&b))
}

const typeWords = unsafe.Sizeof(cty.Type{}) / unsafe.Sizeof(uintptr(0))

// valueLayout is cty.Value as go-cty declares it: its type, then its data
// (TestTypesShare keeps that true).
type valueLayout struct {
	ty cty.Type
	v  any
}
