package protocol

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/tetherhq/tether/internal/provider"
)

// SchemaToTF converts a resource or data source schema.
func SchemaToTF(rs *provider.ResourceSchema) (*tfprotov6.Schema, error) {
	if rs == nil {
		return &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}}, nil
	}
	b, err := BlockToTF(rs.Block)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.Schema{Version: rs.Version, Block: b}, nil
}

// BlockToTF converts a block schema. Attributes and nested blocks come out
// sorted by name so that the same schema always encodes the same way.
func BlockToTF(b *provider.Block) (*tfprotov6.SchemaBlock, error) {
	out := &tfprotov6.SchemaBlock{DescriptionKind: tfprotov6.StringKindPlain}
	if b == nil {
		return out, nil
	}
	out.Description = b.Description
	out.Deprecated = b.Deprecated
	for _, name := range b.AttributeNames() {
		a := b.Attributes[name]
		ty, err := TypeToTF(a.Type)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		out.Attributes = append(out.Attributes, &tfprotov6.SchemaAttribute{
			Name:            name,
			Type:            ty,
			Description:     a.Description,
			DescriptionKind: tfprotov6.StringKindPlain,
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			Deprecated:      a.Deprecated,
		})
	}
	for _, name := range b.BlockTypeNames() {
		nb := b.BlockTypes[name]
		inner, err := BlockToTF(&nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", name, err)
		}
		nesting, err := nestingToTF(nb.Nesting)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", name, err)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: name,
			Block:    inner,
			Nesting:  nesting,
			MinItems: int64(nb.MinItems),
			MaxItems: int64(nb.MaxItems),
		})
	}
	return out, nil
}

func nestingToTF(n provider.Nesting) (tfprotov6.SchemaNestedBlockNestingMode, error) {
	switch n {
	case provider.NestingSingle:
		return tfprotov6.SchemaNestedBlockNestingModeSingle, nil
	case provider.NestingGroup:
		return tfprotov6.SchemaNestedBlockNestingModeGroup, nil
	case provider.NestingList:
		return tfprotov6.SchemaNestedBlockNestingModeList, nil
	case provider.NestingSet:
		return tfprotov6.SchemaNestedBlockNestingModeSet, nil
	case provider.NestingMap:
		return tfprotov6.SchemaNestedBlockNestingModeMap, nil
	}
	return tfprotov6.SchemaNestedBlockNestingModeInvalid, fmt.Errorf("invalid nesting mode %d", n)
}
