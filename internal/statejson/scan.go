package statejson

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/ctytype"
	"github.com/zclconf/go-cty/cty"
)

// scanner builds a value straight from the JSON text, by its type, without
// the generic document (maps and interfaces) valueFromJSON reads: every
// recorded object passes through here on every plan, through the built-in
// provider's UpgradeResourceState. It takes only what it reads exactly as
// valueFromJSON reads it (no escapes in strings, no duplicate keys, the
// types state is written with) and gives up (ok false) on anything else,
// which is then read the general way.
type scanner struct {
	b []byte
	i int
	// strs are the last strings read, as text and value: an object that
	// repeats a string (an input given back as an output, an id in an
	// ARN's place) holds one value of it, made once.
	strs [4]scannedStr
	next int
	// shared says the strings read may be b's own bytes (see
	// UnmarshalShared).
	shared bool
	// vals holds the string values' data, a few to an allocation: they
	// are one object's.
	vals ctysame.Strings
}

type scannedStr struct {
	text []byte
	v    cty.Value
}

// string reads a string value, the same one as a string read before with
// the same text.
func (s *scanner) string() (cty.Value, bool) {
	b, ok := s.strBytes()
	if !ok {
		return cty.NilVal, false
	}
	for _, r := range s.strs {
		if r.text != nil && bytes.Equal(r.text, b) {
			return r.v, true
		}
	}
	var text string
	if s.shared {
		text = unsafe.String(unsafe.SliceData(b), len(b))
	} else {
		text = string(b)
	}
	v := s.vals.Val(text)
	s.strs[s.next] = scannedStr{b, v}
	s.next = (s.next + 1) % len(s.strs)
	return v, true
}

// within reads a value of type t from text, a part of s.b (a dynamic
// value's, read after its type), with what s has read so far.
func (s *scanner) within(text []byte, t cty.Type) (cty.Value, bool) {
	b, i := s.b, s.i
	s.b, s.i = text, 0
	v, ok := s.value(t)
	s.space()
	ok = ok && s.i == len(s.b)
	s.b, s.i = b, i
	return v, ok
}

func scanValue(raw []byte, ty cty.Type, shared bool) (cty.Value, bool) {
	s := &scanner{b: raw, shared: shared}
	v, ok := s.value(ty)
	if !ok {
		return cty.NilVal, false
	}
	s.space()
	return v, s.i == len(s.b)
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// str reads a string without escapes, of valid UTF-8.
func (s *scanner) str() (string, bool) {
	b, ok := s.strBytes()
	return string(b), ok
}

// strBytes is str's text in place, for a key that need not be kept.
func (s *scanner) strBytes() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	var high byte // the bytes' high bits: none set, the text is ASCII
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			if high >= utf8.RuneSelf && !utf8.Valid(s.b[start:j]) {
				return nil, false
			}
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		default:
			high |= c
		}
	}
	return nil, false
}

// number reads a number of JSON's grammar and returns its text.
func (s *scanner) number() (string, bool) {
	b, j := s.b, s.i
	digits := func() bool {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case !digits():
		return "", false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return "", false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return "", false
		}
	}
	text := string(b[s.i:j])
	s.i = j
	return text, true
}

