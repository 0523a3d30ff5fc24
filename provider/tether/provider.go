package tether

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/statejson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

type resourceType interface {
	validate(config cty.Value) hcl.Diagnostics
	// plan is only called for creates and updates; destroys never reach
	// it.
	plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse
	apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse
	read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse
	importState(ctx context.Context, id string) provider.ImportResponse
}

type dataSourceType interface {
	validate(config cty.Value) hcl.Diagnostics
	read(ctx context.Context, config cty.Value) provider.ReadDataResponse
}

type tetherProvider struct {
	schema      *provider.Schema
	resources   map[string]resourceType
	dataSources map[string]dataSourceType
	// stateTypes caches the implied type of each resource schema, which
	// UpgradeResourceState needs on every call.
	stateTypes map[string]cty.Type
	// rt is the configuration of the local runtime, shared by its
	// resource types.
	rt *runtimeConfig
}

// New returns the built-in provider. Its only configuration is where the
// local runtime keeps its files; it is safe for concurrent use.
func New() provider.Provider {
	rt := &runtimeConfig{}
	p := &tetherProvider{
		schema: &provider.Schema{
			Provider: &provider.Block{
				Description: "The built-in provider: local files, random strings, plain values, and a local runtime of functions, routers, key-value stores and testers.",
				Attributes: map[string]*provider.Attribute{
					"runtime_dir": {
						Type:        cty.String,
						Optional:    true,
						Description: "Folder where the local runtime keeps process files, logs, routes and stored data, one subfolder per resource. Relative to the working directory (the configuration folder for tether) unless absolute. Defaults to \".tether/runtime\".",
					},
				},
			},
			Resources: provider.NewTypes(map[string]*provider.ResourceSchema{
				"tether_file":     fileResourceSchema(),
				"tether_random":   randomResourceSchema(),
				"tether_value":    valueResourceSchema(),
				"tether_bundle":   bundleResourceSchema(),
				"tether_function": functionResourceSchema(),
				"tether_router":   routerResourceSchema(),
				"tether_route":    routeResourceSchema(),
				"tether_kv":       kvResourceSchema(),
				"tether_tester":   testerResourceSchema(),
				"tether_program":  programResourceSchema(),
			}),
			DataSources: provider.NewTypes(map[string]*provider.ResourceSchema{
				"tether_file": fileDataSourceSchema(),
			}),
			Functions: provider.NewFunctions(map[string]function.Function{
				"apply": applyFunction(),
			}),
		},
		resources: map[string]resourceType{
			"tether_file":     fileResource{},
			"tether_random":   randomResource{},
			"tether_value":    valueResource{},
			"tether_bundle":   bundleResource{},
			"tether_function": functionResource{rt: rt},
			"tether_router":   routerResource(rt),
			"tether_route":    routeResource{rt: rt},
			"tether_kv":       kvResource(rt),
			"tether_tester":   testerResource{},
			"tether_program":  programResource{rt: rt},
		},
		dataSources: map[string]dataSourceType{
			"tether_file": fileDataSource{},
		},
		stateTypes: map[string]cty.Type{},
		rt:         rt,
	}
	for _, name := range p.schema.Resources.Names() {
		rs, _, _ := p.schema.Resources.Get(name) // its own: never an error
		p.stateTypes[name] = rs.Block.ImpliedType()
	}
	return p
}

// GetSchema returns the same schema on every call; callers must not modify
// it.
func (p *tetherProvider) GetSchema() (*provider.Schema, hcl.Diagnostics) {
	return p.schema, nil
}

func (p *tetherProvider) ValidateProviderConfig(config cty.Value) hcl.Diagnostics {
	if s, ok := knownString(attr(config, "runtime_dir")); ok && s == "" {
		return hcl.Diagnostics{attrError("runtime_dir", "The runtime folder must not be empty; leave runtime_dir out to use \".tether/runtime\".")}
	}
	return nil
}

func (p *tetherProvider) ValidateResourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	r, ok := p.resources[typeName]
	if !ok {
		return unsupported("resource", typeName)
	}
	return r.validate(config)
}

func (p *tetherProvider) ValidateDataSourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	d, ok := p.dataSources[typeName]
	if !ok {
		return unsupported("data source", typeName)
	}
	return d.validate(config)
}

func (p *tetherProvider) ConfigureProvider(ctx context.Context, config cty.Value) hcl.Diagnostics {
	if d := p.ValidateProviderConfig(config); d.HasErrors() {
		return d
	}
	v := attr(config, "runtime_dir")
	if !v.IsKnown() {
		// The engine configures again once the value is known.
		return nil
	}
	dir := defaultRuntimeDir
	if s, ok := knownString(v); ok {
		dir = s
	}
	if err := p.rt.configure(dir); err != nil {
		return hcl.Diagnostics{attrError("runtime_dir", fmt.Sprintf("Cannot use %q as the runtime folder: %v.", dir, err))}
	}
	// A run killed while it started a function left a process no state
	// records: stop it now, before anything plans as if it were gone.
	if err := p.rt.reapAbandoned(ctx); err != nil {
		return opError("Cannot stop a process an interrupted run left", "", err)
	}
	return nil
}

