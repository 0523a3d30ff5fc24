package plugin

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// terraformVersion is what ConfigureProvider tells the provider it runs
// under. Providers put it in User-Agent strings and a few compare it with
// Terraform releases, so it must be a Terraform version, not Tether's: this
// is the release the protocol interop tests run against.
const terraformVersion = "1.11.4"

// The client capabilities Tether announces. Deferral is allowed: a
// deferred plan or read is planned again in the engine's next round (an
// import cannot be deferred, see deferredDiags). Write-only attributes are
// allowed: the engine holds providers to returning null for them and
// records null whatever they return.
const (
	deferralAllowed            = true
	writeOnlyAttributesAllowed = true
)

// Client is a provider.Provider backed by a plugin process, as StartWith
// returns it; its schema's Functions call the provider's functions. It is
// safe for concurrent use.
//
// Every field is set before StartWith returns and only read afterwards,
// except those guarded below, so calls need no lock: the gRPC connection
// serves any number of them at once.
type Client struct {
	path            string
	pid             int
	protocolVersion int
	proc            *goplugin.Client
	cmd             *exec.Cmd
	rpc             rpcClient
	exited          context.Context // done once the process has exited
	stderr          *stderrTail

	// life is the context of calls that take none (the Validate methods)
	// and of applies left to finish; Close cancels it.
	life      context.Context
	cancel    context.CancelFunc
	closed    atomic.Bool
	closeOnce sync.Once

	stopMu    sync.Mutex
	stopping  bool // a StopProvider call is in flight
	stopAgain bool // and another is wanted once it returns

	schema       *provider.Schema
	schemaDiags  hcl.Diagnostics
	providerType *protocol.ValueEncoder
	// encoders are the encoders of the resource, data source and
	// ephemeral types used, by *provider.Block (see encoderOf).
	encoders sync.Map
	// providerMeta is sent with every call that carries provider_meta;
	// nil when the provider declares no provider_meta schema.
	providerMeta *tfprotov6.DynamicValue
	planDestroy  bool
	// schemaFromCache is set when the schema came from StartOptions'
	// cache instead of the provider.
	schemaFromCache bool
}

var _ provider.Provider = (*Client)(nil)

// loadedSchema is what the client keeps of a GetProviderSchema response.
type loadedSchema struct {
	schema       *provider.Schema
	diags        hcl.Diagnostics
	providerType *protocol.ValueEncoder
	providerMeta *tfprotov6.DynamicValue
	planDestroy  bool
	// optional is the capability GetProviderSchemaOptional.
	optional bool
	// functions are the signatures of the provider's functions, by name,
	// each in the protocol's encoding for function to decode; a client
	// makes them functions that call it (see Client.functions).
	functions map[string][]byte
	function  func(wire []byte) (*tfprotov6.Function, error)
}

// loadSchema converts a schema for the client. It touches no client, so
// that a cached schema can be loaded while the plugin starts. The schemas
// of types are converted on first lookup (see provider.Types); one that
// cannot be converted is an error there, for the type that needs it.
func loadSchema(ws *wireSchema) *loadedSchema {
	resp := ws.head
	diags := protocol.DiagnosticsFromTF(resp.Diagnostics)
	sch := &provider.Schema{
		Provider:    &provider.Block{},
		Resources:   lazyTypes(ws.resources, ws.typeSchema),
		DataSources: lazyTypes(ws.dataSources, ws.typeSchema),
	}
	if len(ws.ephemeral) > 0 {
		sch.EphemeralResources = lazyTypes(ws.ephemeral, ws.typeSchema)
	}
	convert := func(what string, s *tfprotov6.Schema) *provider.ResourceSchema {
		rs, err := protocol.SchemaFromTF(s)
		if err != nil {
			diags = append(diags, diagnostic.Error("Invalid provider schema",
				fmt.Sprintf("The provider declared a schema for %s that Tether cannot use: %s.", what, err)))
		}
		return rs
	}
	if resp.Provider != nil {
		if rs := convert("the provider configuration", resp.Provider); rs != nil {
			sch.Provider = rs.Block
		}
	}
	ls := &loadedSchema{schema: sch, providerType: protocol.NewValueEncoder(sch.Provider.ImpliedType())}
	// Tether has no provider_meta blocks. Terraform sends a module without
	// one as a null of the declared type, and providers that declare the
	// schema decode whatever arrives with it, so send exactly that.
	if resp.ProviderMeta != nil && resp.ProviderMeta.Block != nil {
		if rs := convert("provider_meta", resp.ProviderMeta); rs != nil {
			ty := rs.Block.ImpliedType()
			if dv, err := protocol.EncodeValue(cty.NullVal(ty), ty); err == nil {
				ls.providerMeta = dv
			}
		}
	}
	if sc := resp.ServerCapabilities; sc != nil {
		ls.planDestroy, ls.optional = sc.PlanDestroy, sc.GetProviderSchemaOptional
	}
	ls.functions, ls.function = ws.functions, ws.function
	ls.diags = diags
	return ls
}

