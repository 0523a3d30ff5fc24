package ctysame

import (
	"unicode/utf8"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// Attr is v.GetAttr(name): the same value with the same marks, and the
// same panic where go-cty panics (v not an object, v null, or its type
// without that attribute). go-cty normalises name to NFC at every call
// (and HasAttribute and AttributeType again each); a schema's names are
// ASCII, which NFC leaves as they are, so for them Attr looks the name up
// as it is. Any other name goes through go-cty's own GetAttr.
func Attr(v cty.Value, name string) cty.Value {
	if !isASCII(name) {
		return v.GetAttr(name)
	}
	if v.IsMarked() {
		u, marks := v.Unmark()
		return Attr(u, name).WithMarks(marks)
	}
	ty := v.Type()
	if ty == cty.DynamicPseudoType {
		return cty.DynamicVal
	}
	if !ty.IsObjectType() || v.IsNull() {
		return v.GetAttr(name) // go-cty's panic
	}
	aty, ok := ty.AttributeTypes()[name]
	if !ok {
		return v.GetAttr(name) // go-cty's panic
	}
	if !v.IsKnown() {
		return cty.UnknownVal(aty)
	}
	// A known object's data is the map of its attributes' data, as
	// TestAttr checks against GetAttr.
	attrs := (*valueLayout)(unsafe.Pointer(&v)).v.(map[string]any)
	var out cty.Value
	*(*valueLayout)(unsafe.Pointer(&out)) = valueLayout{ty: aty, v: attrs[name]}
	return out
}

// PlainAttr is Attr(v, name) for a known, not null, unmarked object
// whose type has an ASCII name, in one look-up of the type, where asking
// AttrType first and Attr then makes two; ok is false, and nothing
// panics, for any other v or name, which the caller reads its own way.
func PlainAttr(v cty.Value, name string) (cty.Value, bool) {
	ty := v.Type()
	if !ty.IsObjectType() || v.IsMarked() || v.IsNull() || !v.IsKnown() || !isASCII(name) {
		return cty.NilVal, false
	}
	aty, ok := ty.AttributeTypes()[name]
	if !ok {
		return cty.NilVal, false
	}
	attrs := (*valueLayout)(unsafe.Pointer(&v)).v.(map[string]any)
	var out cty.Value
	*(*valueLayout)(unsafe.Pointer(&out)) = valueLayout{ty: aty, v: attrs[name]}
	return out, true
}

// AnyAttr reports whether f holds for any attribute of object v, given
// its name and Attr(v, name), visiting them in no particular order and
// stopping at the first that holds. v must be an object and not null (it
// panics otherwise); a known, unmarked object's attributes are read
// straight from its data, without a look-up of each name.
func AnyAttr(v cty.Value, f func(name string, attr cty.Value) bool) bool {
	ty := v.Type()
	if !ty.IsObjectType() || v.IsNull() {
		panic("ctysame.AnyAttr of a null or non-object value")
	}
	if v.IsMarked() || !v.IsKnown() {
		for name := range ty.AttributeTypes() {
			if f(name, Attr(v, name)) {
				return true
			}
		}
		return false
	}
	attrs := (*valueLayout)(unsafe.Pointer(&v)).v.(map[string]any)
	var av cty.Value
	for name, aty := range ty.AttributeTypes() {
		*(*valueLayout)(unsafe.Pointer(&av)) = valueLayout{ty: aty, v: attrs[name]}
		if f(name, av) {
			return true
		}
	}
	return false
}

// AttrType is ty.HasAttribute(name) and, when it has, ty.AttributeType(name),
// in one look-up and without normalising an ASCII name (see Attr). Like
// those, it panics when ty is not an object type.
func AttrType(ty cty.Type, name string) (cty.Type, bool) {
	if !isASCII(name) {
		if !ty.HasAttribute(name) {
			return cty.NilType, false
		}
		return ty.AttributeType(name), true
	}
	aty, ok := ty.AttributeTypes()[name]
	return aty, ok
}

// AttributeType is ty.AttributeType(name) without normalising an ASCII
// name (see AttrType); like it, it panics where ty has no such attribute.
func AttributeType(ty cty.Type, name string) cty.Type {
	if aty, ok := AttrType(ty, name); ok {
		return aty
	}
	return ty.AttributeType(name) // go-cty's panic
}

// isASCII reports whether s is ASCII only, which NFC leaves as it is.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
