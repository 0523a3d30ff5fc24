package protocol

import (
	"encoding/binary"
	"math"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/ctystrings"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// A ValueEncoder encodes values of one type as MessagePack, producing
// exactly the bytes go-cty's msgpack.Marshal produces for them, with the
// per-type work done once: the sorted attribute names of each object type
// and their encoded keys. A provider client keeps one per schema type, so
// that a plan of thousands of resources of a few types does not sort the
// same names and check the same types thousands of times.
//
// It walks the value alongside the type. Whatever it does not encode
// itself is go-cty's: a value that does not conform to the type as it is
// (a number given where a string is wanted, a marked value, a missing
// attribute) goes to msgpack.Marshal whole, which converts it or reports
// why it cannot; a dynamic value, a number that is not an int64 and an
// unknown value with refinements go to it one by one, since their bytes
// are the same at any depth. Two cases are looser than go-cty's check of
// the whole type up front: a null, a wholly unknown value or an empty
// collection whose type differs from the schema's is encoded as the
// schema's null, unknown or empty collection, which carries no type on
// the wire, where go-cty converts first and may refuse.
//
// A ValueEncoder is safe for concurrent use.
type ValueEncoder struct {
	ty   cty.Type
	once sync.Once

	kind  kind
	attrs []attrEncoder   // object: by name, sorted
	elem  *ValueEncoder   // list, set, map
	elems []*ValueEncoder // tuple
	size  atomic.Int64    // the last encoding's length, to size the next
}

type attrEncoder struct {
	name string
	key  []byte // the name, encoded
	enc  *ValueEncoder
}

// kind is what a ValueEncoder's type is, as far as encoding goes.
type kind uint8

const (
	kindOther kind = iota // left to go-cty: capsules, objects with optional attributes
	kindDynamic
	kindString
	kindNumber
	kindBool
	kindList
	kindSet
	kindMap
	kindTuple
	kindObject
)

// NewValueEncoder returns an encoder for values of type ty. Nested types
// are prepared on first use.
func NewValueEncoder(ty cty.Type) *ValueEncoder {
	return &ValueEncoder{ty: ty}
}

func (e *ValueEncoder) init() {
	ty := e.ty
	switch {
	case ty == cty.DynamicPseudoType:
		e.kind = kindDynamic
	case ty == cty.String:
		e.kind = kindString
	case ty == cty.Number:
		e.kind = kindNumber
	case ty == cty.Bool:
		e.kind = kindBool
	case ty.IsListType():
		e.kind, e.elem = kindList, NewValueEncoder(ty.ElementType())
	case ty.IsSetType():
		e.kind, e.elem = kindSet, NewValueEncoder(ty.ElementType())
	case ty.IsMapType():
		e.kind, e.elem = kindMap, NewValueEncoder(ty.ElementType())
	case ty.IsTupleType():
		e.kind = kindTuple
		for _, et := range ty.TupleElementTypes() {
			e.elems = append(e.elems, NewValueEncoder(et))
		}
	case ty.IsObjectType() && len(ty.OptionalAttributes()) == 0:
		e.kind = kindObject
		atys := ty.AttributeTypes()
		e.attrs = make([]attrEncoder, 0, len(atys))
		for name, aty := range atys {
			e.attrs = append(e.attrs, attrEncoder{name: name, key: appendString(nil, name), enc: NewValueEncoder(aty)})
		}
		slices.SortFunc(e.attrs, func(a, b attrEncoder) int { return strings.Compare(a.name, b.name) })
	}
}

// Encode encodes v, which must conform to the encoder's type. Unknown
// values survive; marked ones do not, since a mark has no representation
// on the wire: unmark first, and declare sensitivity in the schema. A nil
// Value is a null.
func (e *ValueEncoder) Encode(v cty.Value) (*tfprotov6.DynamicValue, error) {
	b, err := e.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.DynamicValue{MsgPack: b}, nil
}

// Marshal is Encode's bytes: msgpack.Marshal(v, ty).
func (e *ValueEncoder) Marshal(v cty.Value) ([]byte, error) {
	if v == cty.NilVal {
		v = cty.NullVal(e.ty)
	}
	buf := make([]byte, 0, e.size.Load()+64)
	buf, ok := e.append(buf, v)
	if !ok {
		return ctymsgpack.Marshal(v, e.ty)
	}
	e.size.Store(int64(len(buf)))
	return buf, nil
}

// append appends the encoding of v, or reports false where go-cty must
// encode the whole value (see ValueEncoder).
func (e *ValueEncoder) append(buf []byte, v cty.Value) ([]byte, bool) {
	e.once.Do(e.init)
	if v.IsMarked() || e.kind == kindOther {
		return buf, false
	}
	if e.kind == kindDynamic {
		if v.Type() == cty.DynamicPseudoType && !v.IsKnown() {
			return append(buf, unknownBytes...), true
		}
		return e.delegate(buf, v)
	}
	if !v.IsKnown() {
		if out, ok := appendUnknown(buf, v); ok {
			return out, true
		}
		return e.delegate(buf, v)
	}
	if v.IsNull() {
		return append(buf, 0xc0), true
	}
	vt := v.Type()
	var ok bool
	switch e.kind {
	case kindString:
		if vt != cty.String {
			return buf, false
		}
		return appendString(buf, v.AsString()), true
	case kindBool:
		if vt != cty.Bool {
			return buf, false
		}
		if v.True() {
			return append(buf, 0xc3), true
		}
		return append(buf, 0xc2), true
	case kindNumber:
		if vt != cty.Number {
			return buf, false
		}
		if i, acc := v.AsBigFloat().Int64(); acc == big.Exact {
			return appendInt(buf, i), true
		}
		return e.delegate(buf, v)
	case kindObject:
		if !vt.IsObjectType() || len(vt.AttributeTypes()) != len(e.attrs) {
			return buf, false
		}
		buf = appendMapLen(buf, len(e.attrs))
		for _, a := range e.attrs {
			if !vt.HasAttribute(a.name) {
				return buf, false
			}
			buf = append(buf, a.key...)
			if buf, ok = a.enc.append(buf, v.GetAttr(a.name)); !ok {
				return buf, false
			}
		}
		return buf, true
	case kindTuple:
		if !vt.IsTupleType() || len(vt.TupleElementTypes()) != len(e.elems) {
			return buf, false
		}
		buf = appendArrayLen(buf, len(e.elems))
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			if buf, ok = e.elems[i].append(buf, ev); !ok {
				return buf, false
			}
		}
		return buf, true
	case kindMap:
		if !vt.IsMapType() {
			return buf, false
		}
		buf = appendMapLen(buf, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			buf = appendString(buf, k.AsString())
			if buf, ok = e.elem.append(buf, ev); !ok {
				return buf, false
			}
		}
		return buf, true
	}
	// A list or a set: a value of the other is converted by go-cty.
	if (e.kind == kindList) != vt.IsListType() || (e.kind == kindSet) != vt.IsSetType() {
		return buf, false
	}
	n := v.LengthInt()
	buf = appendArrayLen(buf, n)
	if n == 0 {
		return buf, true // without the iterator's allocation: most are empty
	}
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if buf, ok = e.elem.append(buf, ev); !ok {
			return buf, false
		}
	}
	return buf, true
}

