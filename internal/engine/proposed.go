package engine

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// proposedNew merges a configuration with the prior object the way
// Terraform does before asking a provider to plan: what the configuration
// sets wins; a computed attribute it leaves null keeps its prior value, or
// becomes unknown when there is none.
func proposedNew(b *provider.Block, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	if prior.IsNull() || !prior.IsKnown() {
		prior = cty.NullVal(config.Type())
	}
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		c := config.GetAttr(name)
		switch {
		case a.Computed && c.IsNull() && prior.IsNull():
			attrs[name] = cty.UnknownVal(a.Type)
		case a.Computed && c.IsNull():
			attrs[name] = prior.GetAttr(name)
		default:
			attrs[name] = c
		}
	}
	for name, nb := range b.BlockTypes {
		c := config.GetAttr(name)
		var p cty.Value
		if prior.IsNull() {
			p = cty.NullVal(c.Type())
		} else {
			p = prior.GetAttr(name)
		}
		attrs[name] = proposedNested(nb, p, c)
	}
	return cty.ObjectVal(attrs)
}

func proposedNested(nb *provider.NestedBlock, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	switch nb.Nesting {
	case provider.NestingSingle, provider.NestingGroup:
		return proposedNew(&nb.Block, prior, config)
	case provider.NestingList:
		if !config.Type().IsListType() && !config.Type().IsTupleType() {
			return config
		}
		var elems []cty.Value
		var priorElems []cty.Value
		if !prior.IsNull() && prior.IsKnown() {
			priorElems = prior.AsValueSlice()
		}
		for i, ce := range config.AsValueSlice() {
			pe := cty.NullVal(ce.Type())
			if i < len(priorElems) {
				pe = priorElems[i]
			}
			elems = append(elems, proposedNew(&nb.Block, pe, ce))
		}
		if len(elems) == 0 {
			return config
		}
		if config.Type().IsTupleType() {
			return cty.TupleVal(elems)
		}
		return cty.ListVal(elems)
	case provider.NestingMap:
		if config.LengthInt() == 0 {
			return config
		}
		elems := map[string]cty.Value{}
		for k, ce := range config.AsValueMap() {
			pe := cty.NullVal(ce.Type())
			if !prior.IsNull() && prior.IsKnown() && prior.Type().IsMapType() {
				if pv := prior.Index(cty.StringVal(k)); prior.HasIndex(cty.StringVal(k)).True() {
					pe = pv
				}
			}
			elems[k] = proposedNew(&nb.Block, pe, ce)
		}
		if config.Type().IsObjectType() {
			return cty.ObjectVal(elems)
		}
		return cty.MapVal(elems)
	case provider.NestingSet:
		// Set elements have no identity to match prior ones by; each
		// configured element is proposed as new.
		if config.LengthInt() == 0 {
			return config
		}
		var elems []cty.Value
		for it := config.ElementIterator(); it.Next(); {
			_, ce := it.Element()
			elems = append(elems, proposedNew(&nb.Block, cty.NullVal(ce.Type()), ce))
		}
		return cty.SetVal(elems)
	}
	return config
}
