package ui

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// block renders the braces of a block of schema s, Terraform's way: its
// attributes aligned on "=", then each nested block in block syntax
// (`name {`, `name "key" {`), grouped by block type in name order with a
// blank line before each group that shows something, and last the count
// of unchanged blocks hidden. b and a are the block's values before and
// after, unmarked; c is the block's own change.
func (p *printer) block(depth int, s *provider.Block, b, a cty.Value, c change, path cty.Path, f bool) {
	es := p.objectEntries(p.takeEntries(), b, a, c)
	defer p.giveEntries(es)
	attrs := es[:0:len(es)]
	var groups []entry
	for _, e := range es {
		if _, ok := s.BlockTypes[e.attr]; ok {
			groups = append(groups, e)
			continue
		}
		if at := s.Attributes[e.attr]; at != nil {
			e.nested = at.Nested
		}
		attrs = append(attrs, e)
	}
	if len(attrs) == 0 && len(groups) == 0 {
		p.str("{}")
		p.forcesNote(f)
		return
	}
	p.byte('{')
	p.forcesNote(f)
	p.nl()
	p.keyed(depth+1, attrs, c, path, "attribute", true)
	hidden := 0
	for i := range groups {
		g := &groups[i]
		hidden += p.blockGroup(depth+1, g.attr, s.BlockTypes[g.attr], g, c, p.child(path, g), len(attrs) > 0)
	}
	if hidden > 0 {
		p.nl()
		p.hiddenNote(depth+1, hidden, "block")
	}
	p.indent(depth, same)
	p.byte('}')
}

// takeEntries gives a list that block has finished with, for the next
// block to fill: every resource of a plan is a block, and a new list for
// each was a tenth of the allocations of rendering a wide plan.
func (p *printer) takeEntries() []entry {
	n := len(p.spare)
	if n == 0 {
		return nil
	}
	es := p.spare[n-1]
	p.spare = p.spare[:n-1]
	return es
}

// giveEntries takes back a list, letting go of the values in it.
func (p *printer) giveEntries(es []entry) {
	clear(es[:cap(es)])
	p.spare = append(p.spare, es[:0])
}

// blockElem is one block of a block type: its label ("" for list, set
// and single blocks), values and change.
type blockElem struct {
	label string
	b, a  cty.Value
	path  cty.Path
}

// blockGroup renders the blocks of one block type, the entry e of its
// parent (whose change is parent), each on its own `name {` line at
// depth, and returns how many it hid as unchanged. attrs says whether
// the parent shows attributes above, which a blank line separates.
func (p *printer) blockGroup(depth int, name string, nb *provider.NestedBlock, e *entry, parent change, path cty.Path, attrs bool) (hidden int) {
	// Sensitivity of the whole group: each block of it is shown as
	// sensitive, as Terraform does.
	gbs, gas := sensitive(e.b), sensitive(e.a)
	gb, _ := e.b.Unmark()
	ga, _ := e.a.Unmark()
	// Entries of a block created or destroyed as a whole carry its value
	// on both sides.
	switch parent {
	case add:
		gb = cty.NullVal(gb.Type())
	case remove:
		ga = cty.NullVal(ga.Type())
	}
	force := p.forces(path)
	blank := attrs
	open := func() {
		if blank {
			p.nl()
			blank = false
		}
	}
	ety := nb.Block.ImpliedType()
	if !ga.IsKnown() && nb.Nesting != provider.NestingSingle && nb.Nesting != provider.NestingGroup {
		// Not even the number of blocks is known: said once, with the
		// parent's symbol; the blocks there were go.
		open()
		p.indent(depth, parent)
		p.str(attrKey(name))
		p.str(" (known after apply)")
		p.forcesNote(force)
		p.nl()
		ga = cty.NullVal(gb.Type())
	}
	for _, el := range p.blockElems(nb, gb, ga, ety, path) {
		eb, ea := el.b, el.a
		bs, as := gbs || sensitive(eb), gas || sensitive(ea)
		ub, _ := eb.UnmarkDeep()
		ua, _ := ea.UnmarkDeep()
		c, ok := classify(ub, ua)
		if !ok {
			continue
		}
		if c == same && !(bs || as) {
			c, _ = classify(eb, ea)
		}
		if c == same && bs != as {
			c = modify
		}
		secret := (c == add && as) || (c == remove && bs) || ((c == modify || c == same) && (bs || as))
		if c == same && parent == modify && !p.showAll {
			hidden++
			continue
		}
		open()
		if secret && c == modify && bs != as {
			p.blockSensitivityWarning(depth, as)
		}
		p.indent(depth, c)
		p.str(attrKey(name))
		if el.label != "" {
			p.byte(' ')
			p.quoted(el.label)
		}
		p.byte(' ')
		ef := force || p.forces(el.path)
		switch {
		case secret:
			p.sensitiveBlock(depth, ef)
		default:
			p.blockValue(depth, &nb.Block, ub, ua, eb, ea, c, el.path, ef)
		}
		p.nl()
	}
	return hidden
}

// blockValue renders one block that is not hidden as sensitive: b and a
// are unmarked deep (for the unknown checks), mb and ma keep the marks of
// the attributes inside.
func (p *printer) blockValue(depth int, s *provider.Block, b, a, mb, ma cty.Value, c change, path cty.Path, f bool) {
	mb, _ = mb.Unmark()
	ma, _ = ma.Unmark()
	switch {
	case !a.IsKnown() && b.IsNull():
		p.str(unknownText)
		p.forcesNote(f)
	case !a.IsKnown():
		// What the block was, each attribute going unknown.
		p.block(depth, s, mb, unknownAttrs(s, mb), modify, path, false)
		p.str(" -> ")
		p.str(unknownText)
		p.forcesNote(f)
	default:
		p.block(depth, s, mb, ma, c, path, f)
	}
}