// lazyTypes holds the types of wire, by name, each decoded by typeSchema
// and converted on first lookup.
func lazyTypes(wire map[string][]byte, typeSchema func([]byte) (*tfprotov6.Schema, error)) *provider.Types {
	names := make([]string, 0, len(wire))
	for name := range wire {
		names = append(names, name)
	}
	return provider.LazyTypes(names, func(name string) (*provider.ResourceSchema, error) {
		s, err := typeSchema(wire[name])
		if err != nil {
			return nil, err
		}
		return protocol.SchemaFromTF(s)
	})
}

func (c *Client) useSchema(ls *loadedSchema) {
	sch := *ls.schema
	if len(ls.functions) > 0 {
		sch.Functions = c.functions(ls)
	}
	c.schema, c.schemaDiags = &sch, ls.diags
	c.providerType, c.providerMeta, c.planDestroy = ls.providerType, ls.providerMeta, ls.planDestroy
}

// GetSchema returns the schema read at start; callers must not modify it.
func (c *Client) GetSchema() (*provider.Schema, hcl.Diagnostics) {
	return c.schema, c.schemaDiags
}

func (c *Client) resourceType(name string) (*protocol.ValueEncoder, hcl.Diagnostics) {
	return c.typeOf(c.schema.Resources, "resource type", name)
}

func (c *Client) dataSourceType(name string) (*protocol.ValueEncoder, hcl.Diagnostics) {
	return c.typeOf(c.schema.DataSources, "data source type", name)
}

func (c *Client) ephemeralType(name string) (*protocol.ValueEncoder, hcl.Diagnostics) {
	return c.typeOf(c.schema.EphemeralResources, "ephemeral resource type", name)
}

// typeOf is the encoder of objects of the type name, one of types, a kind
// of type ("resource type"); its Type is theirs. An unknown type is an
// error, with an encoder of cty.DynamicPseudoType.
func (c *Client) typeOf(types *provider.Types, kind, name string) (*protocol.ValueEncoder, hcl.Diagnostics) {
	// Schemas are decoded, and types implied, on first use (and then kept):
	// the AWS provider has over two thousand, and a run uses a few.
	rs, ok, err := types.Get(name)
	switch {
	case err != nil:
		return dynamicEncoder, hcl.Diagnostics{diagnostic.Error("Invalid provider schema",
			fmt.Sprintf("The provider plugin %s declares %s %q, but %s.", c.path, kind, name, err))}
	case !ok:
		return dynamicEncoder, hcl.Diagnostics{diagnostic.Error("Unsupported "+kind,
			fmt.Sprintf("The provider plugin %s has no %s named %q.", c.path, kind, name))}
	}
	return c.encoderOf(rs.Block), nil
}

var dynamicEncoder = protocol.NewValueEncoder(cty.DynamicPseudoType)

