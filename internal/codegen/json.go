package codegen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// FromJSON reads the output of `terraform providers schema -json` and
// returns the schema of one provider in it, with the provider's local
// name and source address. want selects the provider by local name (aws)
// or by source address (hashicorp/aws, registry.terraform.io/hashicorp/aws);
// it may be empty when the file holds a single provider.
func FromJSON(data []byte, want string) (*provider.Schema, string, string, error) {
	var all tfjson.ProviderSchemas
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, "", "", fmt.Errorf("not a `terraform providers schema -json` document: %v", err)
	}
	sources := sortedKeys(all.Schemas)
	if len(sources) == 0 {
		return nil, "", "", fmt.Errorf("the document holds no provider schemas")
	}
	var source string
	switch {
	case want == "" && len(sources) == 1:
		source = sources[0]
	case want == "":
		return nil, "", "", fmt.Errorf("the document holds %d providers (%s); choose one with --provider", len(sources), strings.Join(sources, ", "))
	default:
		for _, s := range sources {
			if s == want || strings.HasSuffix(s, "/"+want) {
				source = s
				break
			}
		}
		if source == "" {
			return nil, "", "", fmt.Errorf("the document has no provider %q; it has %s", want, strings.Join(sources, ", "))
		}
	}
	ps := all.Schemas[source]
	name := source[strings.LastIndex(source, "/")+1:]
	out := &provider.Schema{}
	resources := make(map[string]*provider.ResourceSchema, len(ps.ResourceSchemas))
	dataSources := make(map[string]*provider.ResourceSchema, len(ps.DataSourceSchemas))
	var err error
	if ps.ConfigSchema != nil {
		if out.Provider, err = blockFromJSON(ps.ConfigSchema.Block); err != nil {
			return nil, "", "", fmt.Errorf("provider configuration: %v", err)
		}
	}
	for typ, s := range ps.ResourceSchemas {
		if resources[typ], err = schemaFromJSON(s); err != nil {
			return nil, "", "", fmt.Errorf("resource %s: %v", typ, err)
		}
	}
	for typ, s := range ps.DataSourceSchemas {
		if dataSources[typ], err = schemaFromJSON(s); err != nil {
			return nil, "", "", fmt.Errorf("data source %s: %v", typ, err)
		}
	}
	out.Resources, out.DataSources = provider.NewTypes(resources), provider.NewTypes(dataSources)
	return out, name, source, nil
}

func schemaFromJSON(s *tfjson.Schema) (*provider.ResourceSchema, error) {
	if s == nil {
		return &provider.ResourceSchema{Block: &provider.Block{}}, nil
	}
	b, err := blockFromJSON(s.Block)
	if err != nil {
		return nil, err
	}
	return &provider.ResourceSchema{Version: int64(s.Version), Block: b}, nil
}

func blockFromJSON(b *tfjson.SchemaBlock) (*provider.Block, error) {
	out := &provider.Block{Attributes: map[string]*provider.Attribute{}, BlockTypes: map[string]*provider.NestedBlock{}}
	if b == nil {
		return out, nil
	}
	out.Description, out.Deprecated = b.Description, b.Deprecated
	for name, a := range b.Attributes {
		ty := a.AttributeType
		if a.AttributeNestedType != nil {
			var err error
			if ty, err = nestedType(a.AttributeNestedType); err != nil {
				return nil, fmt.Errorf("attribute %s: %v", name, err)
			}
		}
		if ty == cty.NilType {
			return nil, fmt.Errorf("attribute %s has no type", name)
		}
		out.Attributes[name] = &provider.Attribute{
			Type: ty, Description: a.Description, Required: a.Required, Optional: a.Optional,
			Computed: a.Computed, Sensitive: a.Sensitive, Deprecated: a.Deprecated,
		}
	}
	for name, nb := range b.NestedBlocks {
		inner, err := blockFromJSON(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %v", name, err)
		}
		nesting, err := nestingFromJSON(nb.NestingMode)
		if err != nil {
			return nil, fmt.Errorf("block %s: %v", name, err)
		}
		out.BlockTypes[name] = &provider.NestedBlock{Block: provider.Block{Attributes: inner.Attributes, BlockTypes: inner.BlockTypes, Description: inner.Description, Deprecated: inner.Deprecated}, Nesting: nesting, MinItems: int(nb.MinItems), MaxItems: int(nb.MaxItems)}
	}
	return out, nil
}

func nestingFromJSON(m tfjson.SchemaNestingMode) (provider.Nesting, error) {
	switch m {
	case tfjson.SchemaNestingModeSingle:
		return provider.NestingSingle, nil
	case tfjson.SchemaNestingModeGroup:
		return provider.NestingGroup, nil
	case tfjson.SchemaNestingModeList:
		return provider.NestingList, nil
	case tfjson.SchemaNestingModeSet:
		return provider.NestingSet, nil
	case tfjson.SchemaNestingModeMap:
		return provider.NestingMap, nil
	}
	return 0, fmt.Errorf("unknown nesting mode %q", m)
}

// nestedType is the type of a protocol 6 nested attribute, as the plugin
// client sees it too: an object whose optional and computed attributes are
// optional, wrapped in the collection its nesting mode names.
func nestedType(n *tfjson.SchemaNestedAttributeType) (cty.Type, error) {
	attrs := map[string]cty.Type{}
	var optional []string
	for name, a := range n.Attributes {
		ty := a.AttributeType
		if a.AttributeNestedType != nil {
			var err error
			if ty, err = nestedType(a.AttributeNestedType); err != nil {
				return cty.NilType, err
			}
		}
		if ty == cty.NilType {
			return cty.NilType, fmt.Errorf("nested attribute %s has no type", name)
		}
		attrs[name] = ty
		if !a.Required {
			optional = append(optional, name)
		}
	}
	sort.Strings(optional)
	obj := cty.ObjectWithOptionalAttrs(attrs, optional)
	switch n.NestingMode {
	case tfjson.SchemaNestingModeSingle, tfjson.SchemaNestingModeGroup:
		return obj, nil
	case tfjson.SchemaNestingModeList:
		return cty.List(obj), nil
	case tfjson.SchemaNestingModeSet:
		return cty.Set(obj), nil
	case tfjson.SchemaNestingModeMap:
		return cty.Map(obj), nil
	}
	return cty.NilType, fmt.Errorf("unknown nesting mode %q", n.NestingMode)
}
