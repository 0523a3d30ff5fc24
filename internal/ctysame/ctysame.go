package ctysame

import (
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
