package provider

import (
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/zclconf/go-cty/cty"
)

// NormalizeBlocks gives the nested blocks of an object a provider returned
// the shape the configuration language gives them, as Terraform does with
// every refreshed object (objchange.NormalizeObjectFromLegacySDK): a null
// list or set of blocks is an empty one, a null group block its empty
// value, and an unknown block a known one whose attributes are unknown.
// Providers on the legacy SDK return such values. Blocks with dynamically
// typed attributes, which that SDK never has, are left as they are.
func NormalizeBlocks(b *Block, v cty.Value) cty.Value {
	if BlocksNormal(b, v) {
		return v
	}
	v, pvm := v.UnmarkDeepWithPaths()
	return normalizeBlocks(b, v).MarkWithPaths(pvm)
}

// BlocksNormal reports whether NormalizeBlocks would give v back as it is
// without looking inside: a schema without blocks and a known object of its
// attributes. Rebuilding such an object would give it back, at the cost of
// a copy of every refreshed object, and comparing the two of a walk.
func BlocksNormal(b *Block, v cty.Value) bool {
	return b != nil && len(b.BlockTypes) == 0 && v != cty.NilVal && !v.IsNull() && v.IsKnown() && sameAttributes(b, v.Type())
}

func normalizeBlocks(b *Block, v cty.Value) cty.Value {
	if v == cty.NilVal || v.IsNull() {
		return cty.NullVal(b.ImpliedType())
	}
	if !v.IsKnown() || !v.Type().IsObjectType() {
		return v
	}
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name := range b.Attributes {
		vals[name] = ctysame.Attr(v, name)
	}
	for name, nb := range b.BlockTypes {
		bv := ctysame.Attr(v, name)
		if nb.Block.ImpliedType().HasDynamicTypes() {
			vals[name] = bv
			continue
		}
		ety := nb.Block.ImpliedType()
		switch nb.Nesting {
		case NestingSingle, NestingGroup:
			switch {
			case !bv.IsKnown():
				vals[name] = unknownBlock(&nb.Block)
			case bv.IsNull() && nb.Nesting == NestingGroup:
				vals[name] = nb.Block.EmptyValue()
			default:
				vals[name] = normalizeBlocks(&nb.Block, bv)
			}
		case NestingList, NestingSet:
			var elems []cty.Value
			switch {
			case !bv.IsKnown():
				elems = []cty.Value{unknownBlock(&nb.Block)}
			case bv.IsNull() || bv.LengthInt() == 0:
			default:
				for it := bv.ElementIterator(); it.Next(); {
					_, e := it.Element()
					elems = append(elems, normalizeBlocks(&nb.Block, e))
				}
			}
			vals[name] = blockCollection(nb.Nesting, ety, elems)
		default:
			// The legacy SDK has no map blocks.
			vals[name] = bv
		}
	}
	return cty.ObjectVal(vals)
}

func blockCollection(n Nesting, ety cty.Type, elems []cty.Value) cty.Value {
	switch {
	case n == NestingList && len(elems) == 0:
		return cty.ListValEmpty(ety)
	case n == NestingList:
		return cty.ListVal(elems)
	case len(elems) == 0:
		return cty.SetValEmpty(ety)
	}
	return cty.SetVal(elems)
}

// unknownBlock stands for a block the provider returned unknown: blocks
// themselves are never unknown, so it is a known one with every attribute
// unknown, as a dynamic block over an unknown collection is.
func unknownBlock(b *Block) cty.Value {
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		vals[name] = cty.UnknownVal(a.Type)
	}
	for name, nb := range b.BlockTypes {
		switch nb.Nesting {
		case NestingSingle, NestingGroup:
			vals[name] = unknownBlock(&nb.Block)
		case NestingList, NestingSet:
			vals[name] = blockCollection(nb.Nesting, nb.Block.ImpliedType(), []cty.Value{unknownBlock(&nb.Block)})
		case NestingMap:
			vals[name] = cty.MapValEmpty(nb.Block.ImpliedType())
		}
	}
	return cty.ObjectVal(vals)
}

// sameAttributes reports whether ty is an object type with exactly the
// attributes of b (whatever their types: dynamically typed attributes hold
// any).
func sameAttributes(b *Block, ty cty.Type) bool {
	if !ty.IsObjectType() {
		return false
	}
	atys := ty.AttributeTypes()
	if len(atys) != len(b.Attributes) {
		return false
	}
	for name := range b.Attributes {
		if _, ok := atys[name]; !ok {
			return false
		}
	}
	return true
}