// encoderOf is the encoder of objects of block b, made once per block:
// its per-type work (sorted attribute names, encoded keys) is then done
// once per run, not once per call.
func (c *Client) encoderOf(b *provider.Block) *protocol.ValueEncoder {
	if enc, ok := c.encoders.Load(b); ok {
		return enc.(*protocol.ValueEncoder)
	}
	enc, _ := c.encoders.LoadOrStore(b, protocol.NewValueEncoder(b.ImpliedType()))
	return enc.(*protocol.ValueEncoder)
}

func (c *Client) ValidateProviderConfig(config cty.Value) hcl.Diagnostics {
	var e encoder
	cfg := e.encode("provider configuration", config, c.providerType)
	if e.diags != nil {
		return e.diags
	}
	resp, err := c.rpc.ValidateProviderConfig(c.life, &tfprotov6.ValidateProviderConfigRequest{Config: cfg})
	if err != nil {
		return c.rpcDiags(c.life, "ValidateProviderConfig", err)
	}
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (c *Client) ValidateResourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	enc, diags := c.resourceType(typeName)
	return c.validateConfig("ValidateResourceConfig", c.rpc.ValidateResourceConfig, typeName, config, enc, diags)
}

func (c *Client) ValidateDataSourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	enc, diags := c.dataSourceType(typeName)
	return c.validateConfig("ValidateDataResourceConfig", c.rpc.ValidateDataResourceConfig, typeName, config, enc, diags)
}

func (c *Client) ValidateEphemeralConfig(typeName string, config cty.Value) hcl.Diagnostics {
	enc, diags := c.ephemeralType(typeName)
	return c.validateConfig("ValidateEphemeralResourceConfig", c.rpc.ValidateEphemeralResourceConfig, typeName, config, enc, diags)
}

// validateConfig sends the configuration of a resource or data source of
// type enc to method, unless looking the type up failed with lookupDiags.
func (c *Client) validateConfig(method string, call func(context.Context, string, *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error), typeName string, config cty.Value, enc *protocol.ValueEncoder, lookupDiags hcl.Diagnostics) hcl.Diagnostics {
	if lookupDiags != nil {
		return lookupDiags
	}
	var e encoder
	cfg := e.encode("configuration", config, enc)
	if e.diags != nil {
		return e.diags
	}
	diags, err := call(c.life, typeName, cfg)
	if err != nil {
		return c.rpcDiags(c.life, method, err)
	}
	return protocol.DiagnosticsFromTF(diags)
}

func (c *Client) ConfigureProvider(ctx context.Context, config cty.Value) hcl.Diagnostics {
	var e encoder
	cfg := e.encode("provider configuration", config, c.providerType)
	if e.diags != nil {
		return e.diags
	}
	resp, err := c.rpc.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: terraformVersion, Config: cfg})
	if err != nil {
		return c.rpcDiags(ctx, "ConfigureProvider", err)
	}
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

