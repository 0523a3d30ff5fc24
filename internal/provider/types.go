package provider

import (
	"fmt"
	"sort"
	"sync"
)

// Types are the schemas of one kind of type a provider declares (its
// resource types, data sources or ephemeral resource types), by name.
//
// A large provider declares far more types than a configuration uses (the
// AWS provider: some 2,100 types and 87,000 attributes, for a configuration
// naming two), so the schemas of a plugin are decoded one type at a time,
// on first lookup: Types made by LazyTypes know every name at once and
// each schema only once it is asked for. Get is therefore the one way to a
// schema, and it says apart a type that does not exist (ok false) from one
// whose schema cannot be decoded (an error), so that no caller mistakes
// the second for the first or gets an empty schema for a type that
// exists.
//
// The zero Types, and a nil *Types, hold no type. Types are safe for
// concurrent use; the schemas they return are shared and must not be
// modified.
type Types = ByName[*ResourceSchema]

// NewTypes holds the schemas of m, by name. Types does not copy the
// schemas, and m must not be changed afterwards.
func NewTypes(m map[string]*ResourceSchema) *Types {
	return newByName("the schema of", m)
}

// LazyTypes holds the types named by names, whose schemas decode returns
// on first lookup (once each, whatever it returns). decode is called only
// with a name of names; a nil schema with a nil error is taken for an
// error.
func LazyTypes(names []string, decode func(name string) (*ResourceSchema, error)) *Types {
	return lazyByName("the schema of", names, decode)
}

// ByName holds what a provider declares by name, each value decoded on
// first lookup when it is lazy: Types (schemas) and Functions. Get says
// apart a name that is not declared (ok false) from one whose value
// cannot be decoded (an error).
//
// The zero ByName, and a nil *ByName, hold nothing. A ByName is safe for
// concurrent use; the values it returns are shared and must not be
// modified.
type ByName[T comparable] struct {
	// what names a value in errors, before its quoted name ("the schema
	// of").
	what  string
	names []string // sorted

	// decode, when set, decodes the value of a name in names; decoded
	// and failed keep what it returned, under mu. Without decode, decoded
	// holds every value and is never written after newByName.
	decode  func(name string) (T, error)
	mu      sync.Mutex
	decoded map[string]T
	failed  map[string]error
}

// newByName holds the values of m, leaving out zero ones.
func newByName[T comparable](what string, m map[string]T) *ByName[T] {
	var zero T
	b := &ByName[T]{what: what, names: make([]string, 0, len(m)), decoded: make(map[string]T, len(m))}
	for name, v := range m {
		if v == zero {
			continue
		}
		b.names = append(b.names, name)
		b.decoded[name] = v
	}
	sort.Strings(b.names)
	return b
}

// lazyByName holds the names of names, whose values decode returns on
// first lookup; a zero value with a nil error is taken for an error.
func lazyByName[T comparable](what string, names []string, decode func(name string) (T, error)) *ByName[T] {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return &ByName[T]{what: what, names: sorted, decode: decode, decoded: map[string]T{}}
}

// Get returns the value of name. ok is false, with no error, when there
// is no such name; err is set when the name is declared but its value
// cannot be used, and then the value is the zero one.
func (b *ByName[T]) Get(name string) (v T, ok bool, err error) {
	if b == nil {
		return v, false, nil
	}
	if b.decode == nil {
		v, ok = b.decoded[name]
		return v, ok, nil
	}
	if !b.Has(name) {
		return v, false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if v, ok := b.decoded[name]; ok {
		return v, true, nil
	}
	if err, ok := b.failed[name]; ok {
		return v, true, err
	}
	v, err = b.decode(name)
	var zero T
	if err == nil && v == zero {
		err = fmt.Errorf("nothing declared")
	}
	if err != nil {
		err = fmt.Errorf("%s %q cannot be used: %w", b.what, name, err)
		if b.failed == nil {
			b.failed = map[string]error{}
		}
		b.failed[name] = err
		return zero, true, err
	}
	b.decoded[name] = v
	return v, true, nil
}

// Has says whether name is declared, without decoding its value.
func (b *ByName[T]) Has(name string) bool {
	if b == nil {
		return false
	}
	i := sort.SearchStrings(b.names, name)
	return i < len(b.names) && b.names[i] == name
}

// Names returns the names in sorted order, without decoding any value;
// the caller must not modify the slice.
func (b *ByName[T]) Names() []string {
	if b == nil {
		return nil
	}
	return b.names
}

// Len is the number of names.
func (b *ByName[T]) Len() int {
	if b == nil {
		return 0
	}
	return len(b.names)
}

// All returns every value by name, decoding those not yet decoded; it is
// for what needs them all (generating bindings, serving the schema). The
// error names the first name, in sorted order, whose value cannot be
// used.
func (b *ByName[T]) All() (map[string]T, error) {
	out := make(map[string]T, b.Len())
	for _, name := range b.Names() {
		v, _, err := b.Get(name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}
