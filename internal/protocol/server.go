package protocol

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"google.golang.org/grpc"
)

// Address is the built-in provider's address in the Terraform registry
// namespace, the name Terraform knows it by.
const Address = "registry.terraform.io/tetherhq/tether"

// Serve runs a plugin server for the provider p returns, speaking protocol
// version 6 to the Terraform process that started this one, until
// Terraform closes the connection. name is the provider's full address,
// such as Address.
//
// It is tf6server.Serve's set-up (the handshake, terraform-plugin-go's
// request handling and its 256 MiB message limit) with two changes for
// the thousands of small calls of a large apply, each of which allocates
// a few kilobytes that are garbage once it is answered (terraform-plugin-go
// alone builds three loggers a call):
//
//   - a pool of gRPC stream workers: by default gRPC starts a goroutine
//     for each call, whose stack then grows by copying; a worker keeps its
//     grown stack from call to call;
//   - the garbage collector runs at a fifth of its default frequency
//     (GOGC=400) unless GOGC is set: the server's live heap is small (the
//     schema and the calls in flight), so with the default it collected
//     every few milliseconds, shrinking the workers' stacks each time, and
//     collection and stack copying took a quarter of its CPU. The heap may
//     grow to five times the live data instead of twice.
func Serve(name string, p func() provider.Provider) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion:  6,
			MagicCookieKey:   "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		},
		Plugins: goplugin.PluginSet{
			"provider": &tf6server.GRPCProviderPlugin{
				GRPCProvider: func() tfprotov6.ProviderServer { return Server(p()) },
				Name:         name,
			},
		},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts,
				grpc.MaxRecvMsgSize(maxMessageSize),
				grpc.MaxSendMsgSize(maxMessageSize),
				// Experimental in grpc-go. Calls beyond the busy workers
				// still get a goroutine each, so the pool is sized for the
				// engine's usual number of calls in flight.
				grpc.NumStreamWorkers(streamWorkers),
			)...)
		},
	})
	return nil
}

// maxMessageSize is tf6server's limit on a message either way, and
// Terraform's.
const maxMessageSize = 256 << 20

// serveGCPercent is Serve's GOGC.
const serveGCPercent = 400

// streamWorkers is the size of Serve's pool of gRPC stream workers.
const streamWorkers = 256

// Server adapts p to the protocol. The result also implements the list
// resource, action and state store servers, answering each call with an
// "unsupported" diagnostic.
func Server(p provider.Provider) tfprotov6.ProviderServer {
	return &server{p: p}
}

type server struct {
	p provider.Provider

	// The schema is read once: it is fixed for the life of a provider and
	// every call needs the types it implies to decode its values.
	once         sync.Once
	schemaResp   tfprotov6.GetProviderSchemaResponse
	schemaFailed bool
	providerType cty.Type
	resTypes     map[string]cty.Type
	dataTypes    map[string]cty.Type
	funcs        map[string]function.Function
}

func (s *server) load() {
	s.once.Do(func() {
		sch, diags := s.p.GetSchema()
		if sch == nil {
			sch = &provider.Schema{}
		}
		s.providerType = sch.Provider.ImpliedType()
		// The server serves the whole schema, so it decodes every type.
		all := func(what string, types *provider.Types) map[string]*provider.ResourceSchema {
			m, err := types.All()
			if err != nil {
				diags = append(diags, diagnostic.Wrap("Invalid provider schema", "reading the schemas of "+what, err))
			}
			return m
		}
		resources, dataSources := all("resource types", sch.Resources), all("data sources", sch.DataSources)
		s.resTypes = make(map[string]cty.Type, len(resources))
		s.dataTypes = make(map[string]cty.Type, len(dataSources))

		resp := tfprotov6.GetProviderSchemaResponse{
			ServerCapabilities:       serverCapabilities(),
			ResourceSchemas:          make(map[string]*tfprotov6.Schema, len(resources)),
			DataSourceSchemas:        make(map[string]*tfprotov6.Schema, len(dataSources)),
			Functions:                map[string]*tfprotov6.Function{},
			EphemeralResourceSchemas: map[string]*tfprotov6.Schema{},
			ListResourceSchemas:      map[string]*tfprotov6.Schema{},
			ActionSchemas:            map[string]*tfprotov6.ActionSchema{},
			StateStoreSchemas:        map[string]*tfprotov6.Schema{},
		}
		convert := func(what string, rs *provider.ResourceSchema) *tfprotov6.Schema {
			ts, err := SchemaToTF(rs)
			if err != nil {
				diags = append(diags, diagnostic.Wrap("Invalid provider schema", "expressing the schema of "+what+" in the plugin protocol", err))
			}
			return ts
		}
		resp.Provider = convert("the provider configuration", &provider.ResourceSchema{Block: sch.Provider})
		for name, rs := range resources {
			resp.ResourceSchemas[name] = convert("resource type "+name, rs)
			s.resTypes[name] = rs.Block.ImpliedType()
		}
		for name, rs := range dataSources {
			resp.DataSourceSchemas[name] = convert("data source "+name, rs)
			s.dataTypes[name] = rs.Block.ImpliedType()
		}
		funcs, err := sch.Functions.All()
		if err != nil {
			diags = append(diags, diagnostic.Wrap("Invalid provider schema", "reading the provider's functions", err))
		}
		s.funcs = funcs
		for name, f := range funcs {
			tf, err := FunctionToTF(f)
			if err != nil {
				diags = append(diags, diagnostic.Wrap("Invalid provider schema", "expressing the function "+name+" in the plugin protocol", err))
				continue
			}
			resp.Functions[name] = tf
		}
		resp.Diagnostics = DiagnosticsToTF(diags)
		s.schemaFailed = diags.HasErrors()
		s.schemaResp = resp
	})
}

