package ui

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// Terraform's renderer shows an empty string in a resource as null when
// the schema could have come from the legacy plugin SDK, which cannot
// tell the two apart and returns either. Unlike a null one, such an
// attribute is still there: it is written "null" where everything is
// shown (state show), and otherwise counted among the unchanged ones
// hidden, even in an object created or destroyed. Which values it applies to follows Terraform exactly: a
// block decides by its own shape (nonLegacy), a single or map nested
// block and the attributes and map elements of a block inherit its
// decision, while the elements of lists and sets, and the blocks of list
// and set block types, do not inherit it.

// legacyEmpty marks the null that stands for such an empty string.
const legacyEmpty = legacyMark("legacy-empty")

type legacyMark string

// isLegacyEmpty reports whether v stands for an empty string shown as
// null.
func isLegacyEmpty(v cty.Value) bool { return v.HasMark(legacyEmpty) }

// nonLegacy reports whether a block has something the legacy SDK could
// not express: map or group nested block types, nested attributes, or
// attributes of dynamic, object, tuple or deeply nested collection type.
// Its own block types' blocks are not looked into.
func nonLegacy(s *provider.Block) bool {
	for _, nb := range s.BlockTypes {
		if nb.Nesting == provider.NestingMap || nb.Nesting == provider.NestingGroup {
			return true
		}
	}
	for _, a := range s.Attributes {
		if a.Nested != nil {
			return true
		}
		ty := a.Type
		switch {
		case ty.HasDynamicTypes(), ty.IsTupleType(), ty.IsObjectType():
			return true
		case ty.IsCollectionType():
			if ety := ty.ElementType(); ety.IsCollectionType() && !ety.ElementType().IsPrimitiveType() {
				return true
			}
		}
	}
	return false
}

// legacyBlock is v, a value of block s, with the empty strings Terraform
// shows as null made null. keep is set when they stay as they are (the
// block or one it inherits from is not legacy). v is returned as it is
// when nothing changes, so that most resources cost no allocation.
func (p *printer) legacyBlock(s *provider.Block, v cty.Value, keep bool) cty.Value {
	uv, m := v.Unmark()
	if s == nil || uv.IsNull() || !uv.IsKnown() || !uv.Type().IsObjectType() || !p.legacyReaches(s, keep) {
		return v
	}
	keep = keep || nonLegacy(s)
	var vals map[string]cty.Value
	set := func(name string, old, nv cty.Value) {
		if nv.RawEquals(old) {
			return
		}
		if vals == nil {
			vals = uv.AsValueMap()
		}
		vals[name] = nv
	}
	for name, a := range s.Attributes {
		if !uv.Type().HasAttribute(name) {
			continue
		}
		old := uv.GetAttr(name)
		set(name, old, legacyValue(old, a.Type, keep))
	}
	for name, nb := range s.BlockTypes {
		if !uv.Type().HasAttribute(name) {
			continue
		}
		old := uv.GetAttr(name)
		var nv cty.Value
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup:
			nv = p.legacyBlock(&nb.Block, old, keep)
		case provider.NestingMap:
			nv = mapElements(old, func(e cty.Value) cty.Value { return p.legacyBlock(&nb.Block, e, keep) })
		case provider.NestingList:
			nv = mapElements(old, func(e cty.Value) cty.Value { return p.legacyBlock(&nb.Block, e, false) })
		default:
			// Set blocks: see legacySet.
			continue
		}
		set(name, old, nv)
	}
	if vals == nil {
		return v
	}
	return cty.ObjectVal(vals).WithMarks(m)
}

// legacyKey is a block and whether it inherits the decision to keep
// empty strings.
type legacyKey struct {
	s    *provider.Block
	keep bool
}

// legacyReaches reports whether legacyBlock can change any value of block
// s, by its schema alone: a wide plan shows thousands of objects of one
// type, most of them of a block with no empty string to show as null
// (the built-in provider's are not legacy at all), and walking every
// attribute of each to change nothing was a third of rendering them.
func (p *printer) legacyReaches(s *provider.Block, keep bool) bool {
	k := legacyKey{s, keep}
	if r, ok := p.legacyCache[k]; ok {
		return r
	}
	r := blockReached(s, keep)
	if p.legacyCache == nil {
		p.legacyCache = map[legacyKey]bool{}
	}
	p.legacyCache[k] = r
	return r
}

