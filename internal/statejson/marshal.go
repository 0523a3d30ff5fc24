package statejson

import (
	"encoding/json"
	"slices"

	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Marshal encodes val in Terraform's JSON state encoding as a value of
// type ty, byte for byte what ctyjson.Marshal writes: it is how every
// object an apply records is written, and ctyjson's buffer, path and key
// values per attribute made it a third of an apply's cost of recording an
// object. It writes only values that conform to ty as they are (no
// conversion), with no marks and nothing unknown; anything else, and
// whatever it is not sure to write the same way, goes to ctyjson, so
// results and errors stay ctyjson's.
func Marshal(val cty.Value, ty cty.Type) ([]byte, error) {
	if b, ok := appendValue(make([]byte, 0, 128), val, ty); ok {
		return b, nil
	}
	return ctyjson.Marshal(val, ty)
}

// appendValue appends val's encoding as ty to b. ok is false when val does
// not conform to ty as it is, or holds what ctyjson refuses or might write
// differently; b is then garbage.
//
// ctyjson converts a value whose type does not conform and encodes the
// result; a conforming value it encodes as it is. This walk accepts a value
// only where its type conforms to ty: a known, non-null value is checked
// level by level (its kind, its attribute names, its tuple length) down to
// its leaves, and a null or empty collection, whose type the walk cannot
// see below, only when its type equals what ty asks.
func appendValue(b []byte, val cty.Value, ty cty.Type) ([]byte, bool) {
	if val.IsMarked() || !val.IsKnown() {
		return b, false
	}
	vty := val.Type()
	if ty == cty.DynamicPseudoType {
		if vty == cty.DynamicPseudoType {
			return append(b, "null"...), true // known, so null
		}
		return appendDynamic(b, val, vty)
	}
	if val.IsNull() {
		if !vty.Equals(ty) {
			return b, false
		}
		return append(b, "null"...), true
	}
	switch {
	case ty == cty.String:
		if vty != cty.String {
			return b, false
		}
		return appendString(b, val.AsString())
	case ty == cty.Number:
		if vty != cty.Number {
			return b, false
		}
		f := val.AsBigFloat()
		if f.IsInf() {
			return b, false
		}
		return f.Append(b, 'f', -1), true
	case ty == cty.Bool:
		if vty != cty.Bool {
			return b, false
		}
		if val.True() {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case ty.IsListType() && vty.IsListType(), ty.IsSetType() && vty.IsSetType():
		return appendElements(b, '[', ']', val, ty, func(b []byte, _, ev cty.Value) ([]byte, bool) {
			return appendValue(b, ev, ty.ElementType())
		})
	case ty.IsMapType() && vty.IsMapType():
		return appendElements(b, '{', '}', val, ty, func(b []byte, ek, ev cty.Value) ([]byte, bool) {
			b, ok := appendString(b, ek.AsString())
			if !ok {
				return b, false
			}
			return appendValue(append(b, ':'), ev, ty.ElementType())
		})
	case ty.IsTupleType() && vty.IsTupleType():
		etys := ty.TupleElementTypes()
		if len(etys) != len(vty.TupleElementTypes()) {
			return b, false
		}
		b = append(b, '[')
		for i, ety := range etys {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, val.Index(cty.NumberIntVal(int64(i))), ety); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case ty.IsObjectType() && vty.IsObjectType():
		return appendObject(b, val, ty, vty)
	}
	return b, false
}

// appendElements writes a list's, set's or map's elements in the order
// ctyjson does (its element iterator's), each by elem, between open and
// close. An empty collection is written only when its element type is the
// one ty asks.
func appendElements(b []byte, open, close byte, val cty.Value, ty cty.Type, elem func(b []byte, k, v cty.Value) ([]byte, bool)) ([]byte, bool) {
	if val.LengthInt() == 0 && !val.Type().ElementType().Equals(ty.ElementType()) {
		return b, false
	}
	b = append(b, open)
	first := true
	for it := val.ElementIterator(); it.Next(); {
		if !first {
			b = append(b, ',')
		}
		first = false
		k, v := it.Element()
		var ok bool
		if b, ok = elem(b, k, v); !ok {
			return b, false
		}
	}
	return append(b, close), true
}

// appendObject writes the attributes of ty, in the order of their names,
// from val, which must have exactly those attributes.
func appendObject(b []byte, val cty.Value, ty, vty cty.Type) ([]byte, bool) {
	atys := ty.AttributeTypes()
	vatys := vty.AttributeTypes()
	if len(atys) != len(vatys) {
		return b, false
	}
	var buf [16]string
	names := buf[:0]
	for k := range atys {
		if _, ok := vatys[k]; !ok {
			return b, false
		}
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendString(b, k); !ok {
			return b, false
		}
		if b, ok = appendValue(append(b, ':'), ctysame.Attr(val, k), atys[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendDynamic writes a value where ty allows any type, as ctyjson does:
// the value with its type beside it.
func appendDynamic(b []byte, val cty.Value, vty cty.Type) ([]byte, bool) {
	var tyJSON []byte
	switch vty {
	case cty.String:
		tyJSON = []byte(`"string"`)
	case cty.Number:
		tyJSON = []byte(`"number"`)
	case cty.Bool:
		tyJSON = []byte(`"bool"`)
	default:
		var err error
		if tyJSON, err = ctyjson.MarshalType(vty); err != nil {
			return b, false
		}
	}
	b = append(b, `{"value":`...)
	b, ok := appendValue(b, val, vty)
	if !ok {
		return b, false
	}
	b = append(b, `,"type":`...)
	b = append(b, tyJSON...)
	return append(b, '}'), true
}

// appendString writes s as a JSON string as encoding/json does, which is
// what ctyjson uses: printable ASCII other than the quote, the backslash
// and HTML's <, > and & as it is, anything else through encoding/json.
func appendString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			return append(b, q...), err == nil // a string always encodes
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}
