package hclconfig

import (
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// decoderSpec turns a schema block into the hcldec specification that
// decodes a configuration body into an object of the block's implied type.
// Computed-only attributes are in the spec as optional so that decoded
// objects conform to the implied type; setting one is rejected separately
// with a clearer message than "unsupported argument".
func decoderSpec(b *provider.Block) hcldec.Spec {
	ret := hcldec.ObjectSpec{}
	if b == nil {
		return ret
	}
	for name, a := range b.Attributes {
		ret[name] = &hcldec.AttrSpec{Name: name, Type: a.Type, Required: a.Required}
	}
	for name, nb := range b.BlockTypes {
		child := decoderSpec(&nb.Block)
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

// computedOnly lists the attributes of b that configuration may not set.
func computedOnly(b *provider.Block) map[string]bool {
	out := map[string]bool{}
	for name, a := range b.Attributes {
		if a.Computed && !a.Optional && !a.Required {
			out[name] = true
		}
	}
	return out
}

// nullObject is used where a schema is missing, so that evaluation can go on
// and report everything else.
var nullObject = cty.NullVal(cty.DynamicPseudoType)

// DecoderSpec is the hcldec specification of a body conforming to b, for
// front-ends that read provider configurations outside a configuration
// folder (terraform test files' provider blocks).
func DecoderSpec(b *provider.Block) hcldec.Spec { return decoderSpec(b) }
