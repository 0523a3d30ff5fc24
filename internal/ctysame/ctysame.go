package ctysame

import (
	"sync"
	"sync/atomic"
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
// identical, and without go-cty's steps (types, marks, refinements, an
// Equals, a Bool made and read) for two plain strings: known, not null,
// not marked. go-cty then compares them as Go strings, normalised as it
// made them; so does this. Most of the values a plan compares one by one
// (each attribute of a configuration with its prior value) are such.
func RawEquals(a, b cty.Value) bool {
	if Identical(a, b) {
		return true
	}
	if s, ok := plainString(a); ok {
		if t, ok := plainString(b); ok {
			return s == t
		}
	}
	return a.RawEquals(b)
}

// plainString is the string a known, not null, unmarked string holds.
// Such a value's data is the string itself; an unknown's, a null's and a
// marked value's are something else.
func plainString(v cty.Value) (string, bool) {
	l := (*valueLayout)(unsafe.Pointer(&v))
	s, ok := l.v.(string)
	return s, ok && l.ty == cty.String
}

// Types hands out one type for equal object types: go-cty makes a new
// type (a map of attribute types) for every object value it makes, so
// 100,000 objects of one resource type hold 100,000 equal maps. Share
// gives a value the type it holds of those seen first, and ObjectVal makes
// an object with it; the value is the same in every way go-cty can tell
// (types compare by structure), only its memory differs. The zero Types is
// ready; it is safe for concurrent use.
type Types struct {
	mu sync.Mutex // held to add to seen
	// seen is read without the lock: a slice once stored is never
	// changed, a type is added by storing a longer copy.
	seen atomic.Pointer[[]cty.Type]
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
	// Most values given come with a type handed out before (by ObjectVal,
	// or by Share to the value they were made from): found without Equals
	// walking two maps, for any of the types seen.
	t, ok := ts.find(func(t cty.Type) bool { return sameType(t, ty) })
	if !ok {
		t, ok = ts.find(func(t cty.Type) bool { return t.Equals(ty) })
	}
	if !ok {
		t = ts.add(ty)
	}
	(*valueLayout)(unsafe.Pointer(&v)).ty = t
	return v
}

// find is the first type seen that match accepts.
func (ts *Types) find(match func(cty.Type) bool) (cty.Type, bool) {
	if seen := ts.seen.Load(); seen != nil {
		for _, t := range *seen {
			if match(t) {
				return t, true
			}
		}
	}
	return cty.NilType, false
}

// add keeps ty unless maxTypes are kept, and returns the type to use for
// it: an equal one another goroutine added first, or ty.
func (ts *Types) add(ty cty.Type) cty.Type {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var seen []cty.Type
	if p := ts.seen.Load(); p != nil {
		seen = *p
	}
	for _, t := range seen {
		if t.Equals(ty) {
			return t
		}
	}
	if len(seen) < maxTypes {
		seen = append(seen[:len(seen):len(seen)], ty)
		ts.seen.Store(&seen)
	}
	return ty
}

// sameType reports whether a and b are the very same type, made once:
// the words of the two, as for Identical.
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
