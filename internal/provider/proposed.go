package provider

import (
	"github.com/zclconf/go-cty/cty"
)

// ProposedNew merges a configuration of block b with the prior object the
// way Terraform does before asking a provider to plan (PlanRequest's
// ProposedNewState): what the configuration sets wins; a computed attribute
// it leaves null keeps its prior value, or becomes unknown when there is
// none. Nested blocks and nested attributes are merged element by element,
// paired by position (lists) or key (maps); set elements have nothing to
// pair them by and are proposed as new.
//
// A null or unknown config is returned as it is (a destroy, or an object
// not known yet); a null or unknown prior is a create. The engine and the
// tests that drive providers as the engine does (internal/providercheck)
// both call it, so that no copy of the merge can drift from the engine's.
func ProposedNew(b *Block, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	if prior.IsNull() || !prior.IsKnown() {
		prior = cty.NullVal(config.Type())
	}
	attrs := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	proposedAttrs(b.Attributes, prior, config, attrs)
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

func proposedNested(nb *NestedBlock, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	switch nb.Nesting {
	case NestingSingle, NestingGroup:
		return ProposedNew(&nb.Block, prior, config)
	case NestingList:
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
			elems = append(elems, ProposedNew(&nb.Block, pe, ce))
		}
		if len(elems) == 0 {
			return config
		}
		if config.Type().IsTupleType() {
			return cty.TupleVal(elems)
		}
		return cty.ListVal(elems)
	case NestingMap:
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
			elems[k] = ProposedNew(&nb.Block, pe, ce)
		}
		if config.Type().IsObjectType() {
			return cty.ObjectVal(elems)
		}
		return cty.MapVal(elems)
	case NestingSet:
		// Set elements have no identity to match prior ones by; each
		// configured element is proposed as new.
		if config.LengthInt() == 0 {
			return config
		}
		var elems []cty.Value
		for it := config.ElementIterator(); it.Next(); {
			_, ce := it.Element()
			elems = append(elems, ProposedNew(&nb.Block, cty.NullVal(ce.Type()), ce))
		}
		return cty.SetVal(elems)
	}
	return config
}

// proposedAttrs merges the attributes of a block or nested attribute
// object into attrs.
func proposedAttrs(as map[string]*Attribute, prior, config cty.Value, attrs map[string]cty.Value) {
	for name, a := range as {
		c := config.GetAttr(name)
		var p cty.Value
		if !prior.IsNull() && prior.Type().IsObjectType() && prior.Type().HasAttribute(name) {
			p = prior.GetAttr(name)
		}
		switch {
		case a.Computed && c.IsNull() && (p == cty.NilVal || p.IsNull()):
			attrs[name] = cty.UnknownVal(c.Type())
		case a.Computed && c.IsNull():
			attrs[name] = p
		case a.Nested != nil:
			if p == cty.NilVal {
				p = cty.NullVal(c.Type())
			}
			attrs[name] = proposedNestedAttr(a.Nested, p, c)
		default:
			attrs[name] = c
		}
	}
}

// proposedNestedAttr merges a nested attribute's configured value with its
// prior one, object by object, as nested blocks are merged: what the
// configuration leaves null of what the provider computes keeps its prior
// value. Set elements have nothing to pair them by and are taken as
// configured.
func proposedNestedAttr(na *NestedAttributes, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	known := !prior.IsNull() && prior.IsKnown()
	object := func(p, c cty.Value) cty.Value {
		if c.IsNull() || !c.IsKnown() || !c.Type().IsObjectType() {
			return c
		}
		if p.IsNull() || !p.IsKnown() || !p.Type().IsObjectType() {
			p = cty.NullVal(c.Type())
		}
		attrs := make(map[string]cty.Value, len(na.Attributes))
		proposedAttrs(na.Attributes, p, c, attrs)
		return cty.ObjectVal(attrs)
	}
	switch na.Nesting {
	case NestingSingle, NestingGroup:
		return object(prior, config)
	case NestingList:
		if !config.Type().IsListType() || config.LengthInt() == 0 {
			return config
		}
		var priorElems []cty.Value
		if known && prior.Type().IsListType() {
			priorElems = prior.AsValueSlice()
		}
		var elems []cty.Value
		for i, ce := range config.AsValueSlice() {
			pe := cty.NullVal(ce.Type())
			if i < len(priorElems) {
				pe = priorElems[i]
			}
			elems = append(elems, object(pe, ce))
		}
		return cty.ListVal(elems)
	case NestingMap:
		if !config.Type().IsMapType() || config.LengthInt() == 0 {
			return config
		}
		elems := map[string]cty.Value{}
		for k, ce := range config.AsValueMap() {
			pe := cty.NullVal(ce.Type())
			if known && prior.Type().IsMapType() && prior.HasIndex(cty.StringVal(k)).True() {
				pe = prior.Index(cty.StringVal(k))
			}
			elems[k] = object(pe, ce)
		}
		return cty.MapVal(elems)
	}
	return config
}
