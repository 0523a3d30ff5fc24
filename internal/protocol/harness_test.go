package protocol_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"

	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/provider/tether"
)

// TestFileOverProtocol runs the expectations of tether_file (the same
// ones provider/tether runs in process) against the provider behind the
// protocol server.
func TestFileOverProtocol(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
		return providercheck.New(t, overProtocol(t, protocol.Server(tether.New())), nil)
	}, providercheck.FileScenarios...)
}

// TestValueOverProtocol runs the expectations of tether_value (the same
// ones provider/tether runs in process) against the provider behind the
// protocol server.
func TestValueOverProtocol(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
		return providercheck.New(t, overProtocol(t, protocol.Server(tether.New())), nil)
	}, providercheck.ValueScenarios...)
}

// TestFailuresOverProtocol runs the failure scenarios (the same ones
// provider/tether runs in process) against the provider behind the
// protocol server: concurrent calls and a cancelled apply; those about a
// plugin's process skip.
func TestFailuresOverProtocol(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
		h := providercheck.New(t, overProtocol(t, protocol.Server(providercheck.SignalApplies(tether.New()))), nil)
		h.SignalsApplies = true
		return h
	}, providercheck.FailureScenarios...)
}

// TestRuntimeOverProtocol runs the runtime's expectations (the same ones
// provider/tether runs in process) against the provider behind the
// protocol server, with this test binary as the function and the router.
func TestRuntimeOverProtocol(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the local runtime needs a Unix system")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
		dir := filepath.Join(t.TempDir(), "runtime")
		return providercheck.New(t, overProtocol(t, protocol.Server(tether.New())), map[string]cty.Value{"runtime_dir": cty.StringVal(dir)})
	}, providercheck.RuntimeScenarios(exe, "runtime", "echo")...)
}

// wire is a provider.Provider that makes every call through a protocol 6
// server, as Terraform would: values go as MessagePack written by go-cty,
// the codec Terraform itself uses, not by the package's own EncodeValue.
// It covers the calls the harness makes; any other panics.
type wire struct {
	provider.Provider // nil: the calls wire does not make
	t                 testing.TB
	srv               tfprotov6.ProviderServer
	schema            *provider.Schema
}

func overProtocol(t testing.TB, srv tfprotov6.ProviderServer) *wire {
	t.Helper()
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := &provider.Schema{}
	resources, dataSources := map[string]*provider.ResourceSchema{}, map[string]*provider.ResourceSchema{}
	from := func(ts *tfprotov6.Schema) *provider.ResourceSchema {
		rs, err := protocol.SchemaFromTF(ts)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	s.Provider = from(resp.Provider).Block
	for name, ts := range resp.ResourceSchemas {
		resources[name] = from(ts)
	}
	for name, ts := range resp.DataSourceSchemas {
		dataSources[name] = from(ts)
	}
	s.Resources, s.DataSources = provider.NewTypes(resources), provider.NewTypes(dataSources)
	return &wire{t: t, srv: srv, schema: s}
}

func (w *wire) GetSchema() (*provider.Schema, hcl.Diagnostics) { return w.schema, nil }

// encode writes v as a value of type ty, the schema's: where it has a
// dynamic type, the value carries its own.
func (w *wire) encode(v cty.Value, ty cty.Type) *tfprotov6.DynamicValue {
	w.t.Helper()
	b, err := ctymsgpack.Marshal(v, ty)
	if err != nil {
		w.t.Fatalf("encoding %#v: %v", v, err)
	}
	return &tfprotov6.DynamicValue{MsgPack: b}
}

func (w *wire) decode(dv *tfprotov6.DynamicValue, ty cty.Type) cty.Value {
	w.t.Helper()
	if dv == nil {
		return cty.NullVal(ty)
	}
	var v cty.Value
	var err error
	if dv.JSON != nil {
		v, err = ctyjson.Unmarshal(dv.JSON, ty)
	} else {
		v, err = ctymsgpack.Unmarshal(dv.MsgPack, ty)
	}
	if err != nil {
		w.t.Fatalf("decoding a %s: %v", ty.FriendlyName(), err)
	}
	return v
}

func (w *wire) resourceType(name string) cty.Type {
	return w.schemaOf(w.schema.Resources, name).Block.ImpliedType()
}

func (w *wire) dataSourceType(name string) cty.Type {
	return w.schemaOf(w.schema.DataSources, name).Block.ImpliedType()
}

func (w *wire) schemaOf(types *provider.Types, name string) *provider.ResourceSchema {
	w.t.Helper()
	rs, ok, err := types.Get(name)
	if err != nil || !ok {
		w.t.Fatalf("no schema of %s (%v)", name, err)
	}
	return rs
}

// fail fails the test on a transport error: the server answers every
// problem of the provider's with diagnostics.
func (w *wire) fail(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

func (w *wire) ValidateProviderConfig(config cty.Value) hcl.Diagnostics {
	resp, err := w.srv.ValidateProviderConfig(context.Background(), &tfprotov6.ValidateProviderConfigRequest{Config: w.encode(config, w.schema.Provider.ImpliedType())})
	w.fail(err)
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (w *wire) ConfigureProvider(ctx context.Context, config cty.Value) hcl.Diagnostics {
	resp, err := w.srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: w.encode(config, w.schema.Provider.ImpliedType())})
	w.fail(err)
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (w *wire) ValidateResourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	resp, err := w.srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: w.encode(config, w.resourceType(typeName))})
	w.fail(err)
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (w *wire) ValidateDataSourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	resp, err := w.srv.ValidateDataResourceConfig(context.Background(), &tfprotov6.ValidateDataResourceConfigRequest{TypeName: typeName, Config: w.encode(config, w.dataSourceType(typeName))})
	w.fail(err)
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (w *wire) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	ty := w.resourceType(req.TypeName)
	resp, err := w.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         req.TypeName,
		PriorState:       w.encode(req.PriorState, ty),
		ProposedNewState: w.encode(req.ProposedNewState, ty),
		Config:           w.encode(req.Config, ty),
		PriorPrivate:     req.PriorPrivate,
	})
	w.fail(err)
	out := provider.PlanResponse{
		PlannedState:     w.decode(resp.PlannedState, ty),
		PlannedPrivate:   resp.PlannedPrivate,
		Diagnostics:      protocol.DiagnosticsFromTF(resp.Diagnostics),
		LegacyTypeSystem: resp.UnsafeToUseLegacyTypeSystem,
	}
	for _, p := range resp.RequiresReplace {
		out.RequiresReplace = append(out.RequiresReplace, protocol.PathFromTF(p))
	}
	return out
}

