package protocol

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// PathToTF converts a cty path to an attribute path. The protocol can only
// name attributes, list indexes and map keys, so a path into a set element
// stops at the set, which is also how Terraform reports such paths.
func PathToTF(p cty.Path) *tftypes.AttributePath {
	steps := make([]tftypes.AttributePathStep, 0, len(p))
steps:
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			steps = append(steps, tftypes.AttributeName(s.Name))
		case cty.IndexStep:
			k := s.Key
			if k.IsNull() || !k.IsKnown() {
				break steps
			}
			switch k.Type() {
			case cty.String:
				steps = append(steps, tftypes.ElementKeyString(k.AsString()))
			case cty.Number:
				i, acc := k.AsBigFloat().Int64()
				if acc != big.Exact {
					break steps
				}
				steps = append(steps, tftypes.ElementKeyInt(i))
			default:
				break steps
			}
		default:
			break steps
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}

// PathFromTF converts an attribute path to a cty path, stopping at a step
// that selects a set element by value.
func PathFromTF(ap *tftypes.AttributePath) cty.Path {
	if ap == nil {
		return nil
	}
	in := ap.Steps()
	out := make(cty.Path, 0, len(in))
	for _, s := range in {
		switch s := s.(type) {
		case tftypes.AttributeName:
			out = append(out, cty.GetAttrStep{Name: string(s)})
		case tftypes.ElementKeyString:
			out = append(out, cty.IndexStep{Key: cty.StringVal(string(s))})
		case tftypes.ElementKeyInt:
			out = append(out, cty.IndexStep{Key: cty.NumberIntVal(int64(s))})
		default:
			return out
		}
	}
	return out
}
