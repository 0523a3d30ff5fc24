package codegen

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// awsSized makes a synthetic schema the size of the AWS provider's: 1,500
// resource types and 600 data sources over 150 services, each type with
// about 20 attributes of every kind and three nested blocks, one of them
// nested again, all with descriptions of realistic length. What matters
// is the volume and the shapes, not the names.
func awsSized() *provider.Schema {
	resources, dataSources := map[string]*provider.ResourceSchema{}, map[string]*provider.ResourceSchema{}
	for svc := 0; svc < 150; svc++ {
		for r := 0; r < 10; r++ {
			name := fmt.Sprintf("aws_svc%03d_thing_%02d", svc, r)
			resources[name] = &provider.ResourceSchema{Block: block(18, 3)}
		}
		for d := 0; d < 4; d++ {
			name := fmt.Sprintf("aws_svc%03d_lookup_%02d", svc, d)
			dataSources[name] = &provider.ResourceSchema{Block: block(14, 2)}
		}
	}
	return &provider.Schema{Provider: block(12, 1), Resources: provider.NewTypes(resources), DataSources: provider.NewTypes(dataSources)}
}

var description = strings.Repeat("Describes what this attribute controls and how the cloud API treats it. ", 2)

// block makes a block with n attributes and blocks nested blocks.
func block(n, blocks int) *provider.Block {
	b := &provider.Block{
		Description: "A synthetic type. " + description,
		Attributes: map[string]*provider.Attribute{
			"id":  {Type: cty.String, Computed: true, Description: "The identifier."},
			"arn": {Type: cty.String, Computed: true, Description: "The ARN."},
		},
		BlockTypes: map[string]*provider.NestedBlock{},
	}
	types := []cty.Type{cty.String, cty.String, cty.String, cty.Number, cty.Bool, cty.List(cty.String), cty.Map(cty.String), cty.Set(cty.String)}
	for i := 0; i < n; i++ {
		a := &provider.Attribute{Type: types[i%len(types)], Description: description}
		switch i % 5 {
		case 0:
			a.Required = true
		case 1:
			a.Optional, a.Computed = true, true
		default:
			a.Optional = true
		}
		if i == 7 {
			a.Sensitive = true
		}
		b.Attributes[fmt.Sprintf("setting_%02d_value", i)] = a
	}
	b.Attributes["tags"] = &provider.Attribute{Type: cty.Map(cty.String), Optional: true, Description: "Tags."}
	for i := 0; i < blocks; i++ {
		nb := &provider.NestedBlock{Block: *block(6, 0), Nesting: provider.NestingList}
		if i == 0 {
			nb.Block.BlockTypes["detail"] = &provider.NestedBlock{Block: *block(4, 0), Nesting: provider.NestingSingle, MaxItems: 1}
		}
		if i == 2 {
			nb.Nesting = provider.NestingSet
		}
		b.BlockTypes[fmt.Sprintf("rule_%d", i)] = nb
	}
	return b
}