// unknownAttrs is v with every attribute unknown and every nested block
// gone: how Terraform shows a block that becomes wholly unknown.
func unknownAttrs(s *provider.Block, v cty.Value) cty.Value {
	vals := map[string]cty.Value{}
	for n, at := range v.Type().AttributeTypes() {
		if _, ok := s.Attributes[n]; ok {
			vals[n] = cty.UnknownVal(at)
		} else {
			vals[n] = cty.NullVal(at)
		}
	}
	return cty.ObjectVal(vals)
}

// blockElems pairs the blocks of a block type before and after, in the
// order Terraform shows them: a single block with itself, list blocks by
// position, map blocks by key in key order, and set blocks by equal
// value, the blocks before in their order (those gone among them) and
// then the new ones.
func (p *printer) blockElems(nb *provider.NestedBlock, b, a cty.Value, ety cty.Type, path cty.Path) []blockElem {
	null := cty.NullVal(ety)
	elemPath := func(step cty.PathStep) cty.Path {
		if len(p.replace) == 0 {
			return nil
		}
		return append(path[:len(path):len(path)], step)
	}
	switch nb.Nesting {
	case provider.NestingSingle, provider.NestingGroup:
		return []blockElem{{b: b, a: a, path: path}}
	case provider.NestingList:
		bs, as := elems(b), elems(a)
		out := make([]blockElem, 0, max(len(bs), len(as)))
		for i := range max(len(bs), len(as)) {
			el := blockElem{b: null, a: null, path: elemPath(cty.IndexStep{Key: cty.NumberIntVal(int64(i))})}
			if i < len(bs) {
				el.b = bs[i]
			}
			if i < len(as) {
				el.a = as[i]
			}
			out = append(out, el)
		}
		return out
	case provider.NestingMap:
		bm, am := valueMap(b), valueMap(a)
		keys := keysOfBoth(bm, am)
		out := make([]blockElem, 0, len(keys))
		for _, k := range keys {
			el := blockElem{label: k, b: null, a: null, path: elemPath(cty.IndexStep{Key: cty.StringVal(k)})}
			if v, ok := bm[k]; ok {
				el.b = v
			}
			if v, ok := am[k]; ok {
				el.a = v
			}
			out = append(out, el)
		}
		return out
	}
	// A set: an element is kept when an equal one (its sensitivity
	// included) is there after; Terraform matches them in this order.
	bs, as := elems(b), elems(a)
	matched := make([]bool, len(as))
	out := make([]blockElem, 0, len(bs)+len(as))
	for _, bv := range bs {
		el := blockElem{b: bv, a: null, path: elemPath(cty.IndexStep{Key: bv})}
		for j, av := range as {
			if !matched[j] && sameElement(bv, av) {
				matched[j] = true
				el.a = av
				break
			}
		}
		out = append(out, el)
	}
	for j, av := range as {
		if !matched[j] {
			out = append(out, blockElem{b: null, a: av, path: elemPath(cty.IndexStep{Key: av})})
		}
	}
	// Matched as they are, shown with the rule for empty strings (see
	// legacyBlock), which reaches set blocks only here.
	for i := range out {
		out[i].b = p.legacyBlock(&nb.Block, out[i].b, false)
		out[i].a = p.legacyBlock(&nb.Block, out[i].a, false)
	}
	return out
}

// sameElement reports whether two set elements are the same one: equal
// values, equally sensitive as a whole, wholly known.
func sameElement(b, a cty.Value) bool {
	if sensitive(b) != sensitive(a) || !a.IsWhollyKnown() {
		return false
	}
	ub, _ := b.UnmarkDeep()
	ua, _ := a.UnmarkDeep()
	return ub.RawEquals(ua)
}

// elems is the elements of a known list or set, none when null.
func elems(v cty.Value) []cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	return v.AsValueSlice()
}

// valueMap is the elements of a known map, none when null.
func valueMap(v cty.Value) map[string]cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	return v.AsValueMap()
}

// sensitiveBlock is what Terraform shows of a block with a sensitive
// value in it, in place of its contents.
func (p *printer) sensitiveBlock(depth int, f bool) {
	p.byte('{')
	p.forcesNote(f)
	p.nl()
	p.indent(depth, same)
	p.str("  # At least one attribute in this block is (or was) sensitive,")
	p.nl()
	p.indent(depth, same)
	p.str("  # so its contents will not be displayed.")
	p.nl()
	p.indent(depth, same)
	p.byte('}')
}

// blockSensitivityWarning is Terraform's warning above a block whose
// sensitivity changes.
func (p *printer) blockSensitivityWarning(depth int, nowSensitive bool) {
	p.spaces(4*depth + 2)
	if nowSensitive {
		p.str("# Warning: this block will be marked as sensitive and will not")
		p.nl()
		p.spaces(4*depth + 2)
		p.str("# display in UI output after applying this change.")
	} else {
		p.str("# Warning: this block will no longer be marked as sensitive")
		p.nl()
		p.spaces(4*depth + 2)
		p.str("# after applying this change.")
	}
	p.nl()
}
