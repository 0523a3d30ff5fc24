package ctysame

import (
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// Strings makes string values as cty.StringVal does, a few to an
// allocation: a string value's data is a string held in an interface,
// which Go allocates on its own (16 bytes) for every value; Strings holds
// the strings of several values in one array instead, each value's
// interface pointing at its own. Meant for the strings of one object (a
// recorded object being decoded), which live and die together: the array
// lives while any of them does. The zero Strings is ready; it is not safe
// for concurrent use.
type Strings struct {
	held []string
}

// stringsChunk is how many strings' room Strings allocates at a time.
const stringsChunk = 4

// Val is cty.StringVal(s): the same value, the same text. An ASCII s is
// its own NFC form, so it is held as it is, in Strings' array; any other
// goes through cty.StringVal, which normalises it.
func (ss *Strings) Val(s string) cty.Value {
	if s == "" || !isASCII(s) {
		// "" is held without an allocation anyway.
		return cty.StringVal(s)
	}
	if len(ss.held) == cap(ss.held) {
		ss.held = make([]string, 0, stringsChunk)
	}
	ss.held = append(ss.held, s)
	var v cty.Value
	l := (*valueLayout)(unsafe.Pointer(&v))
	l.ty = cty.String
	e := (*eface)(unsafe.Pointer(&l.v))
	e.typ, e.data = stringType, unsafe.Pointer(&ss.held[len(ss.held)-1])
	return v
}

// eface is an interface value as Go lays it out: its dynamic type, then a
// pointer to its data (TestStringsLayout keeps that true).
type eface struct {
	typ, data unsafe.Pointer
}

// stringType is the dynamic type word of a string held in an interface.
var stringType = func() unsafe.Pointer {
	var a any = "x"
	return (*eface)(unsafe.Pointer(&a)).typ
}()
