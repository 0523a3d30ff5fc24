package jsonplan

import (
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/provider"
)

// ProviderFormatVersion is the version of the provider schema
// representation, as Terraform writes it beside a plan or state shown by
// terraform test -json -verbose.
const ProviderFormatVersion = "1.0"

// ProviderSchema is s as `terraform providers schema -json` writes one
// provider's schema.
func ProviderSchema(s *provider.Schema) *tfjson.ProviderSchema {
	out := &tfjson.ProviderSchema{
		ConfigSchema:      &tfjson.Schema{Block: schemaBlock(s.Provider)},
		ResourceSchemas:   types(s.Resources),
		DataSourceSchemas: types(s.DataSources),
	}
	if s.EphemeralResources != nil {
		out.EphemeralResourceSchemas = types(s.EphemeralResources)
	}
	return out
}

func types(t *provider.Types) map[string]*tfjson.Schema {
	out := map[string]*tfjson.Schema{}
	if t == nil {
		return out
	}
	for _, name := range t.Names() {
		rs, ok, err := t.Get(name)
		if err != nil || !ok {
			continue
		}
		out[name] = &tfjson.Schema{Version: uint64(rs.Version), Block: schemaBlock(rs.Block)}
	}
	return out
}

func schemaBlock(b *provider.Block) *tfjson.SchemaBlock {
	out := &tfjson.SchemaBlock{Attributes: map[string]*tfjson.SchemaAttribute{}, NestedBlocks: map[string]*tfjson.SchemaBlockType{}}
	if b == nil {
		return out
	}
	out.Description, out.Deprecated = b.Description, b.Deprecated
	if b.Description != "" {
		out.DescriptionKind = tfjson.SchemaDescriptionKindPlain
	}
	for name, a := range b.Attributes {
		out.Attributes[name] = schemaAttribute(a)
	}
	for name, nb := range b.BlockTypes {
		out.NestedBlocks[name] = &tfjson.SchemaBlockType{
			NestingMode: tfjson.SchemaNestingMode(nb.Nesting.String()),
			Block:       schemaBlock(&nb.Block),
			MinItems:    uint64(nb.MinItems), MaxItems: uint64(nb.MaxItems),
		}
	}
	return out
}

func schemaAttribute(a *provider.Attribute) *tfjson.SchemaAttribute {
	out := &tfjson.SchemaAttribute{
		Description: a.Description, Deprecated: a.Deprecated, Required: a.Required,
		Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, WriteOnly: a.WriteOnly,
	}
	if a.Description != "" {
		out.DescriptionKind = tfjson.SchemaDescriptionKindPlain
	}
	if a.Nested == nil {
		out.AttributeType = a.Type
		return out
	}
	nested := &tfjson.SchemaNestedAttributeType{
		NestingMode: tfjson.SchemaNestingMode(a.Nested.Nesting.String()),
		Attributes:  map[string]*tfjson.SchemaAttribute{},
	}
	for name, na := range a.Nested.Attributes {
		nested.Attributes[name] = schemaAttribute(na)
	}
	out.AttributeNestedType = nested
	return out
}