func (w *wire) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	ty := w.resourceType(req.TypeName)
	resp, err := w.srv.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName:       req.TypeName,
		PriorState:     w.encode(req.PriorState, ty),
		PlannedState:   w.encode(req.PlannedState, ty),
		Config:         w.encode(req.Config, ty),
		PlannedPrivate: req.PlannedPrivate,
	})
	w.fail(err)
	return provider.ApplyResponse{
		NewState:         w.decode(resp.NewState, ty),
		Private:          resp.Private,
		Diagnostics:      protocol.DiagnosticsFromTF(resp.Diagnostics),
		LegacyTypeSystem: resp.UnsafeToUseLegacyTypeSystem,
	}
}

func (w *wire) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	ty := w.resourceType(req.TypeName)
	resp, err := w.srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
		TypeName:     req.TypeName,
		CurrentState: w.encode(req.PriorState, ty),
		Private:      req.Private,
	})
	w.fail(err)
	return provider.ReadResponse{
		NewState:    w.decode(resp.NewState, ty),
		Private:     resp.Private,
		Diagnostics: protocol.DiagnosticsFromTF(resp.Diagnostics),
	}
}

func (w *wire) ImportResourceState(ctx context.Context, req provider.ImportRequest) provider.ImportResponse {
	resp, err := w.srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: req.TypeName, ID: req.ID})
	w.fail(err)
	out := provider.ImportResponse{Diagnostics: protocol.DiagnosticsFromTF(resp.Diagnostics)}
	for _, r := range resp.ImportedResources {
		out.Imported = append(out.Imported, provider.ImportedResource{
			TypeName: r.TypeName,
			State:    w.decode(r.State, w.resourceType(r.TypeName)),
			Private:  r.Private,
		})
	}
	return out
}

func (w *wire) UpgradeResourceState(ctx context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	resp, err := w.srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: req.TypeName,
		Version:  req.Version,
		RawState: &tfprotov6.RawState{JSON: req.RawStateJSON},
	})
	w.fail(err)
	return provider.UpgradeResponse{
		UpgradedState: w.decode(resp.UpgradedState, w.resourceType(req.TypeName)),
		Diagnostics:   protocol.DiagnosticsFromTF(resp.Diagnostics),
	}
}

func (w *wire) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	resp, err := w.srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: req.TypeName, Config: w.encode(req.Config, w.dataSourceType(req.TypeName))})
	w.fail(err)
	return provider.ReadDataResponse{
		State:       w.decode(resp.State, w.dataSourceType(req.TypeName)),
		Diagnostics: protocol.DiagnosticsFromTF(resp.Diagnostics),
	}
}
