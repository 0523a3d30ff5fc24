package schemabody

import (
	"github.com/hashicorp/hcl/v2/hcldec"

	"github.com/tetherhq/tether/internal/provider"
)

// Spec turns a schema block into the hcldec specification that
// decodes a configuration body into an object of the block's implied type.
// Computed-only attributes are in the spec as optional so that decoded
// objects conform to the implied type; setting one is rejected separately
// with a clearer message than "unsupported argument".
func Spec(b *provider.Block) hcldec.Spec {
	ret := hcldec.ObjectSpec{}
	if b == nil {
		return ret
	}
	for name, a := range b.Attributes {
		ret[name] = &hcldec.AttrSpec{Name: name, Type: a.Type, Required: a.Required}
	}
	for name, nb := range b.BlockTypes {
		child := Spec(&nb.Block)
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup:
			ret[name] = &hcldec.BlockSpec{TypeName: name, Nested: child, Required: nb.MinItems == 1}
		case provider.NestingList:
			if nb.Block.ImpliedType().HasDynamicTypes() {
				ret[name] = &hcldec.BlockTupleSpec{TypeName: name, Nested: child, MinItems: nb.MinItems, MaxItems: nb.MaxItems}
			} else {
				ret[name] = &hcldec.BlockListSpec{TypeName: name, Nested: child, MinItems: nb.MinItems, MaxItems: nb.MaxItems}
			}
		case provider.NestingSet:
			ret[name] = &hcldec.BlockSetSpec{TypeName: name, Nested: child, MinItems: nb.MinItems, MaxItems: nb.MaxItems}
		case provider.NestingMap:
			if nb.Block.ImpliedType().HasDynamicTypes() {
				ret[name] = &hcldec.BlockObjectSpec{TypeName: name, Nested: child, LabelNames: []string{"key"}}
			} else {
				ret[name] = &hcldec.BlockMapSpec{TypeName: name, Nested: child, LabelNames: []string{"key"}}
			}
		}
	}
	return ret
}

// ComputedOnly lists the attributes of b that configuration may not set.
func ComputedOnly(b *provider.Block) map[string]bool {
	out := map[string]bool{}
	for name, a := range b.Attributes {
		if a.Computed && !a.Optional && !a.Required {
			out[name] = true
		}
	}
	return out
}
