package sdk

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/provider"
)

// conform makes a value built from Go into an object of a schema block's
// implied type: attributes converted to their types, absent ones null,
// nested blocks in their collections, empty when absent.
func conform(v cty.Value, b *provider.Block, path cty.Path) (cty.Value, error) {
	ty := b.ImpliedType()
	uv, m := v.Unmark()
	if !uv.IsKnown() {
		return cty.UnknownVal(ty).WithMarks(m), nil
	}
	if uv.IsNull() {
		uv = cty.EmptyObjectVal
	}
	if !uv.Type().IsObjectType() {
		return cty.NilVal, path.NewErrorf("an object is required, not a %s", uv.Type().FriendlyName())
	}
	get := func(name string) cty.Value {
		if uv.Type().HasAttribute(name) {
			return uv.GetAttr(name)
		}
		return cty.NullVal(cty.DynamicPseudoType)
	}
	for name := range uv.Type().AttributeTypes() {
		_, isAttr := b.Attributes[name]
		_, isBlock := b.BlockTypes[name]
		if !isAttr && !isBlock {
			return cty.NilVal, path.GetAttr(name).NewErrorf("there is no argument or block named %q here", name)
		}
	}
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		cv, err := convert.Convert(get(name), a.Type)
		if err != nil {
			return cty.NilVal, path.GetAttr(name).NewError(err)
		}
		attrs[name] = cv
	}
	for name, nb := range b.BlockTypes {
		cv, err := conformBlocks(get(name), nb, path.GetAttr(name))
		if err != nil {
			return cty.NilVal, err
		}
		attrs[name] = cv
	}
	return cty.ObjectVal(attrs).WithMarks(m), nil
}

func conformBlocks(v cty.Value, nb *provider.NestedBlock, path cty.Path) (cty.Value, error) {
	ety := nb.Block.ImpliedType()
	uv, m := v.Unmark()
	if !uv.IsKnown() {
		return cty.UnknownVal(nestedType(nb)).WithMarks(m), nil
	}
	switch nb.Nesting {
	case provider.NestingSingle, provider.NestingGroup:
		if uv.IsNull() && nb.Nesting == provider.NestingSingle {
			return cty.NullVal(ety), nil
		}
		cv, err := conform(uv, &nb.Block, path)
		return cv.WithMarks(m), err
	case provider.NestingMap:
		if uv.IsNull() || uv.LengthInt() == 0 {
			if ety.HasDynamicTypes() {
				return cty.EmptyObjectVal, nil
			}
			return cty.MapValEmpty(ety), nil
		}
		if !uv.CanIterateElements() {
			return cty.NilVal, path.NewErrorf("a map of blocks is required, not a %s", uv.Type().FriendlyName())
		}
		elems := map[string]cty.Value{}
		for it := uv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			cv, err := conform(e, &nb.Block, path.Index(k))
			if err != nil {
				return cty.NilVal, err
			}
			elems[k.AsString()] = cv
		}
		if ety.HasDynamicTypes() {
			return cty.ObjectVal(elems).WithMarks(m), nil
		}
		return cty.MapVal(elems).WithMarks(m), nil
	}
	// Lists and sets.
	var elems []cty.Value
	if !uv.IsNull() {
		if !uv.CanIterateElements() || uv.Type().IsObjectType() || uv.Type().IsMapType() {
			return cty.NilVal, path.NewErrorf("a list of blocks is required, not a %s", uv.Type().FriendlyName())
		}
		for it := uv.ElementIterator(); it.Next(); {
			k, e := it.Element()
			cv, err := conform(e, &nb.Block, path.Index(k))
			if err != nil {
				return cty.NilVal, err
			}
			elems = append(elems, cv)
		}
	}
	if nb.MaxItems > 0 && len(elems) > nb.MaxItems {
		return cty.NilVal, path.NewErrorf("at most %d blocks are allowed, got %d", nb.MaxItems, len(elems))
	}
	switch {
	case nb.Nesting == provider.NestingList && ety.HasDynamicTypes():
		return cty.TupleVal(elems).WithMarks(m), nil
	case len(elems) == 0 && nb.Nesting == provider.NestingSet:
		return cty.SetValEmpty(ety), nil
	case len(elems) == 0:
		return cty.ListValEmpty(ety), nil
	case nb.Nesting == provider.NestingSet:
		return cty.SetVal(elems).WithMarks(m), nil
	}
	return cty.ListVal(elems).WithMarks(m), nil
}

func nestedType(nb *provider.NestedBlock) cty.Type {
	return (&provider.Block{BlockTypes: map[string]*provider.NestedBlock{"x": nb}}).ImpliedType().AttributeType("x")
}
