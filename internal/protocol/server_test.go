package protocol_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/provider/tether"
)

// The values in these tests are built and read with terraform-plugin-go's
// own tftypes codec, not with the package's cty codecs, so they check
// that both ends agree on the encoding Terraform uses.

type fixture struct {
	t       *testing.T
	srv     tfprotov6.ProviderServer
	schemas *tfprotov6.GetProviderSchemaResponse
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv := protocol.Server(tether.New())
	ctx := context.Background()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "GetProviderSchema", schemas.Diagnostics)
	// The provider's only setting, runtime_dir, left out as in a
	// configuration without a provider block.
	cfg := dynamic(t, schemas.Provider.ValueType(), tftypes.NewValue(schemas.Provider.ValueType(), map[string]tftypes.Value{
		"runtime_dir": tftypes.NewValue(tftypes.String, nil),
	}))
	cr, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "ConfigureProvider", cr.Diagnostics)
	return &fixture{t: t, srv: srv, schemas: schemas}
}

func (f *fixture) resourceType(name string) tftypes.Object {
	f.t.Helper()
	s, ok := f.schemas.ResourceSchemas[name]
	if !ok {
		f.t.Fatalf("no schema for %s", name)
	}
	return s.ValueType().(tftypes.Object)
}

// object builds a value of ty, null wherever attrs has nothing.
func object(ty tftypes.Object, attrs map[string]tftypes.Value) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(ty.AttributeTypes))
	for name, at := range ty.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(ty, vals)
}

func dynamic(t *testing.T, ty tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(ty, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func attrs(t *testing.T, dv *tfprotov6.DynamicValue, ty tftypes.Type) map[string]tftypes.Value {
	t.Helper()
	if dv == nil {
		t.Fatal("no value in response")
	}
	v, err := dv.Unmarshal(ty)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsNull() {
		return nil
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func asString(t *testing.T, v tftypes.Value) string {
	t.Helper()
	var s string
	if err := v.As(&s); err != nil {
		t.Fatalf("%s: %s", v, err)
	}
	return s
}

func noDiags(t *testing.T, what string, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		t.Errorf("%s: %s: %s: %s", what, d.Severity, d.Summary, d.Detail)
	}
	if t.Failed() {
		t.FailNow()
	}
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func TestSchemaOverProtocol(t *testing.T) {
	f := newFixture(t)
	file := f.schemas.ResourceSchemas["tether_file"]
	var names []string
	for _, a := range file.Block.Attributes {
		names = append(names, a.Name)
		if a.Description == "" {
			t.Errorf("tether_file.%s has no description", a.Name)
		}
	}
	want := []string{"content", "file_permission", "id", "path", "sha256"}
	if len(names) != len(want) {
		t.Fatalf("tether_file attributes = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("tether_file attributes = %v, want %v in that order", names, want)
		}
	}
	path := file.Block.Attributes[3]
	if !path.Required || !path.Type.Is(tftypes.String) {
		t.Errorf("tether_file.path = %+v", path)
	}
	perm := file.Block.Attributes[1]
	if !perm.Optional || !perm.Computed {
		t.Errorf("tether_file.file_permission = %+v, want optional and computed", perm)
	}

	val := f.resourceType("tether_value")
	if !val.AttributeTypes["input"].Is(tftypes.DynamicPseudoType) || !val.AttributeTypes["output"].Is(tftypes.DynamicPseudoType) {
		t.Errorf("tether_value types = %s", val)
	}
	if !f.resourceType("tether_random").AttributeTypes["keepers"].Equal(tftypes.Map{ElementType: tftypes.String}) {
		t.Errorf("tether_random.keepers is not map(string)")
	}
	if _, ok := f.schemas.DataSourceSchemas["tether_file"]; !ok {
		t.Error("data source tether_file missing")
	}

	md, err := f.srv.GetMetadata(context.Background(), &tfprotov6.GetMetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// The metadata lists exactly the provider's resource types, in name
	// order.
	schema, _ := tether.New().GetSchema()
	wantTypes := schema.Resources.Names()
	var gotTypes []string
	for _, r := range md.Resources {
		gotTypes = append(gotTypes, r.TypeName)
	}
	if strings.Join(gotTypes, ",") != strings.Join(wantTypes, ",") {
		t.Errorf("metadata resources = %v, want %v", gotTypes, wantTypes)
	}
	if len(md.DataSources) != 1 || md.DataSources[0].TypeName != "tether_file" {
		t.Errorf("metadata data sources = %+v", md.DataSources)
	}
}

func TestReplacementOverProtocol(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ty := f.resourceType("tether_random")
	prior := object(ty, map[string]tftypes.Value{
		"length":     tftypes.NewValue(tftypes.Number, 8),
		"characters": str("ab"),
		"result":     str("abababab"),
		"id":         str("0011223344556677"),
	})
	cfg := object(ty, map[string]tftypes.Value{
		"length":     tftypes.NewValue(tftypes.Number, 9),
		"characters": str("ab"),
	})
	pr, err := f.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "tether_random",
		PriorState:       dynamic(t, ty, prior),
		ProposedNewState: dynamic(t, ty, cfg),
		Config:           dynamic(t, ty, cfg),
	})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 1 || !pr.RequiresReplace[0].Equal(tftypes.NewAttributePath().WithAttributeName("length")) {
		t.Fatalf("RequiresReplace = %v, want [length]", pr.RequiresReplace)
	}
	if attrs(t, pr.PlannedState, ty)["result"].IsKnown() {
		t.Fatal("result stays known although the string is replaced")
	}
}

func TestDynamicValuesOverProtocol(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ty := f.resourceType("tether_value")
	null := tftypes.NewValue(ty, nil)
	inTy := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String, "ports": tftypes.List{ElementType: tftypes.Number}}}
	plan := func(input tftypes.Value) map[string]tftypes.Value {
		t.Helper()
		cfg := object(ty, map[string]tftypes.Value{"input": input})
		pr, err := f.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName:         "tether_value",
			PriorState:       dynamic(t, ty, null),
			ProposedNewState: dynamic(t, ty, cfg),
			Config:           dynamic(t, ty, cfg),
		})
		if err != nil {
			t.Fatal(err)
		}
		noDiags(t, "plan", pr.Diagnostics)
		return attrs(t, pr.PlannedState, ty)
	}

	known := tftypes.NewValue(inTy, map[string]tftypes.Value{
		"name":  str("web"),
		"ports": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 443)}),
	})
	planned := plan(known)
	if !planned["output"].Equal(known) {
		t.Fatalf("planned output = %s, want the input %s", planned["output"], known)
	}
	if planned["id"].IsKnown() {
		t.Fatal("id is known before creation")
	}

	partial := tftypes.NewValue(inTy, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"ports": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, nil),
	})
	if out := plan(partial)["output"]; out.IsKnown() {
		t.Fatalf("planned output %s is known although the input is not", out)
	}
}

