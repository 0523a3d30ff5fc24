package protocol

import (
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

// SchemaFromTF converts a resource or data source schema received from a
// provider plugin.
func SchemaFromTF(s *tfprotov6.Schema) (*provider.ResourceSchema, error) {
	if s == nil {
		return &provider.ResourceSchema{Block: &provider.Block{}}, nil
	}
	b, err := BlockFromTF(s.Block)
	if err != nil {
		return nil, err
	}
	return &provider.ResourceSchema{Version: s.Version, Block: b}, nil
}

// BlockFromTF converts a block schema received from a provider plugin. It
// is the inverse of BlockToTF for every block BlockToTF can produce.
//
// provider.Attribute has no nested attributes (protocol 6's NestedType), so
// such an attribute becomes a plain one of the type Terraform decodes its
// configuration with: attributes the nested object marks optional or
// computed are optional in that type, so that configuration leaving them out
// gets nulls rather than a type error. What Terraform checks per nested
// attribute (required, computed-only) is left to the provider's own
// validation, which sees the whole object. Descriptions and flags of the
// inner attributes are lost, except sensitivity: see attributeFromTF.
func BlockFromTF(b *tfprotov6.SchemaBlock) (*provider.Block, error) {
	out := &provider.Block{}
	if b == nil {
		return out, nil
	}
	out.Description = b.Description
	out.Deprecated = b.Deprecated
	for _, a := range b.Attributes {
		if a == nil {
			continue
		}
		if out.Attributes == nil {
			out.Attributes = make(map[string]*provider.Attribute, len(b.Attributes))
		}
		if _, dup := out.Attributes[a.Name]; dup {
			return nil, fmt.Errorf("attribute %q is declared twice", a.Name)
		}
		attr, err := attributeFromTF(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		out.Attributes[a.Name] = attr
	}
	for _, nb := range b.BlockTypes {
		if nb == nil {
			continue
		}
		if out.BlockTypes == nil {
			out.BlockTypes = make(map[string]*provider.NestedBlock, len(b.BlockTypes))
		}
		if _, dup := out.BlockTypes[nb.TypeName]; dup {
			return nil, fmt.Errorf("block type %q is declared twice", nb.TypeName)
		}
		if _, clash := out.Attributes[nb.TypeName]; clash {
			return nil, fmt.Errorf("%q is declared both as an attribute and as a block type", nb.TypeName)
		}
		inner, err := BlockFromTF(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", nb.TypeName, err)
		}
		nesting, err := nestingFromTF(nb.Nesting)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", nb.TypeName, err)
		}
		out.BlockTypes[nb.TypeName] = &provider.NestedBlock{
			Block:    provider.Block{Attributes: inner.Attributes, BlockTypes: inner.BlockTypes, Description: inner.Description, Deprecated: inner.Deprecated},
			Nesting:  nesting,
			MinItems: int(nb.MinItems),
			MaxItems: int(nb.MaxItems),
		}
	}
	return out, nil
}

func attributeFromTF(a *tfprotov6.SchemaAttribute) (*provider.Attribute, error) {
	out := &provider.Attribute{
		Description: a.Description,
		Required:    a.Required,
		Optional:    a.Optional,
		Computed:    a.Computed,
		Sensitive:   a.Sensitive,
		Deprecated:  a.Deprecated,
		WriteOnly:   a.WriteOnly,
	}
	if a.NestedType == nil {
		ty, err := TypeFromTF(a.Type)
		if err != nil {
			return nil, err
		}
		out.Type = ty
		return out, nil
	}
	ty, err := nestedTypeFromTF(a.NestedType)
	if err != nil {
		return nil, err
	}
	out.Type = ty
	if out.Nested, err = nestedFromTF(a.NestedType); err != nil {
		return nil, err
	}
	// Sensitivity is per attribute here, so a secret nested anywhere inside
	// hides the whole value: showing too little beats leaking a password.
	out.Sensitive = out.Sensitive || nestedSensitive(a.NestedType)
	return out, nil
}

// nestedTypeFromTF is Terraform's type for a nested attribute, as used to
// decode configuration (configschema's specType).
func nestedTypeFromTF(o *tfprotov6.SchemaObject) (cty.Type, error) {
	atys := make(map[string]cty.Type, len(o.Attributes))
	var optional []string
	for _, a := range o.Attributes {
		if a == nil {
			continue
		}
		if _, dup := atys[a.Name]; dup {
			return cty.NilType, fmt.Errorf("nested attribute %q is declared twice", a.Name)
		}
		var ty cty.Type
		var err error
		if a.NestedType != nil {
			ty, err = nestedTypeFromTF(a.NestedType)
		} else {
			ty, err = TypeFromTF(a.Type)
		}
		if err != nil {
			return cty.NilType, fmt.Errorf("nested attribute %q: %w", a.Name, err)
		}
		atys[a.Name] = ty
		if a.Optional || a.Computed {
			optional = append(optional, a.Name)
		}
	}
	obj := cty.Object(atys)
	if len(optional) > 0 {
		sort.Strings(optional)
		obj = cty.ObjectWithOptionalAttrs(atys, optional)
	}
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return obj, nil
	case tfprotov6.SchemaObjectNestingModeList:
		// As for nested blocks: elements whose types may differ cannot
		// share a list type.
		if obj.HasDynamicTypes() {
			return cty.DynamicPseudoType, nil
		}
		return cty.List(obj), nil
	case tfprotov6.SchemaObjectNestingModeSet:
		return cty.Set(obj), nil
	case tfprotov6.SchemaObjectNestingModeMap:
		if obj.HasDynamicTypes() {
			return cty.DynamicPseudoType, nil
		}
		return cty.Map(obj), nil
	}
	return cty.NilType, fmt.Errorf("invalid nested attribute nesting mode %s", o.Nesting)
}