// blockReached is legacyReaches without the cache: it follows legacyBlock
// and legacyValue by the schema's types.
func blockReached(s *provider.Block, keep bool) bool {
	keep = keep || nonLegacy(s)
	for _, a := range s.Attributes {
		if typeReached(a.Type, keep) {
			return true
		}
	}
	for _, nb := range s.BlockTypes {
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup, provider.NestingMap:
			if blockReached(&nb.Block, keep) {
				return true
			}
		case provider.NestingList:
			if blockReached(&nb.Block, false) {
				return true
			}
		}
	}
	return false
}

// typeReached reports whether legacyValue can change a value of type ty.
func typeReached(ty cty.Type, keep bool) bool {
	switch {
	case ty == cty.String:
		return !keep
	case ty.IsListType():
		return typeReached(ty.ElementType(), false)
	case ty.IsMapType():
		return typeReached(ty.ElementType(), keep)
	case ty.IsObjectType():
		for _, aty := range ty.AttributeTypes() {
			if typeReached(aty, keep) {
				return true
			}
		}
	}
	return false
}

// legacyValue is legacyBlock for an attribute's value of type ty.
func legacyValue(v cty.Value, ty cty.Type, keep bool) cty.Value {
	uv, m := v.Unmark()
	if uv.IsNull() || !uv.IsKnown() || ty == cty.DynamicPseudoType {
		return v
	}
	switch {
	case ty == cty.String:
		if !keep && uv.Type() == cty.String && uv.AsString() == "" {
			return cty.NullVal(cty.String).Mark(legacyEmpty).WithMarks(m)
		}
		return v
	case ty.IsListType():
		return mapElements(v, func(e cty.Value) cty.Value { return legacyValue(e, ty.ElementType(), false) })
	case ty.IsSetType():
		// A set cannot hold a marked element: its elements are made
		// over when they are listed (legacySet), after being matched by
		// their values as they are, as Terraform matches them.
		return v
	case ty.IsMapType():
		return mapElements(v, func(e cty.Value) cty.Value { return legacyValue(e, ty.ElementType(), keep) })
	case ty.IsObjectType():
		if !uv.Type().IsObjectType() {
			return v
		}
		var vals map[string]cty.Value
		for name, aty := range ty.AttributeTypes() {
			if !uv.Type().HasAttribute(name) {
				continue
			}
			old := uv.GetAttr(name)
			if nv := legacyValue(old, aty, keep); !nv.RawEquals(old) {
				if vals == nil {
					vals = uv.AsValueMap()
				}
				vals[name] = nv
			}
		}
		if vals == nil {
			return v
		}
		return cty.ObjectVal(vals).WithMarks(m)
	}
	return v
}

// mapElements applies f to each element of a known list, set or map,
// keeping its marks; it returns v itself when f changes nothing.
func mapElements(v cty.Value, f func(cty.Value) cty.Value) cty.Value {
	uv, m := v.Unmark()
	if uv.IsNull() || !uv.IsKnown() || uv.LengthInt() == 0 {
		return v
	}
	ty := uv.Type()
	changed := false
	keys := make([]cty.Value, 0, uv.LengthInt())
	elems := make([]cty.Value, 0, uv.LengthInt())
	for it := uv.ElementIterator(); it.Next(); {
		k, e := it.Element()
		ne := f(e)
		changed = changed || !ne.RawEquals(e)
		keys = append(keys, k)
		elems = append(elems, ne)
	}
	if !changed {
		return v
	}
	var out cty.Value
	switch {
	case ty.IsListType():
		out = cty.ListVal(elems)
	case ty.IsMapType():
		vals := make(map[string]cty.Value, len(elems))
		for i, k := range keys {
			vals[k.AsString()] = elems[i]
		}
		out = cty.MapVal(vals)
	default:
		return v
	}
	return out.WithMarks(m)
}

// legacySet makes over the elements of a set listed in es, when the
// resource being shown has a schema: Terraform's rule reaches into every
// list and set element of a resource, legacy or not.
func (p *printer) legacySet(es []entry) {
	if !p.legacy {
		return
	}
	for i := range es {
		e := &es[i]
		e.b = legacyValue(e.b, e.b.Type(), false)
		e.a = legacyValue(e.a, e.a.Type(), false)
	}
}
