package codegen

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// field is one field of a generated struct: an attribute or a nested
// block.
type field struct {
	schemaName string
	goName     string
	goType     string
	doc        string
	required   bool
	optional   bool
	computed   bool
	sensitive  bool
	deprecated bool
	block      bool
}

// input reports whether configuration may set the field.
func (f *field) input() bool { return f.required || f.optional }

// tag is the field's struct tag, which the SDK reads: the schema name,
// then `required` (sent even when zero; nil is an error), `computed` (set
// by the provider only, never sent) or nothing (optional: the zero value
// is not sent).
func (f *field) tag() string {
	t := f.schemaName
	switch {
	case f.required:
		t += ",required"
	case f.computed && !f.optional:
		t += ",computed"
	}
	return "`tether:\"" + t + "\"`"
}

// typeNamer gives names to the struct types that nested blocks and object
// attributes need, and queues them for emission.
type typeNamer struct {
	ns      *namespace
	pending []*structType
}

// structType is a generated struct for a nested block or an object type.
type structType struct {
	name   string
	about  string // what it holds, for its doc comment
	doc    string
	fields []*field
}

// blockFields lists the fields of a block: attributes and nested blocks,
// in schema-name order, with Go names unique within the struct.
func (tn *typeNamer) blockFields(owner string, b *provider.Block) []*field {
	if b == nil {
		return nil
	}
	type entry struct {
		name  string
		attr  *provider.Attribute
		block *provider.NestedBlock
	}
	var entries []entry
	for name, a := range b.Attributes {
		entries = append(entries, entry{name: name, attr: a})
	}
	for name, nb := range b.BlockTypes {
		if _, clash := b.Attributes[name]; clash {
			// A schema cannot have both; keep the attribute.
			continue
		}
		entries = append(entries, entry{name: name, block: nb})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	ns := newNamespace()
	fields := make([]*field, 0, len(entries))
	for _, e := range entries {
		f := &field{schemaName: e.name, goName: ns.claim(goName(e.name))}
		if e.attr != nil {
			a := e.attr
			f.goType = tn.goType(a.Type, owner+f.goName)
			f.doc = a.Description
			f.required, f.optional, f.computed = a.Required, a.Optional, a.Computed
			f.sensitive, f.deprecated = a.Sensitive, a.Deprecated
		} else {
			nb := e.block
			f.block = true
			f.doc = nb.Description
			f.deprecated = nb.Deprecated
			f.goType = tn.blockType(owner+f.goName, nb, fmt.Sprintf("a %s block of %s", e.name, owner))
			f.required = nb.MinItems > 0
			f.optional = !f.required
		}
		fields = append(fields, f)
	}
	return fields
}

// blockType is the Go type of a nested block: a pointer to its struct for
// a single block, a slice for a list or a set, a map for a map.
func (tn *typeNamer) blockType(name string, nb *provider.NestedBlock, about string) string {
	st := &structType{name: tn.ns.claim(name), doc: nb.Description, about: about}
	tn.pending = append(tn.pending, st)
	st.fields = tn.blockFields(st.name, &nb.Block)
	switch nb.Nesting {
	case provider.NestingList, provider.NestingSet:
		return "[]" + st.name
	case provider.NestingMap:
		return "map[string]" + st.name
	}
	return "*" + st.name
}

// goType is the Go type of a value of type t. Object types get a struct
// named after where they appear.
func (tn *typeNamer) goType(t cty.Type, name string) string {
	switch {
	case t == cty.String:
		return "string"
	case t == cty.Number:
		return "float64"
	case t == cty.Bool:
		return "bool"
	case t.IsListType() || t.IsSetType():
		return "[]" + tn.goType(t.ElementType(), name)
	case t.IsMapType():
		return "map[string]" + tn.goType(t.ElementType(), name)
	case t.IsObjectType():
		return tn.objectType(t, name)
	}
	// Tuples, dynamic values and anything cty adds later.
	return "any"
}

func (tn *typeNamer) objectType(t cty.Type, name string) string {
	st := &structType{name: tn.ns.claim(name), about: "an object value"}
	tn.pending = append(tn.pending, st)
	attrs := t.AttributeTypes()
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	ns := newNamespace()
	for _, n := range names {
		f := &field{schemaName: n, goName: ns.claim(goName(n)), optional: true}
		f.goType = tn.goType(attrs[n], st.name+f.goName)
		st.fields = append(st.fields, f)
	}
	return st.name
}
