package ui

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// nestedValue renders an attribute of protocol 6's nested attribute
// types (what follows "name = "), which Terraform shows differently from
// both blocks and plain attributes: the attributes of each object with
// the rules of a block's (id, name and tags always shown, "-> null" on
// each removed one), list elements paired by position and set elements
// by value with the unchanged ones counted last, map elements unaligned
// and each followed by a comma. Sensitive, write-only and unknown values
// are shown as for any attribute.
func (p *printer) nestedValue(depth int, na *provider.NestedAttributes, b, a cty.Value, c change, path cty.Path, suffix string) {
	if sensitive(b) || sensitive(a) || writeOnly(b) || writeOnly(a) || !b.IsKnown() || !a.IsKnown() {
		p.value(depth, b, a, c, path, suffix)
		return
	}
	b, _ = b.Unmark()
	a, _ = a.Unmark()
	switch c {
	case add:
		b = cty.NullVal(a.Type())
	case remove:
		a = cty.NullVal(b.Type())
	}
	if c == modify && (b.IsNull() || a.IsNull()) {
		c = add
		if a.IsNull() {
			c, suffix = remove, " -> null"+suffix
		}
	}
	f := p.forces(path)
	switch na.Nesting {
	case provider.NestingList:
		p.nestedList(depth, na, elems(b), elems(a), c, path, suffix, f)
	case provider.NestingSet:
		p.nestedList(depth, na, p.nestedSetPairs(b, a), nil, c, path, suffix, f)
	case provider.NestingMap:
		p.nestedMap(depth, na, valueMap(b), valueMap(a), c, path, suffix, f)
	default:
		p.nestedObject(depth, na.Attributes, b, a, c, path, suffix, f)
	}
}

// nestedObject renders one object of a nested attribute type.
func (p *printer) nestedObject(depth int, attrs map[string]*provider.Attribute, b, a cty.Value, c change, path cty.Path, suffix string, f bool) {
	es := p.objectEntries(nil, b, a, c)
	for i := range es {
		if at := attrs[es[i].attr]; at != nil {
			es[i].nested = at.Nested
		}
	}
	p.braces(depth, es, c, path, "attribute", true, suffix, f)
}

// single is the nested attribute type of each element of na's
// collection: one object of its attributes.
func single(na *provider.NestedAttributes) *provider.NestedAttributes {
	return &provider.NestedAttributes{Nesting: provider.NestingSingle, Attributes: na.Attributes}
}

// nestedList renders a list of nested objects, elements before and after
// paired by position; for a set, bs holds the pairs nestedSetPairs made,
// two values an element, and as is nil. Unchanged elements are counted
// after the others. f, the list's own "# forces replacement", goes on
// each element of a set.
func (p *printer) nestedList(depth int, na *provider.NestedAttributes, bs, as []cty.Value, c change, path cty.Path, suffix string, f bool) {
	var pairs [][2]cty.Value
	if as == nil && na.Nesting == provider.NestingSet {
		for i := 0; i+1 < len(bs); i += 2 {
			pairs = append(pairs, [2]cty.Value{bs[i], bs[i+1]})
		}
	} else {
		for i := range max(len(bs), len(as)) {
			var pr [2]cty.Value // cty.NilVal where there is no element
			if i < len(bs) {
				pr[0] = bs[i]
			}
			if i < len(as) {
				pr[1] = as[i]
			}
			pairs = append(pairs, pr)
		}
	}
	self, children := f, false
	if na.Nesting == provider.NestingSet {
		self, children = false, f
	}
	if len(pairs) == 0 {
		p.str("[]")
		p.str(suffix)
		p.forcesNote(self)
		return
	}
	p.byte('[')
	p.forcesNote(self)
	p.nl()
	elem := single(na)
	hidden := 0
	for i, pr := range pairs {
		eb, ea := pr[0], pr[1]
		if eb == cty.NilVal {
			eb = cty.NullVal(ea.Type())
		}
		if ea == cty.NilVal {
			ea = cty.NullVal(eb.Type())
		}
		ec, ok := classify(eb, ea)
		if !ok {
			continue
		}
		if ec == same && c != same && !p.showAll {
			hidden++
			continue
		}
		var step cty.PathStep = cty.IndexStep{Key: cty.NumberIntVal(int64(i))}
		if na.Nesting == provider.NestingSet {
			step = cty.IndexStep{Key: eb}
			if eb.IsNull() {
				step = cty.IndexStep{Key: ea}
			}
		}
		epath := p.childStep(path, step)
		p.indent(depth+1, ec)
		p.nestedElement(depth+1, elem, eb, ea, ec, epath, ",", children)
		p.nl()
	}
	if hidden > 0 {
		p.hiddenNote(depth+1, hidden, "element")
	}
	p.indent(depth, same)
	p.byte(']')
	p.str(suffix)
}

