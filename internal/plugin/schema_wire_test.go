package plugin

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A schema read as sent is decoded but for its types, which come out of
// it one at a time, each as the whole response would have given it.
func TestSchemaFromWire(t *testing.T) {
	attr := func(name, ty string) *tfplugin6.Schema_Attribute {
		return &tfplugin6.Schema_Attribute{Name: name, Type: []byte(ty), Optional: true}
	}
	schema := func(attrs ...*tfplugin6.Schema_Attribute) *tfplugin6.Schema {
		return &tfplugin6.Schema{Version: 2, Block: &tfplugin6.Schema_Block{Attributes: attrs}}
	}
	resp := &tfplugin6.GetProviderSchema_Response{
		Provider: schema(attr("region", `"string"`)),
		ResourceSchemas: map[string]*tfplugin6.Schema{
			"x_thing":  schema(attr("name", `"string"`), attr("tags", `["map","string"]`)),
			"x_broken": schema(attr("bad", `"no such type"`)),
		},
		DataSourceSchemas:        map[string]*tfplugin6.Schema{"x_thing": schema(attr("id", `"number"`))},
		EphemeralResourceSchemas: map[string]*tfplugin6.Schema{"x_lease": schema(attr("token", `"string"`))},
		ServerCapabilities:       &tfplugin6.ServerCapabilities{PlanDestroy: true, GetProviderSchemaOptional: true},
		Functions: map[string]*tfplugin6.Function{"f": {
			Return: &tfplugin6.Function_Return{Type: []byte(`"string"`)},
		}},
	}
	wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	// A type given twice keeps its last schema, as protobuf's maps do.
	wire = protowire.AppendTag(wire, 2, protowire.BytesType)
	entry := protowire.AppendTag(nil, 1, protowire.BytesType)
	entry = protowire.AppendString(entry, "x_thing")
	again, _ := proto.Marshal(schema(attr("name", `"bool"`)))
	entry = protowire.AppendTag(entry, 2, protowire.BytesType)
	entry = protowire.AppendBytes(entry, again)
	wire = protowire.AppendBytes(wire, entry)

	ws, err := rpc6{}.SchemaFromWire(wire)
	if err != nil {
		t.Fatal(err)
	}
	ls := loadSchema(ws)
	noErrors(t, "schema", ls.diags)
	s := ls.schema
	if !ls.optional || !ls.planDestroy || ls.functions["f"] == nil {
		t.Errorf("optional %v, plan destroy %v, functions %v", ls.optional, ls.planDestroy, ls.functions)
	}
	if !ls.providerType.Type().Equals(cty.Object(map[string]cty.Type{"region": cty.String})) {
		t.Errorf("provider type %#v", ls.providerType)
	}
	for _, tc := range []struct {
		kind  string
		names string
	}{
		{"resource", strings.Join(s.Resources.Names(), ",")},
		{"data source", strings.Join(s.DataSources.Names(), ",")},
		{"ephemeral", strings.Join(s.EphemeralResources.Names(), ",")},
	} {
		want := map[string]string{"resource": "x_broken,x_thing", "data source": "x_thing", "ephemeral": "x_lease"}[tc.kind]
		if tc.names != want {
			t.Errorf("%s types %s, want %s", tc.kind, tc.names, want)
		}
	}

	c := &Client{path: "fake-provider", schema: s}
	for _, tc := range []struct {
		kind, name string
		got        func(string) (cty.Type, string)
		want       cty.Type
		diag       string
	}{
		{"resource", "x_thing", diagOf(c.resourceType), cty.Object(map[string]cty.Type{"name": cty.Bool}), ""},
		{"data source", "x_thing", diagOf(c.dataSourceType), cty.Object(map[string]cty.Type{"id": cty.Number}), ""},
		{"ephemeral", "x_lease", diagOf(c.ephemeralType), cty.Object(map[string]cty.Type{"token": cty.String}), ""},
		{"resource", "x_missing", diagOf(c.resourceType), cty.DynamicPseudoType, `Unsupported resource type: The provider plugin fake-provider has no resource type named "x_missing".`},
		{"resource", "x_broken", diagOf(c.resourceType), cty.DynamicPseudoType, `Invalid provider schema: The provider plugin fake-provider declares resource type "x_broken", but the schema of "x_broken" cannot be used: attribute "bad"`},
	} {
		ty, diag := tc.got(tc.name)
		if !ty.Equals(tc.want) || !strings.HasPrefix(diag, tc.diag) || (tc.diag == "" && diag != "") {
			t.Errorf("%s %s: %#v, %q; want %#v, %q", tc.kind, tc.name, ty, diag, tc.want, tc.diag)
		}
	}
	if rs, _, _ := s.Resources.Get("x_thing"); rs.Version != 2 {
		t.Errorf("x_thing version %d, want 2", rs.Version)
	}

	// The same over protocol 5, whose messages have the same fields.
	v5, err := proto.Marshal(&tfplugin5.GetProviderSchema_Response{
		ResourceSchemas: map[string]*tfplugin5.Schema{"x_thing": {Block: &tfplugin5.Schema_Block{Attributes: []*tfplugin5.Schema_Attribute{{Name: "n", Type: []byte(`"number"`), Required: true}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws5, err := rpc5{}.SchemaFromWire(v5)
	if err != nil {
		t.Fatal(err)
	}
	c5 := &Client{path: "fake-provider", schema: loadSchema(ws5).schema}
	if ty, diags := c5.resourceType("x_thing"); diags != nil || !ty.Type().Equals(cty.Object(map[string]cty.Type{"n": cty.Number})) {
		t.Errorf("protocol 5 x_thing: %#v, %v", ty.Type(), diags)
	}

	// A response cut short is refused whole, before any type is looked up.
	if _, err := (rpc6{}).SchemaFromWire(wire[:len(wire)-3]); err == nil {
		t.Error("a truncated schema was read")
	}
}

// diagOf gives a type lookup's diagnostics as one line.
func diagOf(lookup func(string) (*protocol.ValueEncoder, hcl.Diagnostics)) func(string) (cty.Type, string) {
	return func(name string) (cty.Type, string) {
		enc, diags := lookup(name)
		ty := enc.Type()
		var lines []string
		for _, d := range diags {
			lines = append(lines, d.Summary+": "+d.Detail)
		}
		return ty, strings.Join(lines, "\n")
	}
}