func (c *Client) UpgradeResourceState(ctx context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	enc, diags := c.resourceType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(ty), Diagnostics: diags}
	}
	resp, err := c.rpc.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: req.TypeName,
		Version:  req.Version,
		RawState: &tfprotov6.RawState{JSON: req.RawStateJSON},
	})
	if err != nil {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(ty), Diagnostics: c.rpcDiags(ctx, "UpgradeResourceState", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	v := c.decode("upgraded state", resp.UpgradedState, ty, &diags, cty.NullVal(ty))
	return provider.UpgradeResponse{UpgradedState: v, Diagnostics: diags}
}

func (c *Client) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	enc, diags := c.resourceType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: diags}
	}
	var e encoder
	preq := &tfprotov6.ReadResourceRequest{
		TypeName:     req.TypeName,
		CurrentState: e.encode("prior state", req.PriorState, enc),
		Private:      req.Private,
		ProviderMeta: c.providerMeta,
	}
	if e.diags != nil {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: e.diags}
	}
	resp, err := c.rpc.ReadResource(ctx, preq)
	if err != nil {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: c.rpcDiags(ctx, "ReadResource", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	if reason := deferredReason(resp.Deferred); reason != "" {
		return provider.ReadResponse{NewState: req.PriorState, Private: req.Private, Diagnostics: diags, Deferred: reason}
	}
	v := c.decode("refreshed state", resp.NewState, ty, &diags, req.PriorState)
	// A null state means the object is gone; one that comes with an error
	// (as SDKv2 providers send when a read fails) must not read as that.
	if diags.HasErrors() && isNull(v) {
		v = req.PriorState
	}
	return provider.ReadResponse{NewState: v, Private: resp.Private, Diagnostics: diags}
}

func (c *Client) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	enc, diags := c.resourceType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.PlanResponse{PlannedState: cty.NullVal(ty), Diagnostics: diags}
	}
	// Providers that do not announce PlanDestroy expect never to plan a
	// destroy; Terraform plans it for them, as this.
	if isNull(req.ProposedNewState) && !c.planDestroy {
		return provider.PlanResponse{PlannedState: cty.NullVal(ty), PlannedPrivate: req.PriorPrivate}
	}
	var e encoder
	preq := &tfprotov6.PlanResourceChangeRequest{
		TypeName:         req.TypeName,
		PriorState:       e.encode("prior state", req.PriorState, enc),
		ProposedNewState: e.encode("proposed new state", req.ProposedNewState, enc),
		Config:           e.encode("configuration", req.Config, enc),
		PriorPrivate:     req.PriorPrivate,
		ProviderMeta:     c.providerMeta,
	}
	if e.diags != nil {
		return provider.PlanResponse{PlannedState: cty.NullVal(ty), Diagnostics: e.diags}
	}
	resp, err := c.rpc.PlanResourceChange(ctx, preq)
	if err != nil {
		return provider.PlanResponse{PlannedState: cty.NullVal(ty), Diagnostics: c.rpcDiags(ctx, "PlanResourceChange", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	if reason := deferredReason(resp.Deferred); reason != "" {
		return provider.PlanResponse{PlannedState: cty.UnknownVal(ty), Diagnostics: diags, Deferred: reason}
	}
	out := provider.PlanResponse{
		PlannedState:     c.decode("planned state", resp.PlannedState, ty, &diags, cty.NullVal(ty)),
		PlannedPrivate:   resp.PlannedPrivate,
		LegacyTypeSystem: resp.UnsafeToUseLegacyTypeSystem,
	}
	for _, p := range resp.RequiresReplace {
		out.RequiresReplace = append(out.RequiresReplace, protocol.PathFromTF(p))
	}
	out.Diagnostics = diags
	return out
}

func (c *Client) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	enc, diags := c.resourceType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.ApplyResponse{NewState: req.PriorState, Diagnostics: diags}
	}
	// Whatever goes wrong before the provider answers, the object is as it
	// was: nothing for a create, the prior object otherwise.
	failed := req.PriorState
	if failed == cty.NilVal {
		failed = cty.NullVal(ty)
	}
	var e encoder
	preq := &tfprotov6.ApplyResourceChangeRequest{
		TypeName:       req.TypeName,
		PriorState:     e.encode("prior state", req.PriorState, enc),
		PlannedState:   e.encode("planned state", req.PlannedState, enc),
		Config:         e.encode("configuration", req.Config, enc),
		PlannedPrivate: req.PlannedPrivate,
		ProviderMeta:   c.providerMeta,
	}
	if e.diags != nil {
		return provider.ApplyResponse{NewState: failed, Diagnostics: e.diags}
	}
	if err := ctx.Err(); err != nil {
		return provider.ApplyResponse{NewState: failed, Diagnostics: c.rpcDiags(ctx, "ApplyResourceChange", err)}
	}
	resp, err := c.finish(ctx, func(ctx context.Context) (*tfprotov6.ApplyResourceChangeResponse, error) {
		return c.rpc.ApplyResourceChange(ctx, preq)
	})
	if err != nil {
		return provider.ApplyResponse{NewState: failed, Diagnostics: c.rpcDiags(c.life, "ApplyResourceChange", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	return provider.ApplyResponse{
		NewState:         c.decode("new state", resp.NewState, ty, &diags, failed),
		Private:          resp.Private,
		Diagnostics:      diags,
		LegacyTypeSystem: resp.UnsafeToUseLegacyTypeSystem,
	}
}

// finish runs an apply to completion even when ctx ends first: a provider
// that has started changing real infrastructure must be heard out, or the
// object it made is lost to state. When ctx ends, the provider is asked to
// stop instead, the protocol's way to interrupt an operation, and answers
// with what it got done. Only Close abandons the call.
func (c *Client) finish(ctx context.Context, call func(context.Context) (*tfprotov6.ApplyResourceChangeResponse, error)) (*tfprotov6.ApplyResourceChangeResponse, error) {
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	defer context.AfterFunc(ctx, c.requestStop)()
	return call(callCtx)
}

// requestStop sends StopProvider, coalescing requests: a stop cancels
// every operation in flight, so many cancelled applies need one call, plus
// one more for any cancelled while it was under way, which the provider may
// have begun after it stopped.
func (c *Client) requestStop() {
	c.stopMu.Lock()
	if c.stopping {
		c.stopAgain = true
		c.stopMu.Unlock()
		return
	}
	c.stopping = true
	c.stopMu.Unlock()
	go func() {
		for {
			// Nothing to do if it fails: the apply still ends, later.
			_ = c.rpc.StopProvider(c.life)
			c.stopMu.Lock()
			if !c.stopAgain {
				c.stopping = false
				c.stopMu.Unlock()
				return
			}
			c.stopAgain = false
			c.stopMu.Unlock()
		}
	}()
}

func (c *Client) ImportResourceState(ctx context.Context, req provider.ImportRequest) provider.ImportResponse {
	if _, diags := c.resourceType(req.TypeName); diags != nil {
		return provider.ImportResponse{Diagnostics: diags}
	}
	resp, err := c.rpc.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: req.TypeName, ID: req.ID})
	if err != nil {
		return provider.ImportResponse{Diagnostics: c.rpcDiags(ctx, "ImportResourceState", err)}
	}
	out := provider.ImportResponse{
		Diagnostics: append(protocol.DiagnosticsFromTF(resp.Diagnostics), deferredDiags(resp.Deferred)...),
	}
	for _, ir := range resp.ImportedResources {
		enc, diags := c.resourceType(ir.TypeName)
		ty := enc.Type()
		if diags != nil {
			out.Diagnostics = append(out.Diagnostics, diags...)
			continue
		}
		v := c.decode("imported state", ir.State, ty, &out.Diagnostics, cty.NilVal)
		if v == cty.NilVal {
			continue
		}
		out.Imported = append(out.Imported, provider.ImportedResource{TypeName: ir.TypeName, State: v, Private: ir.Private})
	}
	return out
}

// MoveResourceState asks the provider of the target type to convert an
// object recorded for another type. A provider older than the call (it
// answers Unimplemented) gets a diagnostic saying it cannot move objects
// between those types.
func (c *Client) MoveResourceState(ctx context.Context, req provider.MoveRequest) provider.MoveResponse {
	enc, diags := c.resourceType(req.TargetTypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.MoveResponse{TargetState: cty.NullVal(ty), Diagnostics: diags}
	}
	resp, err := c.rpc.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: req.SourceProviderAddress,
		SourceTypeName:        req.SourceTypeName,
		SourceSchemaVersion:   req.SourceSchemaVersion,
		SourceState:           &tfprotov6.RawState{JSON: req.SourceStateJSON},
		SourcePrivate:         req.SourcePrivate,
		TargetTypeName:        req.TargetTypeName,
	})
	if status.Code(err) == codes.Unimplemented {
		return provider.MoveResponse{TargetState: cty.NullVal(ty), Diagnostics: hcl.Diagnostics{diagnostic.Error("Move not supported",
			fmt.Sprintf("The provider plugin %s does not support moving resources of type %s to %s: it predates moves across resource types (Terraform 1.8). Upgrade the provider, or move the object by hand.", c.path, req.SourceTypeName, req.TargetTypeName))}}
	}
	if err != nil {
		return provider.MoveResponse{TargetState: cty.NullVal(ty), Diagnostics: c.rpcDiags(ctx, "MoveResourceState", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	v := c.decode("moved state", resp.TargetState, ty, &diags, cty.NullVal(ty))
	if !diags.HasErrors() && isNull(v) {
		diags = append(diags, diagnostic.Error("Provider produced an invalid moved state",
			fmt.Sprintf("The provider plugin %s answered the move of a %s object to %s with no object and no error. This is a bug in the provider.", c.path, req.SourceTypeName, req.TargetTypeName)))
	}
	return provider.MoveResponse{TargetState: v, TargetPrivate: resp.TargetPrivate, Diagnostics: diags}
}

func (c *Client) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	enc, diags := c.dataSourceType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.ReadDataResponse{State: cty.NullVal(ty), Diagnostics: diags}
	}
	var e encoder
	preq := &tfprotov6.ReadDataSourceRequest{
		TypeName:     req.TypeName,
		Config:       e.encode("configuration", req.Config, enc),
		ProviderMeta: c.providerMeta,
	}
	if e.diags != nil {
		return provider.ReadDataResponse{State: cty.NullVal(ty), Diagnostics: e.diags}
	}
	resp, err := c.rpc.ReadDataSource(ctx, preq)
	if err != nil {
		return provider.ReadDataResponse{State: cty.NullVal(ty), Diagnostics: c.rpcDiags(ctx, "ReadDataSource", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	if reason := deferredReason(resp.Deferred); reason != "" {
		return provider.ReadDataResponse{State: cty.UnknownVal(ty), Diagnostics: diags, Deferred: reason}
	}
	return provider.ReadDataResponse{
		State:       c.decode("data source state", resp.State, ty, &diags, cty.NullVal(ty)),
		Diagnostics: diags,
	}
}

func (c *Client) OpenEphemeral(ctx context.Context, req provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	enc, diags := c.ephemeralType(req.TypeName)
	ty := enc.Type()
	if diags != nil {
		return provider.OpenEphemeralResponse{Result: cty.NullVal(ty), Diagnostics: diags}
	}
	var e encoder
	preq := &tfprotov6.OpenEphemeralResourceRequest{TypeName: req.TypeName, Config: e.encode("configuration", req.Config, enc)}
	if e.diags != nil {
		return provider.OpenEphemeralResponse{Result: cty.NullVal(ty), Diagnostics: e.diags}
	}
	resp, err := c.rpc.OpenEphemeralResource(ctx, preq)
	if err != nil {
		return provider.OpenEphemeralResponse{Result: cty.NullVal(ty), Diagnostics: c.rpcDiags(ctx, "OpenEphemeralResource", err)}
	}
	diags = protocol.DiagnosticsFromTF(resp.Diagnostics)
	if reason := deferredReason(resp.Deferred); reason != "" {
		return provider.OpenEphemeralResponse{Result: cty.UnknownVal(ty), Diagnostics: diags, Deferred: reason}
	}
	return provider.OpenEphemeralResponse{
		Result:      c.decode("ephemeral resource result", resp.Result, ty, &diags, cty.NullVal(ty)),
		Private:     resp.Private,
		RenewAt:     resp.RenewAt,
		Diagnostics: diags,
	}
}

func (c *Client) RenewEphemeral(ctx context.Context, req provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	resp, err := c.rpc.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: req.TypeName, Private: req.Private})
	if err != nil {
		return provider.RenewEphemeralResponse{Diagnostics: c.rpcDiags(ctx, "RenewEphemeralResource", err)}
	}
	return provider.RenewEphemeralResponse{Private: resp.Private, RenewAt: resp.RenewAt, Diagnostics: protocol.DiagnosticsFromTF(resp.Diagnostics)}
}

func (c *Client) CloseEphemeral(ctx context.Context, req provider.CloseEphemeralRequest) hcl.Diagnostics {
	resp, err := c.rpc.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: req.TypeName, Private: req.Private})
	if err != nil {
		return c.rpcDiags(ctx, "CloseEphemeralResource", err)
	}
	return protocol.DiagnosticsFromTF(resp.Diagnostics)
}