// nestedElement renders one object of a collection: its own removal is
// said by the collection, so it has no "-> null"; force is the
// collection's "# forces replacement", when it goes on each element.
func (p *printer) nestedElement(depth int, elem *provider.NestedAttributes, b, a cty.Value, c change, path cty.Path, suffix string, force bool) {
	if force && !sensitive(b) && !sensitive(a) && b.IsKnown() && a.IsKnown() {
		b, _ = b.Unmark()
		a, _ = a.Unmark()
		if c == modify && b.IsNull() {
			c = add
		} else if c == modify && a.IsNull() {
			c = remove
		}
		p.nestedObject(depth, elem.Attributes, b, a, c, path, suffix, true)
		return
	}
	if c == modify && (b.IsNull() || a.IsNull()) {
		// Created or destroyed in the collection, without "-> null".
		if b.IsNull() {
			p.nestedValue(depth, elem, b, a, add, path, suffix)
		} else {
			p.nestedValue(depth, elem, b, a, remove, path, suffix)
		}
		return
	}
	p.nestedValue(depth, elem, b, a, c, path, suffix)
}

// nestedSetPairs matches the elements of two sets of nested objects as
// Terraform does (see blockElems) and returns them in pairs, null where
// an element has no partner, each made over with the rule for empty
// strings.
func (p *printer) nestedSetPairs(b, a cty.Value) []cty.Value {
	bs, as := elems(b), elems(a)
	ety := b.Type().ElementType()
	matched := make([]bool, len(as))
	var out []cty.Value
	for _, bv := range bs {
		av := cty.NullVal(ety)
		for j, cand := range as {
			if !matched[j] && sameElement(bv, cand) {
				matched[j], av = true, cand
				break
			}
		}
		out = append(out, bv, av)
	}
	for j, av := range as {
		if !matched[j] {
			out = append(out, cty.NullVal(ety), av)
		}
	}
	for i := range out {
		out[i] = legacyValue(out[i], out[i].Type(), false)
	}
	return out
}

// nestedMap renders a map of nested objects: keys in order, unaligned,
// each object followed by a comma, unchanged elements counted last.
func (p *printer) nestedMap(depth int, na *provider.NestedAttributes, bm, am map[string]cty.Value, c change, path cty.Path, suffix string, f bool) {
	keys := keysOfBoth(bm, am)
	if len(keys) == 0 {
		p.str("{}")
		p.str(suffix)
		return
	}
	p.byte('{')
	p.nl()
	elem := single(na)
	hidden := 0
	for _, k := range keys {
		eb, bok := bm[k]
		ea, aok := am[k]
		switch {
		case !bok:
			eb = cty.NullVal(ea.Type())
		case !aok:
			ea = cty.NullVal(eb.Type())
		}
		ec, ok := classify(eb, ea)
		if !ok {
			continue
		}
		if ec == same && c != same && !p.showAll {
			hidden++
			continue
		}
		p.indent(depth+1, ec)
		p.quoted(k)
		p.str(" = ")
		comma := ""
		if shown := ea; !sensitive(eb) && !sensitive(ea) && ea.IsKnown() && eb.IsKnown() {
			if shown.IsNull() {
				shown = eb
			}
			if !shown.IsNull() {
				comma = ","
			}
		}
		p.nestedElement(depth+1, elem, eb, ea, ec, p.childStep(path, cty.IndexStep{Key: cty.StringVal(k)}), comma, f)
		p.nl()
	}
	if hidden > 0 {
		p.hiddenNote(depth+1, hidden, "element")
	}
	p.indent(depth, same)
	p.byte('}')
	p.str(suffix)
}

// childStep is child for a step of its own.
func (p *printer) childStep(path cty.Path, step cty.PathStep) cty.Path {
	if len(p.replace) == 0 {
		return nil
	}
	return append(path[:len(path):len(path)], step)
}