func serverCapabilities() *tfprotov6.ServerCapabilities {
	// PlanDestroy: provider.Provider is asked to plan destroys too, and
	// answers them with a null planned state.
	// MoveResourceState: provider.Provider answers every move, those it
	// does not support with a diagnostic, so Terraform may always ask.
	return &tfprotov6.ServerCapabilities{PlanDestroy: true, MoveResourceState: true}
}

func (s *server) resourceType(name string) (cty.Type, []*tfprotov6.Diagnostic) {
	s.load()
	if ty, ok := s.resTypes[name]; ok {
		return ty, nil
	}
	return cty.NilType, errDiag("Unsupported resource type", fmt.Sprintf("This provider has no resource type named %q.", name))
}

func (s *server) dataSourceType(name string) (cty.Type, []*tfprotov6.Diagnostic) {
	s.load()
	if ty, ok := s.dataTypes[name]; ok {
		return ty, nil
	}
	return cty.NilType, errDiag("Unsupported data source type", fmt.Sprintf("This provider has no data source type named %q.", name))
}

// errDiag is one error diagnostic of internal/diagnostic's vocabulary (a
// fixed summary, the specifics in detail), as the protocol carries it.
func errDiag(summary, detail string) []*tfprotov6.Diagnostic {
	return DiagnosticsToTF(hcl.Diagnostics{diagnostic.Error(summary, detail)})
}

// decodeDiag is the error for a value of a request (what: "prior state",
// "configuration") that does not decode with the schema.
func decodeDiag(what string, err error) []*tfprotov6.Diagnostic {
	return errDiag("Invalid value in request", diagnostic.Failed("decoding the "+what+" the provider received", err))
}

// encodeDiag is the error for a value of a response that does not encode
// with the provider's own schema: a bug in the provider.
func encodeDiag(what string, err error) []*tfprotov6.Diagnostic {
	return errDiag("Provider produced an invalid value",
		diagnostic.Failed("encoding the "+what+" with the provider's own schema", err)+" This is a bug in the provider.")
}

// decoder decodes several values of one call, remembering the first
// failure so that each method checks once.
type decoder struct {
	diags []*tfprotov6.Diagnostic
}

func (d *decoder) decode(what string, dv *tfprotov6.DynamicValue, ty cty.Type) cty.Value {
	if d.diags != nil {
		return cty.NullVal(ty)
	}
	v, err := DecodeValue(dv, ty)
	if err != nil {
		d.diags = decodeDiag(what, err)
		return cty.NullVal(ty)
	}
	return v
}

