package tether

import (
	"context"
	"testing"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

func TestValidationMessages(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		typeName, attr string
		attrs          map[string]cty.Value
	}{
		{"tether_file", "file_permission", map[string]cty.Value{"file_permission": cty.StringVal("0999")}},
		{"tether_file", "file_permission", map[string]cty.Value{"file_permission": cty.StringVal("rw-r--r--")}},
		{"tether_file", "file_permission", map[string]cty.Value{"file_permission": cty.StringVal("4755")}},
		{"tether_file", "file_permission", map[string]cty.Value{"file_permission": cty.StringVal("64")}},
		{"tether_file", "path", map[string]cty.Value{"path": cty.StringVal("")}},
		{"tether_random", "length", map[string]cty.Value{"length": cty.NumberIntVal(0)}},
		{"tether_random", "length", map[string]cty.Value{"length": cty.NumberIntVal(maxRandomLength + 1)}},
		{"tether_random", "length", map[string]cty.Value{"length": cty.NumberFloatVal(2.5)}},
		{"tether_random", "characters", map[string]cty.Value{"length": cty.NumberIntVal(3), "characters": cty.StringVal("")}},
		{"tether_value", "delay_ms", map[string]cty.Value{"delay_ms": cty.NumberIntVal(-1)}},
	} {
		cfg := h.Config(tc.typeName, tc.attrs)
		providercheck.WantAttrError(t, h.Provider.ValidateResourceConfig(tc.typeName, cfg), tc.attr)
		// Values known only at plan time are checked there too.
		providercheck.WantAttrError(t, h.Plan(tc.typeName, nil, tc.attrs).Diagnostics, tc.attr)
	}
	providercheck.WantAttrError(t, h.Provider.ValidateDataSourceConfig("tether_file", h.DataConfig("tether_file", map[string]cty.Value{"path": cty.StringVal("")})), "path")

	for _, tc := range []struct {
		typeName string
		attrs    map[string]cty.Value
	}{
		{"tether_file", map[string]cty.Value{"path": cty.StringVal("a"), "content": cty.StringVal(""), "file_permission": cty.StringVal("0600")}},
		{"tether_file", map[string]cty.Value{"path": cty.UnknownVal(cty.String), "file_permission": cty.UnknownVal(cty.String)}},
		{"tether_random", map[string]cty.Value{"length": cty.NumberIntVal(maxRandomLength)}},
		{"tether_random", map[string]cty.Value{"length": cty.UnknownVal(cty.Number)}},
		{"tether_value", map[string]cty.Value{"delay_ms": cty.NumberIntVal(0)}},
	} {
		if diags := h.Provider.ValidateResourceConfig(tc.typeName, h.Config(tc.typeName, tc.attrs)); len(diags) != 0 {
			t.Errorf("%s %#v: unexpected diagnostics %s", tc.typeName, tc.attrs, diags.Error())
		}
	}
}

func TestUnsupportedTypes(t *testing.T) {
	p := New()
	if !p.ValidateResourceConfig("tether_nope", cty.EmptyObjectVal).HasErrors() {
		t.Error("unknown resource type validates")
	}
	if !p.ValidateDataSourceConfig("tether_random", cty.EmptyObjectVal).HasErrors() {
		t.Error("tether_random validates as a data source")
	}
	if !p.ImportResourceState(context.Background(), provider.ImportRequest{TypeName: "tether_random", ID: "x"}).Diagnostics.HasErrors() {
		t.Error("tether_random import claims to work")
	}
}

func TestUpgradeResourceState(t *testing.T) {
	p := New()
	ctx := context.Background()

	// Terraform's JSON state encoding, with a dynamically-typed input and an
	// attribute this schema does not have.
	raw := `{"id":"abc","input":{"value":{"k":[1,2]},"type":["object",{"k":["tuple",["number","number"]]}]},` +
		`"output":{"value":"x","type":"string"},"delay_ms":null,"retired":"gone"}`
	resp := p.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: "tether_value", RawStateJSON: []byte(raw)})
	providercheck.NoErrors(t, "upgrade", resp.Diagnostics)
	v := resp.UpgradedState
	if got := v.GetAttr("input").GetAttr("k").Index(cty.NumberIntVal(1)); !got.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("input.k[1] = %#v", got)
	}
	if v.GetAttr("id").AsString() != "abc" || v.GetAttr("output").AsString() != "x" {
		t.Fatalf("upgraded = %#v", v)
	}

	resp = p.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: "tether_value", Version: 7, RawStateJSON: []byte(raw)})
	if !resp.Diagnostics.HasErrors() {
		t.Fatal("state from a newer schema version is accepted")
	}
	resp = p.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: "tether_file", RawStateJSON: []byte(`{"path":`)})
	if !resp.Diagnostics.HasErrors() {
		t.Fatal("truncated JSON state is accepted")
	}
}

func TestSchemaDescribesEveryAttribute(t *testing.T) {
	s, _ := New().GetSchema()
	check := func(kind string, types *provider.Types) {
		m, err := types.All()
		if err != nil {
			t.Fatal(err)
		}
		for typeName, rs := range m {
			if rs.Block.Description == "" {
				t.Errorf("%s %s has no description", kind, typeName)
			}
			for name, a := range rs.Block.Attributes {
				if a.Description == "" {
					t.Errorf("%s %s.%s has no description", kind, typeName, name)
				}
			}
		}
	}
	check("resource", s.Resources)
	check("data source", s.DataSources)
}
