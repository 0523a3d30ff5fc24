package engine

import (
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// identical reports whether a and b are the very same value: the same
// type and the same data, word for word as go-cty holds them. go-cty never
// changes a value once made, so identical values are RawEquals without
// being walked. That walk, for two objects, compares their types map by map
// and each attribute's value: most of a no-op plan's comparisons are of an
// object with itself (refresh and the built-in provider's plan give the
// prior object back when nothing changed), and cost that walk for nothing.
//
// go-cty's Value is a type and an interface holding the data, both words
// only (TestIdenticalLayout keeps that true); Go's == cannot compare them,
// since it panics on the maps an object's data and type hold.
func identical(a, b cty.Value) bool {
	return *(*[valueWords]uintptr)(unsafe.Pointer(&a)) == *(*[valueWords]uintptr)(unsafe.Pointer(&b))
}

const valueWords = unsafe.Sizeof(cty.Value{}) / unsafe.Sizeof(uintptr(0))

// rawEquals is a.RawEquals(b), without the walk when the two are identical.
func rawEquals(a, b cty.Value) bool {
	return identical(a, b) || a.RawEquals(b)
}

// whollyKnown is v.IsWhollyKnown(), marks and all, without go-cty's
// element iterator for an object: the iterator sorts the attribute names
// (allocations for each object) to visit them in an order the answer does
// not depend on.
func whollyKnown(v cty.Value) bool {
	v, _ = v.Unmark()
	if !v.Type().IsObjectType() || !v.IsKnown() || v.IsNull() {
		return v.IsWhollyKnown()
	}
	for name := range v.Type().AttributeTypes() {
		if !whollyKnown(v.GetAttr(name)) {
			return false
		}
	}
	return true
}