// encoder encodes the values of one call, keeping the first failure so
// that each method checks once.
type encoder struct {
	diags hcl.Diagnostics
}

func (e *encoder) encode(what string, v cty.Value, enc *protocol.ValueEncoder) *tfprotov6.DynamicValue {
	if e.diags != nil {
		return nil
	}
	dv, err := enc.Encode(v)
	if err != nil {
		e.diags = hcl.Diagnostics{diagnostic.Error("Invalid value for provider",
			fmt.Sprintf("The %s does not conform to the provider's schema and cannot be sent: %s.", what, err))}
	}
	return dv
}

// decode decodes a value the provider returned, appending to diags and
// returning fallback if it does not fit the provider's own schema.
func (c *Client) decode(what string, dv *tfprotov6.DynamicValue, ty cty.Type, diags *hcl.Diagnostics, fallback cty.Value) cty.Value {
	v, err := protocol.DecodeValue(dv, ty)
	if err != nil {
		*diags = append(*diags, diagnostic.Error("Provider produced invalid response",
			fmt.Sprintf("The provider plugin %s returned a %s that does not conform to its own schema: %s. This is a bug in the provider.", c.path, what, err)))
		return fallback
	}
	return v
}

// deferredDiags rejects the deferral of an import, which the engine
// cannot put off: it adopts an object the user named now.
func deferredDiags(d *tfprotov6.Deferred) hcl.Diagnostics {
	if d == nil {
		return nil
	}
	return hcl.Diagnostics{diagnostic.Error("Provider deferred the import",
		fmt.Sprintf("The provider cannot import this object yet (%s). Make what it waits for known first, then import.", deferredReason(d)))}
}

