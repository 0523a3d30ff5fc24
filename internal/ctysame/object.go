package ctysame

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/zclconf/go-cty/cty"
)

// ObjectVal is cty.ObjectVal of the attributes names[i] = vals[i], holding
// the type ts keeps for objects of those attribute types (see Share).
// cty.ObjectVal makes three maps for every object and normalises every
// name; this makes the one map of the attributes' data, as cty.ObjectVal
// holds it. The names must be distinct. A name that is not plain ASCII
// (its own NFC form) is left to cty.ObjectVal, which normalises it, and so
// is every object when ts is nil.
func (ts *Types) ObjectVal(names []string, vals []cty.Value) cty.Value {
	if len(names) == 0 {
		return cty.EmptyObjectVal
	}
	if ts == nil || slices.ContainsFunc(names, func(n string) bool { return !isASCII(n) }) {
		attrs := make(map[string]cty.Value, len(names))
		for i, n := range names {
			attrs[n] = vals[i]
		}
		return cty.ObjectVal(attrs)
	}
	t, ok := ts.find(func(t cty.Type) bool { return holds(t, names, vals) })
	if !ok {
		atys := make(map[string]cty.Type, len(names))
		for i, n := range names {
			atys[n] = vals[i].Type()
		}
		t = ts.add(cty.Object(atys))
	}
	data := make(map[string]any, len(names))
	for i, n := range names {
		data[n] = (*valueLayout)(unsafe.Pointer(&vals[i])).v
	}
	var v cty.Value
	l := (*valueLayout)(unsafe.Pointer(&v))
	l.ty, l.v = t, data
	return v
}

// holds reports whether t is the type cty.ObjectVal gives an object of
// those attributes: exactly those names, each of its value's type, and
// none optional.
func holds(t cty.Type, names []string, vals []cty.Value) bool {
	atys := t.AttributeTypes()
	if len(atys) != len(names) || len(t.OptionalAttributes()) > 0 {
		return false
	}
	for i, n := range names {
		at, ok := atys[n]
		if !ok {
			return false
		}
		if vt := vals[i].Type(); !sameType(at, vt) && !at.Equals(vt) {
			return false
		}
	}
	return true
}

// ByType keeps a Types for each type it is asked for, by identity (the
// type as made once, such as a provider schema's, not by structure): the
// objects decoded into a schema's type differ from it where it is
// dynamic, and from each other only there. It keeps at most maxKeyed;
// For is nil for any other. The zero ByType is ready; it is safe for
// concurrent use.
type ByType struct {
	m sync.Map // typeKey -> *Types
	n atomic.Int32
}

// maxKeyed bounds the types a ByType keeps a Types for: they and their
// Types stay for the process's life.
const maxKeyed = 4096

// typeKey is a type's identity, its two words: the data word as a pointer,
// which keeps the type alive, so that no other type is made at its
// address while it is a key.
type typeKey struct {
	tab  uintptr
	data unsafe.Pointer
}

// For is the Types for objects made of ty, nil when ByType keeps
// maxKeyed already.
func (b *ByType) For(ty cty.Type) *Types {
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&ty))
	key := typeKey{uintptr(w[0]), w[1]}
	if ts, ok := b.m.Load(key); ok {
		return ts.(*Types)
	}
	if b.n.Add(1) > maxKeyed {
		b.n.Add(-1)
		return nil
	}
	ts, loaded := b.m.LoadOrStore(key, &Types{})
	if loaded {
		b.n.Add(-1)
	}
	return ts.(*Types)
}