// encode appends to diags rather than replacing them: the provider's own
// diagnostics usually explain why its value is odd.
func encode(what string, v cty.Value, ty cty.Type, diags *[]*tfprotov6.Diagnostic) *tfprotov6.DynamicValue {
	dv, err := EncodeValue(v, ty)
	if err != nil {
		*diags = append(*diags, encodeDiag(what, err)...)
		return nil
	}
	return dv
}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	s.load()
	resp := &tfprotov6.GetMetadataResponse{
		ServerCapabilities: serverCapabilities(),
		Diagnostics:        s.schemaResp.Diagnostics,
	}
	for _, name := range sortedKeys(s.resTypes) {
		resp.Resources = append(resp.Resources, tfprotov6.ResourceMetadata{TypeName: name})
	}
	for _, name := range sortedKeys(s.dataTypes) {
		resp.DataSources = append(resp.DataSources, tfprotov6.DataSourceMetadata{TypeName: name})
	}
	for name := range s.schemaResp.Functions {
		resp.Functions = append(resp.Functions, tfprotov6.FunctionMetadata{Name: name})
	}
	sort.Slice(resp.Functions, func(i, j int) bool { return resp.Functions[i].Name < resp.Functions[j].Name })
	return resp, nil
}

func sortedKeys(m map[string]cty.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	s.load()
	resp := s.schemaResp
	return &resp, nil
}

func (s *server) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov6.GetResourceIdentitySchemasResponse{IdentitySchemas: map[string]*tfprotov6.ResourceIdentitySchema{}}, nil
}

func (s *server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	s.load()
	var d decoder
	cfg := d.decode("provider configuration", req.Config, s.providerType)
	if d.diags != nil {
		return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: d.diags}, nil
	}
	return &tfprotov6.ValidateProviderConfigResponse{
		PreparedConfig: req.Config,
		Diagnostics:    DiagnosticsToTF(s.p.ValidateProviderConfig(cfg)),
	}, nil
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	s.load()
	if s.schemaFailed {
		return &tfprotov6.ConfigureProviderResponse{Diagnostics: s.schemaResp.Diagnostics}, nil
	}
	var d decoder
	cfg := d.decode("provider configuration", req.Config, s.providerType)
	if d.diags != nil {
		return &tfprotov6.ConfigureProviderResponse{Diagnostics: d.diags}, nil
	}
	return &tfprotov6.ConfigureProviderResponse{Diagnostics: DiagnosticsToTF(s.p.ConfigureProvider(ctx, cfg))}, nil
}

// StopProvider has nothing to do: tf6server cancels the context of every
// call in flight when Terraform asks to stop, and provider.Provider
// operations honour their context.
func (s *server) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return &tfprotov6.StopProviderResponse{}, nil
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	ty, diags := s.resourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diags}, nil
	}
	var d decoder
	cfg := d.decode("configuration", req.Config, ty)
	if d.diags != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: d.diags}, nil
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: DiagnosticsToTF(s.p.ValidateResourceConfig(req.TypeName, cfg))}, nil
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	ty, diags := s.resourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: diags}, nil
	}
	if req.RawState == nil || req.RawState.JSON == nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errDiag("Unsupported stored state",
			"Only state written by Terraform 0.12 or later, in JSON, can be upgraded; this object has none.")}, nil
	}
	r := s.p.UpgradeResourceState(ctx, provider.UpgradeRequest{
		TypeName:     req.TypeName,
		Version:      req.Version,
		RawStateJSON: req.RawState.JSON,
	})
	resp := &tfprotov6.UpgradeResourceStateResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics)}
	resp.UpgradedState = encode("upgraded state", r.UpgradedState, ty, &resp.Diagnostics)
	return resp, nil
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	ty, diags := s.resourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: diags}, nil
	}
	var d decoder
	prior := d.decode("current state", req.CurrentState, ty)
	if d.diags != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: d.diags}, nil
	}
	r := s.p.ReadResource(ctx, provider.ReadRequest{TypeName: req.TypeName, PriorState: prior, Private: req.Private})
	resp := &tfprotov6.ReadResourceResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics), Private: r.Private}
	resp.NewState = encode("refreshed state", r.NewState, ty, &resp.Diagnostics)
	return resp, nil
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	ty, diags := s.resourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: diags}, nil
	}
	var d decoder
	prior := d.decode("prior state", req.PriorState, ty)
	proposed := d.decode("proposed new state", req.ProposedNewState, ty)
	cfg := d.decode("configuration", req.Config, ty)
	if d.diags != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: d.diags}, nil
	}
	r := s.p.PlanResourceChange(ctx, provider.PlanRequest{
		TypeName:         req.TypeName,
		PriorState:       prior,
		ProposedNewState: proposed,
		Config:           cfg,
		PriorPrivate:     req.PriorPrivate,
	})
	resp := &tfprotov6.PlanResourceChangeResponse{
		Diagnostics:    DiagnosticsToTF(r.Diagnostics),
		PlannedPrivate: r.PlannedPrivate,
	}
	for _, p := range r.RequiresReplace {
		resp.RequiresReplace = append(resp.RequiresReplace, PathToTF(p))
	}
	resp.PlannedState = encode("planned state", r.PlannedState, ty, &resp.Diagnostics)
	return resp, nil
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	ty, diags := s.resourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: diags}, nil
	}
	var d decoder
	prior := d.decode("prior state", req.PriorState, ty)
	planned := d.decode("planned state", req.PlannedState, ty)
	cfg := d.decode("configuration", req.Config, ty)
	if d.diags != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: d.diags}, nil
	}
	r := s.p.ApplyResourceChange(ctx, provider.ApplyRequest{
		TypeName:       req.TypeName,
		PriorState:     prior,
		PlannedState:   planned,
		Config:         cfg,
		PlannedPrivate: req.PlannedPrivate,
	})
	resp := &tfprotov6.ApplyResourceChangeResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics), Private: r.Private}
	resp.NewState = encode("new state", r.NewState, ty, &resp.Diagnostics)
	return resp, nil
}

