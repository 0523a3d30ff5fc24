package protocol

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

// TypeToTF returns the tftypes equivalent of a cty type. Capsule types have
// none: they cannot cross a process boundary.
func TypeToTF(t cty.Type) (tftypes.Type, error) {
	switch {
	case t == cty.DynamicPseudoType:
		return tftypes.DynamicPseudoType, nil
	case t == cty.String:
		return tftypes.String, nil
	case t == cty.Number:
		return tftypes.Number, nil
	case t == cty.Bool:
		return tftypes.Bool, nil
	case t.IsListType():
		et, err := TypeToTF(t.ElementType())
		return tftypes.List{ElementType: et}, err
	case t.IsSetType():
		et, err := TypeToTF(t.ElementType())
		return tftypes.Set{ElementType: et}, err
	case t.IsMapType():
		et, err := TypeToTF(t.ElementType())
		return tftypes.Map{ElementType: et}, err
	case t.IsObjectType():
		atys := t.AttributeTypes()
		out := tftypes.Object{AttributeTypes: make(map[string]tftypes.Type, len(atys))}
		for name, at := range atys {
			tt, err := TypeToTF(at)
			if err != nil {
				return nil, fmt.Errorf("attribute %q: %w", name, err)
			}
			out.AttributeTypes[name] = tt
			if t.AttributeOptional(name) {
				if out.OptionalAttributes == nil {
					out.OptionalAttributes = map[string]struct{}{}
				}
				out.OptionalAttributes[name] = struct{}{}
			}
		}
		return out, nil
	case t.IsTupleType():
		etys := t.TupleElementTypes()
		out := tftypes.Tuple{ElementTypes: make([]tftypes.Type, len(etys))}
		for i, et := range etys {
			tt, err := TypeToTF(et)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out.ElementTypes[i] = tt
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s has no Terraform plugin protocol equivalent", t.FriendlyName())
}

// TypeFromTF returns the cty equivalent of a tftypes type.
func TypeFromTF(t tftypes.Type) (cty.Type, error) {
	switch t := t.(type) {
	case nil:
		return cty.NilType, fmt.Errorf("missing type")
	case tftypes.List:
		et, err := TypeFromTF(t.ElementType)
		return cty.List(et), err
	case tftypes.Set:
		et, err := TypeFromTF(t.ElementType)
		return cty.Set(et), err
	case tftypes.Map:
		et, err := TypeFromTF(t.ElementType)
		return cty.Map(et), err
	case tftypes.Object:
		atys := make(map[string]cty.Type, len(t.AttributeTypes))
		for name, at := range t.AttributeTypes {
			ct, err := TypeFromTF(at)
			if err != nil {
				return cty.NilType, fmt.Errorf("attribute %q: %w", name, err)
			}
			atys[name] = ct
		}
		if len(t.OptionalAttributes) == 0 {
			return cty.Object(atys), nil
		}
		optional := make([]string, 0, len(t.OptionalAttributes))
		for name := range t.OptionalAttributes {
			optional = append(optional, name)
		}
		return cty.ObjectWithOptionalAttrs(atys, optional), nil
	case tftypes.Tuple:
		etys := make([]cty.Type, len(t.ElementTypes))
		for i, et := range t.ElementTypes {
			ct, err := TypeFromTF(et)
			if err != nil {
				return cty.NilType, fmt.Errorf("element %d: %w", i, err)
			}
			etys[i] = ct
		}
		return cty.Tuple(etys), nil
	}
	switch {
	case t.Is(tftypes.DynamicPseudoType):
		return cty.DynamicPseudoType, nil
	case t.Is(tftypes.String):
		return cty.String, nil
	case t.Is(tftypes.Number):
		return cty.Number, nil
	case t.Is(tftypes.Bool):
		return cty.Bool, nil
	}
	return cty.NilType, fmt.Errorf("unsupported type %s", t)
}
