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
	// goType is the type of the field's value, as getters and data source
	// results hold it; argType the type of the field in a struct that
	// configuration sets (see FieldType).
	goType     string
	argType    string
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
// then `required` (sent even when zero; nil or the zero Number is an
// error), `computed` (set by the provider only, never sent) or nothing
// (optional: nil or the zero Number is not sent, any other value is).
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
			f.doc = a.Description
			f.required, f.optional, f.computed = a.Required, a.Optional, a.Computed
			f.goType, f.argType = tn.goTypes(a.Type, owner+f.goName, f.optional)
			f.sensitive, f.deprecated = a.Sensitive, a.Deprecated
		} else {
			nb := e.block
			f.block = true
			f.doc = nb.Description
			f.deprecated = nb.Deprecated
			f.goType = tn.blockType(owner+f.goName, nb, fmt.Sprintf("a %s block of %s", e.name, owner))
			f.argType = f.goType
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

// FieldType is the Go type that generated bindings give a field holding
// values of type t. It is the one rule for every binding: the arguments,
// results and getters of every provider's resources and data sources, and
// module bindings, so that a program reads the same way whatever it uses.
//
//   - A string or a bool is string or bool when the field is required (or
//     is not set by configuration), and *string or *bool when it is
//     optional: nil leaves it unset, and a pointer to the zero value (made
//     with tether.String("") or tether.Bool(false)) sets it, so that every
//     optional argument can be set to its zero value.
//   - A number is tether.Number, required or optional: exact at any size
//     (cty's numbers), and its zero value is no number, so it needs no
//     pointer; tether.Int(0) is a set zero. As an argument (see ArgType)
//     it is tether.NumberInput, which a Number and an
//     Output[tether.Number] both are.
//   - A list or a set is a slice and a map a map[string] of the element's
//     type as a required field has it (elements are never null); a nil
//     slice or map is unset, an empty one is set.
//   - An object type is the struct objectType names for it, whose fields
//     are all optional; tuples and dynamic values are any.
//
// objectType is called only for object types, with the type itself.
func FieldType(t cty.Type, optional bool, objectType func(cty.Type) string) string {
	switch {
	case t == cty.String:
		return pointerIf(optional, "string")
	case t == cty.Number:
		return "tether.Number"
	case t == cty.Bool:
		return pointerIf(optional, "bool")
	case t.IsListType() || t.IsSetType():
		return "[]" + FieldType(t.ElementType(), false, objectType)
	case t.IsMapType():
		return "map[string]" + FieldType(t.ElementType(), false, objectType)
	case t.IsObjectType():
		return objectType(t)
	}
	// Tuples, dynamic values and anything cty adds later.
	return "any"
}

// ArgType is the Go type of an argument field holding values of type t:
// FieldType's, except that a number is tether.NumberInput, so that a
// getter's Output[tether.Number] goes straight into another resource's
// number argument, as an Output's String token goes into a string one.
// Elements of lists and maps stay tether.Number: a lazy collection is
// given whole (tether.Set).
func ArgType(t cty.Type, optional bool, objectType func(cty.Type) string) string {
	if t == cty.Number {
		return "tether.NumberInput"
	}
	return FieldType(t, optional, objectType)
}

func pointerIf(optional bool, typ string) string {
	if optional {
		return "*" + typ
	}
	return typ
}

// goTypes are the value type and the argument type of an attribute of type
// t (see FieldType). Object types get a struct named after where they
// appear, made once for both.
func (tn *typeNamer) goTypes(t cty.Type, name string, optional bool) (value, arg string) {
	obj := ""
	objectType := func(t cty.Type) string {
		if obj == "" {
			obj = tn.objectType(t, name)
		}
		return obj
	}
	return FieldType(t, false, objectType), ArgType(t, optional, objectType)
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
		f.goType, f.argType = tn.goTypes(attrs[n], st.name+f.goName, true)
		st.fields = append(st.fields, f)
	}
	return st.name
}