func (s *server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	if _, diags := s.resourceType(req.TypeName); diags != nil {
		return &tfprotov6.ImportResourceStateResponse{Diagnostics: diags}, nil
	}
	r := s.p.ImportResourceState(ctx, provider.ImportRequest{TypeName: req.TypeName, ID: req.ID})
	resp := &tfprotov6.ImportResourceStateResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics)}
	for _, imp := range r.Imported {
		ty, diags := s.resourceType(imp.TypeName)
		if diags != nil {
			resp.Diagnostics = append(resp.Diagnostics, diags...)
			continue
		}
		resp.ImportedResources = append(resp.ImportedResources, &tfprotov6.ImportedResource{
			TypeName: imp.TypeName,
			State:    encode("imported state", imp.State, ty, &resp.Diagnostics),
			Private:  imp.Private,
		})
	}
	return resp, nil
}

// MoveResourceState serves a moved block across resource types from the
// provider's MoveResourceState. Like Terraform, it hands on the source
// object only as JSON: older encodings (flatmap) cannot be moved.
func (s *server) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	ty, diags := s.resourceType(req.TargetTypeName)
	if diags != nil {
		return &tfprotov6.MoveResourceStateResponse{Diagnostics: diags}, nil
	}
	if req.SourceState == nil || req.SourceState.JSON == nil {
		return &tfprotov6.MoveResourceStateResponse{Diagnostics: errDiag("Unsupported stored state",
			"Only state written by Terraform 0.12 or later, in JSON, can be moved; this object has none.")}, nil
	}
	r := s.p.MoveResourceState(ctx, provider.MoveRequest{
		SourceProviderAddress: req.SourceProviderAddress,
		SourceTypeName:        req.SourceTypeName,
		SourceSchemaVersion:   req.SourceSchemaVersion,
		SourceStateJSON:       req.SourceState.JSON,
		SourcePrivate:         req.SourcePrivate,
		TargetTypeName:        req.TargetTypeName,
	})
	resp := &tfprotov6.MoveResourceStateResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics), TargetPrivate: r.TargetPrivate}
	if r.Diagnostics.HasErrors() && (r.TargetState == cty.NilVal || r.TargetState.IsNull()) {
		return resp, nil
	}
	resp.TargetState = encode("moved state", r.TargetState, ty, &resp.Diagnostics)
	return resp, nil
}

func (s *server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	ty, diags := s.dataSourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: diags}, nil
	}
	var d decoder
	cfg := d.decode("configuration", req.Config, ty)
	if d.diags != nil {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: d.diags}, nil
	}
	return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: DiagnosticsToTF(s.p.ValidateDataSourceConfig(req.TypeName, cfg))}, nil
}

func (s *server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	ty, diags := s.dataSourceType(req.TypeName)
	if diags != nil {
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: diags}, nil
	}
	var d decoder
	cfg := d.decode("configuration", req.Config, ty)
	if d.diags != nil {
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: d.diags}, nil
	}
	r := s.p.ReadDataSource(ctx, provider.ReadDataRequest{TypeName: req.TypeName, Config: cfg})
	resp := &tfprotov6.ReadDataSourceResponse{Diagnostics: DiagnosticsToTF(r.Diagnostics)}
	resp.State = encode("data source state", r.State, ty, &resp.Diagnostics)
	return resp, nil
}