// delegate appends go-cty's encoding of v alone, which is the same bytes
// it writes for v inside any enclosing value.
func (e *ValueEncoder) delegate(buf []byte, v cty.Value) ([]byte, bool) {
	b, err := ctymsgpack.Marshal(v, e.ty)
	if err != nil {
		return buf, false
	}
	return append(buf, b...), true
}

// unknownBytes is go-cty's encoding of an unknown value without
// refinements: an extension value of type zero.
var unknownBytes = []byte{0xd4, 0, 0}

// appendUnknown appends go-cty's encoding of the unknown value v:
// unknownBytes, or with refinements an extension value of type 0x0c
// holding a map of them. It reports false for bounds on a number, which
// go-cty encodes as a tuple: left to it.
func appendUnknown(buf []byte, v cty.Value) ([]byte, bool) {
	rng := v.Range()
	ty := rng.TypeConstraint()
	if ty == cty.DynamicPseudoType {
		return append(buf, unknownBytes...), true
	}
	var room [64]byte
	refn, n := room[:0], 0
	if rng.DefinitelyNotNull() {
		refn, n = append(refn, 1, 0xc2), n+1 // nullness: false
	}
	switch {
	case ty == cty.Number:
		lower, _ := rng.NumberLowerBound()
		upper, _ := rng.NumberUpperBound()
		if (lower.IsKnown() && lower != cty.NegativeInfinity) || (upper.IsKnown() && upper != cty.PositiveInfinity) {
			return buf, false
		}
	case ty == cty.String:
		if prefix := rng.StringPrefix(); prefix != "" {
			// go-cty's decoder limits the refinements' size.
			if len(prefix) > 256 {
				prefix = ctystrings.SafeKnownPrefix(prefix[:255])
			}
			refn, n = appendString(append(refn, 2), prefix), n+1
		}
	case ty.IsCollectionType():
		if lower := rng.LengthLowerBound(); lower != 0 {
			refn, n = appendInt(append(refn, 5), int64(lower)), n+1
		}
		if upper := rng.LengthUpperBound(); upper != math.MaxInt {
			refn, n = appendInt(append(refn, 6), int64(upper)), n+1
		}
	}
	if n == 0 {
		return append(buf, unknownBytes...), true
	}
	buf = appendExtHeader(buf, 0x0c, 1+len(refn))
	buf = appendMapLen(buf, n)
	return append(buf, refn...), true
}