func (p *tetherProvider) UpgradeResourceState(ctx context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	rs, ok, _ := p.schema.Resources.Get(req.TypeName) // its own: never an error
	if !ok {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("resource", req.TypeName)}
	}
	ty := p.stateTypes[req.TypeName]
	if req.Version > rs.Version {
		return provider.UpgradeResponse{
			UpgradedState: cty.NullVal(ty),
			Diagnostics: hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "State written by a newer provider",
				Detail:   fmt.Sprintf("The stored %s object has schema version %d, but this provider only knows versions up to %d.", req.TypeName, req.Version, rs.Version),
			}},
		}
	}
	// The request's bytes never change (UpgradeRequest): the value's
	// strings are them, not copies.
	v, err := statejson.UnmarshalShared(req.RawStateJSON, ty)
	if err != nil {
		v, err = unmarshalKnownAttrs(req.RawStateJSON, ty)
	}
	if err != nil {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(ty), Diagnostics: opError("Cannot decode stored object", fmt.Sprintf("decoding a stored %s object", req.TypeName), err)}
	}
	return provider.UpgradeResponse{UpgradedState: v}
}

// unmarshalKnownAttrs decodes a stored object after dropping attributes the
// schema no longer has, so that removing an attribute never strands state.
func unmarshalKnownAttrs(raw []byte, ty cty.Type) (cty.Value, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return cty.NilVal, err
	}
	for k := range obj {
		if !ty.HasAttribute(k) {
			delete(obj, k)
		}
	}
	cleaned, err := json.Marshal(obj)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(cleaned, ty)
}

func (p *tetherProvider) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	r, ok := p.resources[req.TypeName]
	if !ok {
		return provider.ReadResponse{NewState: req.PriorState, Diagnostics: unsupported("resource", req.TypeName)}
	}
	if req.PriorState.IsNull() {
		return provider.ReadResponse{NewState: req.PriorState}
	}
	return r.read(ctx, req)
}

// PurePlan says which types' plans depend on nothing but the request
// (provider.PurePlanner): tether_value's plan reads only its configuration
// and prior object. The others may look at the runtime folder or the
// files they manage, and are always asked.
func (p *tetherProvider) PurePlan(typeName string) bool {
	return typeName == "tether_value"
}

func (p *tetherProvider) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	r, ok := p.resources[req.TypeName]
	if !ok {
		return provider.PlanResponse{PlannedState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("resource", req.TypeName)}
	}
	if req.ProposedNewState.IsNull() {
		// Terraform hands the destroy the private state planned here, and
		// the runtime resources find their processes in it.
		return provider.PlanResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}
	}
	return r.plan(ctx, req)
}

func (p *tetherProvider) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	r, ok := p.resources[req.TypeName]
	if !ok {
		return provider.ApplyResponse{NewState: req.PriorState, Diagnostics: unsupported("resource", req.TypeName)}
	}
	return r.apply(ctx, req)
}

func (p *tetherProvider) ImportResourceState(ctx context.Context, req provider.ImportRequest) provider.ImportResponse {
	r, ok := p.resources[req.TypeName]
	if !ok {
		return provider.ImportResponse{Diagnostics: unsupported("resource", req.TypeName)}
	}
	return r.importState(ctx, req.ID)
}

// MoveResourceState supports no move: no two built-in types describe the
// same kind of object (a file, a value and a process have nothing to carry
// over), so every moved block across types is refused, naming both.
func (p *tetherProvider) MoveResourceState(ctx context.Context, req provider.MoveRequest) provider.MoveResponse {
	ty, ok := p.stateTypes[req.TargetTypeName]
	if !ok {
		return provider.MoveResponse{TargetState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("resource", req.TargetTypeName)}
	}
	return provider.MoveResponse{TargetState: cty.NullVal(ty), Diagnostics: hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Move not supported",
		Detail: fmt.Sprintf("The tether provider does not support moving resources of type %s (of %s) to %s: its types manage different kinds of objects. Remove the moved block; the old object is then destroyed and a new one created.",
			req.SourceTypeName, req.SourceProviderAddress, req.TargetTypeName),
	}}}
}

func (p *tetherProvider) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	d, ok := p.dataSources[req.TypeName]
	if !ok {
		return provider.ReadDataResponse{State: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("data source", req.TypeName)}
	}
	if diags := d.validate(req.Config); diags.HasErrors() {
		return provider.ReadDataResponse{State: cty.NullVal(req.Config.Type()), Diagnostics: diags}
	}
	return d.read(ctx, req.Config)
}

// The built-in provider declares no ephemeral resource types, so the
// engine never opens one of its; these answer a call that names one anyway.

func (p *tetherProvider) ValidateEphemeralConfig(typeName string, _ cty.Value) hcl.Diagnostics {
	return unsupported("ephemeral resource", typeName)
}

func (p *tetherProvider) OpenEphemeral(_ context.Context, req provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	return provider.OpenEphemeralResponse{Result: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("ephemeral resource", req.TypeName)}
}

func (p *tetherProvider) RenewEphemeral(_ context.Context, req provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	return provider.RenewEphemeralResponse{Diagnostics: unsupported("ephemeral resource", req.TypeName)}
}

func (p *tetherProvider) CloseEphemeral(_ context.Context, req provider.CloseEphemeralRequest) hcl.Diagnostics {
	return unsupported("ephemeral resource", req.TypeName)
}

func (p *tetherProvider) Close() error { return nil }

func unsupported(kind, name string) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Unsupported %s type", kind),
		Detail:   fmt.Sprintf("The tether provider has no %s type named %q.", kind, name),
	}}
}

func importUnsupported(typeName string) provider.ImportResponse {
	return provider.ImportResponse{Diagnostics: hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Import not supported",
		Detail:   fmt.Sprintf("%s objects hold values that exist nowhere else, so there is nothing to import; declare the resource and let it be created.", typeName),
	}}}
}