func nestedSensitive(o *tfprotov6.SchemaObject) bool {
	for _, a := range o.Attributes {
		if a == nil {
			continue
		}
		if a.Sensitive || (a.NestedType != nil && nestedSensitive(a.NestedType)) {
			return true
		}
	}
	return false
}

func nestingFromTF(n tfprotov6.SchemaNestedBlockNestingMode) (provider.Nesting, error) {
	switch n {
	case tfprotov6.SchemaNestedBlockNestingModeSingle:
		return provider.NestingSingle, nil
	case tfprotov6.SchemaNestedBlockNestingModeGroup:
		return provider.NestingGroup, nil
	case tfprotov6.SchemaNestedBlockNestingModeList:
		return provider.NestingList, nil
	case tfprotov6.SchemaNestedBlockNestingModeSet:
		return provider.NestingSet, nil
	case tfprotov6.SchemaNestedBlockNestingModeMap:
		return provider.NestingMap, nil
	}
	return 0, fmt.Errorf("invalid nesting mode %s", n)
}

// nestedFromTF keeps a nested attribute's structure: which attributes
// inside it are computed, for the engine's proposed new state.
func nestedFromTF(o *tfprotov6.SchemaObject) (*provider.NestedAttributes, error) {
	out := &provider.NestedAttributes{Attributes: make(map[string]*provider.Attribute, len(o.Attributes))}
	switch o.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		out.Nesting = provider.NestingSingle
	case tfprotov6.SchemaObjectNestingModeList:
		out.Nesting = provider.NestingList
	case tfprotov6.SchemaObjectNestingModeSet:
		out.Nesting = provider.NestingSet
	case tfprotov6.SchemaObjectNestingModeMap:
		out.Nesting = provider.NestingMap
	default:
		return nil, fmt.Errorf("invalid nested attribute nesting mode %s", o.Nesting)
	}
	for _, a := range o.Attributes {
		if a == nil {
			continue
		}
		na, err := attributeFromTF(a)
		if err != nil {
			return nil, fmt.Errorf("nested attribute %q: %w", a.Name, err)
		}
		out.Attributes[a.Name] = na
	}
	return out, nil
}