// appendExtHeader writes an extension value's length and type.
func appendExtHeader(buf []byte, ext byte, l int) []byte {
	switch {
	case l == 1:
		return append(buf, 0xd4, ext)
	case l == 2:
		return append(buf, 0xd5, ext)
	case l == 4:
		return append(buf, 0xd6, ext)
	case l == 8:
		return append(buf, 0xd7, ext)
	case l == 16:
		return append(buf, 0xd8, ext)
	case l <= math.MaxUint8:
		buf = append(buf, 0xc7, byte(l))
	case l <= math.MaxUint16:
		buf = binary.BigEndian.AppendUint16(append(buf, 0xc8), uint16(l))
	default:
		buf = binary.BigEndian.AppendUint32(append(buf, 0xc9), uint32(l))
	}
	return append(buf, ext)
}

// The headers below are MessagePack's, in the shortest form, as
// vmihailenco/msgpack (go-cty's encoder) writes them.

func appendString(buf []byte, s string) []byte {
	switch l := len(s); {
	case l < 32:
		buf = append(buf, 0xa0|byte(l))
	case l < 256:
		buf = append(buf, 0xd9, byte(l))
	case l <= math.MaxUint16:
		buf = binary.BigEndian.AppendUint16(append(buf, 0xda), uint16(l))
	default:
		buf = binary.BigEndian.AppendUint32(append(buf, 0xdb), uint32(l))
	}
	return append(buf, s...)
}

func appendArrayLen(buf []byte, l int) []byte { return appendLen(buf, l, 0x90, 0xdc) }

func appendMapLen(buf []byte, l int) []byte { return appendLen(buf, l, 0x80, 0xde) }

// appendLen writes an array's or a map's length: in its fixed form's low
// bits under 16, else after code16 or the code after it (32 bits).
func appendLen(buf []byte, l int, fixed, code16 byte) []byte {
	switch {
	case l < 16:
		return append(buf, fixed|byte(l))
	case l <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(buf, code16), uint16(l))
	}
	return binary.BigEndian.AppendUint32(append(buf, code16+1), uint32(l))
}

// appendInt writes n in the fewest bytes, as go-cty's encoder with
// compact integers does.
func appendInt(buf []byte, n int64) []byte {
	if n >= 0 {
		u := uint64(n)
		switch {
		case u <= math.MaxInt8:
			return append(buf, byte(u))
		case u <= math.MaxUint8:
			return append(buf, 0xcc, byte(u))
		case u <= math.MaxUint16:
			return binary.BigEndian.AppendUint16(append(buf, 0xcd), uint16(u))
		case u <= math.MaxUint32:
			return binary.BigEndian.AppendUint32(append(buf, 0xce), uint32(u))
		}
		return binary.BigEndian.AppendUint64(append(buf, 0xcf), u)
	}
	switch {
	case n >= -32:
		return append(buf, byte(n))
	case n >= math.MinInt8:
		return append(buf, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(buf, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(buf, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(buf, 0xd3), uint64(n))
}

// Type is the type of the values e encodes.
func (e *ValueEncoder) Type() cty.Type { return e.ty }