// deferredReason says in words why a provider deferred a call, "" when it
// did not.
func deferredReason(d *tfprotov6.Deferred) string {
	if d == nil {
		return ""
	}
	switch d.Reason {
	case tfprotov6.DeferredReasonResourceConfigUnknown:
		return "its configuration is not known yet"
	case tfprotov6.DeferredReasonProviderConfigUnknown:
		return "its provider's configuration is not known yet"
	case tfprotov6.DeferredReasonAbsentPrereq:
		return "something it needs does not exist yet"
	}
	return "for a reason it did not give"
}

// rpcDiags explains a call that got no answer.
func (c *Client) rpcDiags(ctx context.Context, method string, err error) hcl.Diagnostics {
	switch {
	case c.closed.Load():
		return hcl.Diagnostics{diagnostic.Error("Provider plugin closed",
			fmt.Sprintf("The provider plugin %s was shut down before it answered %s.", c.path, method))}
	case ctx.Err() != nil:
		return hcl.Diagnostics{diagnostic.Error("Provider call cancelled",
			fmt.Sprintf("%s was cancelled before the provider plugin %s answered: %s.", method, c.path, context.Cause(ctx)))}
	case c.exitedAfter(err):
		detail := fmt.Sprintf("The provider plugin %s exited while Tether waited for its answer to %s. This is a bug in the provider, unless something else killed it.", c.path, method)
		if out := c.stderr.String(); out != "" {
			detail += " Its last output was:\n\n" + out
		}
		return hcl.Diagnostics{diagnostic.Error("Provider plugin crashed", detail)}
	}
	return hcl.Diagnostics{diagnostic.Error("Provider plugin did not respond",
		fmt.Sprintf("%s to the provider plugin %s failed: %s.", method, c.path, status.Convert(err).Message()))}
}

// exitedAfter reports whether the plugin process has exited. A crash
// reaches the caller as a broken connection a moment before go-plugin
// reaps the process, so an unavailable server gets that moment.
func (c *Client) exitedAfter(err error) bool {
	select {
	case <-c.exited.Done():
		return true
	default:
	}
	if status.Code(err) != codes.Unavailable {
		return false
	}
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-c.exited.Done():
		return true
	case <-t.C:
		return false
	}
}

func isNull(v cty.Value) bool {
	return v == cty.NilVal || v.IsNull()
}
