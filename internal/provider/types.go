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
type Types struct {
	names []string // sorted

	// decode, when set, decodes the schema of a name in names; decoded
	// and failed keep what it returned, under mu. Without decode, decoded
	// holds every schema and is never written after NewTypes.
	decode  func(name string) (*ResourceSchema, error)
	mu      sync.Mutex
	decoded map[string]*ResourceSchema
	failed  map[string]error
}

// NewTypes holds the schemas of m, by name. Types does not copy the
// schemas, and m must not be changed afterwards.
func NewTypes(m map[string]*ResourceSchema) *Types {
	t := &Types{names: make([]string, 0, len(m)), decoded: make(map[string]*ResourceSchema, len(m))}
	for name, rs := range m {
		if rs == nil {
			continue
		}
		t.names = append(t.names, name)
		t.decoded[name] = rs
	}
	sort.Strings(t.names)
	return t
}

// LazyTypes holds the types named by names, whose schemas decode returns
// on first lookup (once each, whatever it returns). decode is called only
// with a name of names; a nil schema with a nil error is taken for an
// error.
func LazyTypes(names []string, decode func(name string) (*ResourceSchema, error)) *Types {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return &Types{names: sorted, decode: decode, decoded: map[string]*ResourceSchema{}}
}

// Get returns the schema of the type name. ok is false, with no error,
// when there is no such type; err is set when the type exists but its
// schema cannot be used, and then the schema is nil.
func (t *Types) Get(name string) (rs *ResourceSchema, ok bool, err error) {
	if t == nil {
		return nil, false, nil
	}
	if t.decode == nil {
		rs, ok = t.decoded[name]
		return rs, ok, nil
	}
	if !t.Has(name) {
		return nil, false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if rs, ok := t.decoded[name]; ok {
		return rs, true, nil
	}
	if err, ok := t.failed[name]; ok {
		return nil, true, err
	}
	rs, err = t.decode(name)
	if err == nil && rs == nil {
		err = fmt.Errorf("no schema")
	}
	if err != nil {
		err = fmt.Errorf("the schema of %q cannot be used: %w", name, err)
		if t.failed == nil {
			t.failed = map[string]error{}
		}
		t.failed[name] = err
		return nil, true, err
	}
	t.decoded[name] = rs
	return rs, true, nil
}

// Has says whether there is a type name, without decoding its schema.
func (t *Types) Has(name string) bool {
	if t == nil {
		return false
	}
	i := sort.SearchStrings(t.names, name)
	return i < len(t.names) && t.names[i] == name
}

// Names returns the names of the types in sorted order, without decoding
// any schema; the caller must not modify the slice.
func (t *Types) Names() []string {
	if t == nil {
		return nil
	}
	return t.names
}

// Len is the number of types.
func (t *Types) Len() int {
	if t == nil {
		return 0
	}
	return len(t.names)
}

// All returns every schema by name, decoding those not yet decoded; it is
// for what needs them all (generating bindings, serving the schema). The
// error names the first type, in name order, whose schema cannot be used.
func (t *Types) All() (map[string]*ResourceSchema, error) {
	out := make(map[string]*ResourceSchema, t.Len())
	for _, name := range t.Names() {
		rs, _, err := t.Get(name)
		if err != nil {
			return nil, err
		}
		out[name] = rs
	}
	return out, nil
}
