// Package ctysame tells, cheaply, that two cty values are the very same
// value: made once and passed on (the prior object a provider gives back
// when nothing changed, an attribute copied from the configuration into a
// plan). go-cty's RawEquals walks two objects attribute by attribute and
// compares their types map by map even then; most comparisons of a large
// no-op plan are of that kind. Types gives values of equal object types
// one type to hold, where go-cty makes a map of attribute types for every
// object value, and Types.ObjectVal makes an object with the type of an
// equal one made before. Attr, AttrType and AnyAttr read an object's
// attributes as GetAttr, HasAttribute and AttributeType do, without
// go-cty's normalisation of an ASCII name (NFC leaves it as it is) at
// every call: the hottest calls of a large plan and apply.
//
// Identical, Share, ObjectVal, Attr and AnyAttr rest on go-cty's layout
// of a Value (its type, then its data), read and set through unsafe; the
// tests check that layout, so an upgrade of go-cty that changes it fails
// them rather than misbehaving.
package ctysame
