package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

func TestSchemaFromTFRoundTrip(t *testing.T) {
	want := &provider.ResourceSchema{
		Version: 3,
		Block: &provider.Block{
			Description: "outer",
			Deprecated:  true,
			Attributes: map[string]*provider.Attribute{
				"name": {Type: cty.String, Required: true, Description: "the name"},
				"tags": {Type: cty.Map(cty.String), Optional: true, Computed: true},
				"any":  {Type: cty.DynamicPseudoType, Optional: true, Sensitive: true, Deprecated: true},
			},
			BlockTypes: map[string]*provider.NestedBlock{
				"rule": {
					Nesting:  provider.NestingList,
					MinItems: 1,
					MaxItems: 4,
					Block: provider.Block{
						Attributes: map[string]*provider.Attribute{"port": {Type: cty.Number, Required: true}},
						BlockTypes: map[string]*provider.NestedBlock{
							"match": {Nesting: provider.NestingSet, Block: provider.Block{
								Attributes: map[string]*provider.Attribute{"cidr": {Type: cty.String, Optional: true}},
							}},
						},
					},
				},
				"timeouts": {Nesting: provider.NestingSingle, Block: provider.Block{
					Attributes: map[string]*provider.Attribute{"create": {Type: cty.String, Optional: true}},
				}},
				"group":  {Nesting: provider.NestingGroup, Block: provider.Block{Description: "g"}},
				"labels": {Nesting: provider.NestingMap, Block: provider.Block{}},
			},
		},
	}
	ts, err := SchemaToTF(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SchemaFromTF(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %#v\nwant %#v", got, want)
	}
	if !got.Block.ImpliedType().Equals(want.Block.ImpliedType()) {
		t.Errorf("implied type %#v, want %#v", got.Block.ImpliedType(), want.Block.ImpliedType())
	}
}

func TestNestedAttributesFromTF(t *testing.T) {
	inner := []*tfprotov6.SchemaAttribute{
		{Name: "host", Type: tftypes.String, Required: true},
		{Name: "port", Type: tftypes.Number, Optional: true},
		{Name: "id", Type: tftypes.String, Computed: true},
		{Name: "auth", NestedType: &tfprotov6.SchemaObject{
			Nesting: tfprotov6.SchemaObjectNestingModeSingle,
			Attributes: []*tfprotov6.SchemaAttribute{
				{Name: "password", Type: tftypes.String, Optional: true, Sensitive: true},
			},
		}},
	}
	authType := cty.ObjectWithOptionalAttrs(map[string]cty.Type{"password": cty.String}, []string{"password"})
	objType := cty.ObjectWithOptionalAttrs(map[string]cty.Type{
		"host": cty.String, "port": cty.Number, "id": cty.String, "auth": authType,
	}, []string{"id", "port"})
	for _, tc := range []struct {
		nesting tfprotov6.SchemaObjectNestingMode
		want    cty.Type
	}{
		{tfprotov6.SchemaObjectNestingModeSingle, objType},
		{tfprotov6.SchemaObjectNestingModeList, cty.List(objType)},
		{tfprotov6.SchemaObjectNestingModeSet, cty.Set(objType)},
		{tfprotov6.SchemaObjectNestingModeMap, cty.Map(objType)},
	} {
		b, err := BlockFromTF(&tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{{
			Name:        "servers",
			NestedType:  &tfprotov6.SchemaObject{Nesting: tc.nesting, Attributes: inner},
			Optional:    true,
			Description: "the servers",
		}}})
		if err != nil {
			t.Fatal(err)
		}
		a := b.Attributes["servers"]
		if !a.Type.Equals(tc.want) {
			t.Errorf("%s: type %#v, want %#v", tc.nesting, a.Type, tc.want)
		}
		if !a.Optional || a.Required || a.Computed || a.Description != "the servers" {
			t.Errorf("%s: flags %+v", tc.nesting, a)
		}
		// The password inside makes the whole attribute sensitive.
		if !a.Sensitive {
			t.Errorf("%s: not sensitive", tc.nesting)
		}
	}

	// A list of objects whose types may differ is dynamic, as for blocks.
	b, err := BlockFromTF(&tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{{
		Name: "items",
		NestedType: &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList, Attributes: []*tfprotov6.SchemaAttribute{
			{Name: "v", Type: tftypes.DynamicPseudoType, Optional: true},
		}},
		Optional: true,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if ty := b.Attributes["items"].Type; ty != cty.DynamicPseudoType {
		t.Errorf("list with dynamic element: %#v", ty)
	}
}

func TestBlockFromTFErrors(t *testing.T) {
	for name, b := range map[string]*tfprotov6.SchemaBlock{
		"duplicate attribute": {Attributes: []*tfprotov6.SchemaAttribute{{Name: "a", Type: tftypes.String}, {Name: "a", Type: tftypes.String}}},
		"attribute and block": {
			Attributes: []*tfprotov6.SchemaAttribute{{Name: "a", Type: tftypes.String}},
			BlockTypes: []*tfprotov6.SchemaNestedBlock{{TypeName: "a", Nesting: tfprotov6.SchemaNestedBlockNestingModeList}},
		},
		"invalid nesting": {BlockTypes: []*tfprotov6.SchemaNestedBlock{{TypeName: "b"}}},
		"missing type":    {Attributes: []*tfprotov6.SchemaAttribute{{Name: "a"}}},
	} {
		if _, err := BlockFromTF(b); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), `"a"`) && !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("%s: error %q does not name the attribute or block", name, err)
		}
	}
}