// skip passes over one JSON value of any kind (for a dynamic value whose
// type comes after it) and returns its text.
func (s *scanner) skip() ([]byte, bool) {
	c := s.peek()
	start := s.i
	switch {
	case c == '"':
		if _, ok := s.strBytes(); !ok {
			return nil, false
		}
	case c == '{' || c == '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.strBytes(); !ok {
					return nil, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return s.b[start:s.i], true
			}
		}
		return nil, false
	case c == 't' || c == 'f' || c == 'n':
		if !s.literal("true") && !s.literal("false") && !s.literal("null") {
			return nil, false
		}
	default:
		if _, ok := s.number(); !ok {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

// members reads an object's members, calling f with each key once the
// scanner is at its value; a key seen twice gives up. The key is the
// text in place: f copies what it keeps.
func (s *scanner) members(f func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	var buf [16][]byte
	seen := buf[:0]
	for {
		key, ok := s.strBytes()
		if !ok || s.peek() != ':' {
			return false
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen = append(seen, key)
		s.i++
		if !f(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// elements reads an array's elements, calling f at each.
func (s *scanner) elements(f func(i int) bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for n := 0; ; n++ {
		if !f(n) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) value(ty cty.Type) (cty.Value, bool) {
	c := s.peek()
	if c == 'n' {
		return cty.NullVal(ty), s.literal("null")
	}
	switch {
	case ty == cty.String:
		return s.string()
	case ty == cty.Bool:
		switch {
		case s.literal("true"):
			return cty.True, true
		case s.literal("false"):
			return cty.False, true
		}
		return cty.NilVal, false
	case ty == cty.Number:
		text, ok := s.number()
		if !ok {
			return cty.NilVal, false
		}
		v, err := cty.ParseNumberVal(text)
		return v, err == nil
	case ty == cty.DynamicPseudoType:
		return s.dynamic()
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		if len(atys) == 0 {
			ok := s.members(func([]byte) bool { return false })
			return cty.EmptyObjectVal, ok
		}
		// The attribute names, to key vals by the type's own strings
		// rather than a copy of each key read.
		var nbuf [16]string
		var vbuf [16]cty.Value
		names, vals := nbuf[:0], vbuf[:0]
		for name := range atys {
			names = append(names, name)
			vals = append(vals, cty.NilVal)
		}
		ok := s.members(func(key []byte) bool {
			i := slices.IndexFunc(names, func(n string) bool { return n == string(key) })
			if i < 0 {
				return false
			}
			var ok bool
			vals[i], ok = s.value(atys[names[i]])
			return ok
		})
		if !ok {
			return cty.NilVal, false
		}
		for i, v := range vals {
			if v == cty.NilVal {
				vals[i] = cty.NullVal(atys[names[i]])
			}
		}
		return objectVal(ty, names, vals), true
	case ty.IsListType(), ty.IsSetType():
		ety := ty.ElementType()
		if ety.HasDynamicTypes() {
			return cty.NilVal, false
		}
		var vals []cty.Value
		ok := s.elements(func(int) bool {
			v, ok := s.value(ety)
			vals = append(vals, v)
			return ok
		})
		switch {
		case !ok:
			return cty.NilVal, false
		case len(vals) == 0 && ty.IsListType():
			return cty.ListValEmpty(ety), true
		case len(vals) == 0:
			return cty.SetValEmpty(ety), true
		case ty.IsListType():
			return cty.ListVal(vals), true
		}
		return cty.SetVal(vals), true
	case ty.IsMapType():
		ety := ty.ElementType()
		if ety.HasDynamicTypes() {
			return cty.NilVal, false
		}
		vals := map[string]cty.Value{}
		ok := s.members(func(key []byte) bool {
			v, ok := s.value(ety)
			vals[string(key)] = v
			return ok
		})
		switch {
		case !ok:
			return cty.NilVal, false
		case len(vals) == 0:
			return cty.MapValEmpty(ety), true
		}
		return cty.MapVal(vals), true
	case ty.IsTupleType():
		etys := ty.TupleElementTypes()
		vals := make([]cty.Value, 0, len(etys))
		ok := s.elements(func(i int) bool {
			if i >= len(etys) {
				return false
			}
			v, ok := s.value(etys[i])
			vals = append(vals, v)
			return ok
		})
		switch {
		case !ok || len(vals) != len(etys):
			return cty.NilVal, false
		case len(vals) == 0:
			return cty.EmptyTupleVal, true
		}
		return cty.TupleVal(vals), true
	}
	return cty.NilVal, false
}

// dynamic reads a dynamically typed value: an object of exactly "type"
// (read by ctytype, as valueFromJSON reads it) and "value", in either
// order.
func (s *scanner) dynamic() (cty.Value, bool) {
	var typeText, valueText []byte
	ok := s.members(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "type":
			typeText, ok = s.skip()
		case "value":
			valueText, ok = s.skip()
		}
		return ok
	})
	if !ok || typeText == nil || valueText == nil {
		return cty.NilVal, false
	}
	if typeText[0] == '"' {
		// A primitive type, the common case: its name.
		t, ok := primitiveType(typeText)
		if !ok {
			name, _ := (&scanner{b: typeText}).str()
			t, ok = ctytype.FromDecoded(name)
		}
		if !ok {
			return cty.NilVal, false
		}
		return s.within(valueText, t)
	}
	dec := json.NewDecoder(bytes.NewReader(typeText))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return cty.NilVal, false
	}
	t, ok := ctytype.FromDecoded(doc)
	if !ok {
		return cty.NilVal, false
	}
	return s.within(valueText, t)
}

// primitiveType reads the JSON name of a primitive type, as
// ctytype.FromDecoded does, without copying it.
func primitiveType(text []byte) (cty.Type, bool) {
	switch string(text) {
	case `"string"`:
		return cty.String, true
	case `"number"`:
		return cty.Number, true
	case `"bool"`:
		return cty.Bool, true
	}
	return cty.NilType, false
}

// objectTypes shares the types of the objects decoded into each object
// type: a provider's state type is made once and every object of its
// resource type is decoded into it, and those objects' types differ at
// most where it is dynamic.
var objectTypes ctysame.ByType

// objectVal is cty.ObjectVal of the attributes, decoded into ty.
func objectVal(ty cty.Type, names []string, vals []cty.Value) cty.Value {
	return objectTypes.For(ty).ObjectVal(names, vals)
}