func TestValidationDiagnosticOverProtocol(t *testing.T) {
	f := newFixture(t)
	ty := f.resourceType("tether_file")
	cfg := object(ty, map[string]tftypes.Value{"path": str("x"), "content": str("y"), "file_permission": str("0888")})
	vr, err := f.srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: "tether_file", Config: dynamic(t, ty, cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(vr.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %v", vr.Diagnostics)
	}
	d := vr.Diagnostics[0]
	if d.Severity != tfprotov6.DiagnosticSeverityError || d.Summary != "Invalid attribute value" {
		t.Errorf("diagnostic = %+v", d)
	}
	if !d.Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("file_permission")) {
		t.Errorf("diagnostic attribute = %s", d.Attribute)
	}
}

func TestDataSourceOverProtocol(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ty := f.schemas.DataSourceSchemas["tether_file"].ValueType().(tftypes.Object)
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte("read me"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr, err := f.srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "tether_file", Config: dynamic(t, ty, object(ty, map[string]tftypes.Value{"path": str(path)}))})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "read", rr.Diagnostics)
	if got := asString(t, attrs(t, rr.State, ty)["content"]); got != "read me" {
		t.Fatalf("content = %q", got)
	}

	missing := path + ".missing"
	rr, err = f.srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "tether_file", Config: dynamic(t, ty, object(ty, map[string]tftypes.Value{"path": str(missing)}))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Diagnostics) == 0 || rr.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
		t.Fatalf("reading a missing file: diagnostics %v", rr.Diagnostics)
	}
}

func TestUpgradeStateOverProtocol(t *testing.T) {
	f := newFixture(t)
	ty := f.resourceType("tether_random")
	raw := []byte(`{"length":4,"characters":"ab","keepers":{"k":"v"},"result":"abba","id":"00"}`)
	ur, err := f.srv.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "tether_random", RawState: &tfprotov6.RawState{JSON: raw},
	})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "upgrade", ur.Diagnostics)
	if got := asString(t, attrs(t, ur.UpgradedState, ty)["result"]); got != "abba" {
		t.Fatalf("upgraded result = %q", got)
	}

	ur, err = f.srv.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "tether_random", RawState: &tfprotov6.RawState{Flatmap: map[string]string{"id": "x"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ur.Diagnostics) == 0 {
		t.Fatal("flatmap state from Terraform 0.11 is accepted")
	}
}

func TestUnsupportedCallsAnswerWithDiagnostics(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	vr, err := f.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "tether_nope"})
	if err != nil || len(vr.Diagnostics) == 0 {
		t.Errorf("unknown resource type: err %v, diagnostics %v", err, vr.Diagnostics)
	}
	cr, err := f.srv.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: "nope"})
	if err != nil || cr.Error == nil {
		t.Errorf("CallFunction: err %v, function error %v", err, cr.Error)
	}
	ls, err := f.srv.(tfprotov6.ProviderServerWithListResource).ListResource(ctx, &tfprotov6.ListResourceRequest{TypeName: "tether_file"})
	if err != nil {
		t.Fatal(err)
	}
	var results int
	for r := range ls.Results {
		results++
		if len(r.Diagnostics) == 0 {
			t.Error("list result without a diagnostic")
		}
	}
	if results != 1 {
		t.Errorf("ListResource yielded %d results, want 1 carrying the diagnostic", results)
	}
}
