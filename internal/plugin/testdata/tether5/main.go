// Command tether5 serves the built-in provider over plugin protocol
// version 5, for the plugin client's tests: Tether itself only serves
// version 6, and many real providers still speak 5.
//
// It translates to and from protocol.Server, whose version 6 messages
// differ from version 5's only in names for everything the built-in
// provider uses. Five departures serve the tests: it does not announce
// PlanDestroy, so the client must plan destroys itself; it announces
// GetProviderSchemaOptional, so the client may take its schema from a
// cache; it panics when asked to apply a tether_value whose input is the
// string "panic"; for an input "spawn:FILE" it starts a process that
// sleeps for ten minutes, and writes its pid to FILE, as a provider that
// runs helper programs would; and for an input "applying:FILE" it
// creates FILE once it has the apply in hand (providercheck.SignalApplies).
//
// Run under a name ending in "6" (the tests copy it so), it serves the
// built-in provider over protocol version 6 instead, as
// cmd/terraform-provider-tether does, with the same three hooks and no
// other departure: so that the hooks reach both of the client's versions.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5/tf5server"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/provider/tether"
	"github.com/zclconf/go-cty/cty"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

func main() {
	// Like cmd/terraform-provider-tether, it is also the runtime's router
	// and functions: the provider starts them with its own executable.
	tether.RuntimeMain()
	var err error
	if strings.HasSuffix(filepath.Base(os.Args[0]), "6") {
		err = tf6server.Serve(protocol.Address, func() tfprotov6.ProviderServer {
			return hooks6{protocol.Server(providercheck.SignalApplies(tether.New()))}
		})
	} else {
		err = tf5server.Serve(protocol.Address, func() tfprotov5.ProviderServer {
			return &server{s: protocol.Server(providercheck.SignalApplies(tether.New()))}
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tether5:", err)
		os.Exit(1)
	}
}

// server implements the calls the plugin client makes; the embedded nil
// interface satisfies the rest, which the client never calls.
type server struct {
	tfprotov5.ProviderServer
	s tfprotov6.ProviderServer
}

var serverCapabilities = &tfprotov5.ServerCapabilities{GetProviderSchemaOptional: true}

func (s *server) GetMetadata(ctx context.Context, req *tfprotov5.GetMetadataRequest) (*tfprotov5.GetMetadataResponse, error) {
	r, err := s.s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil {
		return nil, err
	}
	out := &tfprotov5.GetMetadataResponse{ServerCapabilities: serverCapabilities, Diagnostics: diags5(r.Diagnostics)}
	for _, m := range r.Resources {
		out.Resources = append(out.Resources, tfprotov5.ResourceMetadata{TypeName: m.TypeName})
	}
	for _, m := range r.DataSources {
		out.DataSources = append(out.DataSources, tfprotov5.DataSourceMetadata{TypeName: m.TypeName})
	}
	return out, nil
}

func (s *server) GetProviderSchema(ctx context.Context, req *tfprotov5.GetProviderSchemaRequest) (*tfprotov5.GetProviderSchemaResponse, error) {
	r, err := s.s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	out := &tfprotov5.GetProviderSchemaResponse{
		ServerCapabilities: serverCapabilities,
		Provider:           schema5(r.Provider),
		ResourceSchemas:    map[string]*tfprotov5.Schema{},
		DataSourceSchemas:  map[string]*tfprotov5.Schema{},
		Diagnostics:        diags5(r.Diagnostics),
	}
	for name, rs := range r.ResourceSchemas {
		out.ResourceSchemas[name] = schema5(rs)
	}
	for name, rs := range r.DataSourceSchemas {
		out.DataSourceSchemas[name] = schema5(rs)
	}
	for name, f := range r.Functions {
		if out.Functions == nil {
			out.Functions = map[string]*tfprotov5.Function{}
		}
		out.Functions[name] = function5(f)
	}
	return out, nil
}

func (s *server) CallFunction(ctx context.Context, req *tfprotov5.CallFunctionRequest) (*tfprotov5.CallFunctionResponse, error) {
	args := make([]*tfprotov6.DynamicValue, len(req.Arguments))
	for i, a := range req.Arguments {
		args[i] = dv6(a)
	}
	r, err := s.s.CallFunction(ctx, &tfprotov6.CallFunctionRequest{Name: req.Name, Arguments: args})
	if err != nil {
		return nil, err
	}
	out := &tfprotov5.CallFunctionResponse{Result: dv5(r.Result)}
	if e := r.Error; e != nil {
		out.Error = &tfprotov5.FunctionError{Text: e.Text, FunctionArgument: e.FunctionArgument}
	}
	return out, nil
}

func (s *server) PrepareProviderConfig(ctx context.Context, req *tfprotov5.PrepareProviderConfigRequest) (*tfprotov5.PrepareProviderConfigResponse, error) {
	r, err := s.s.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: dv6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.PrepareProviderConfigResponse{PreparedConfig: dv5(r.PreparedConfig), Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov5.ConfigureProviderRequest) (*tfprotov5.ConfigureProviderResponse, error) {
	r, err := s.s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: req.TerraformVersion, Config: dv6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ConfigureProviderResponse{Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) StopProvider(ctx context.Context, req *tfprotov5.StopProviderRequest) (*tfprotov5.StopProviderResponse, error) {
	return &tfprotov5.StopProviderResponse{}, nil
}

func (s *server) ValidateResourceTypeConfig(ctx context.Context, req *tfprotov5.ValidateResourceTypeConfigRequest) (*tfprotov5.ValidateResourceTypeConfigResponse, error) {
	r, err := s.s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: req.TypeName, Config: dv6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ValidateResourceTypeConfigResponse{Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) ValidateDataSourceConfig(ctx context.Context, req *tfprotov5.ValidateDataSourceConfigRequest) (*tfprotov5.ValidateDataSourceConfigResponse, error) {
	r, err := s.s.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: req.TypeName, Config: dv6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ValidateDataSourceConfigResponse{Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov5.UpgradeResourceStateRequest) (*tfprotov5.UpgradeResourceStateResponse, error) {
	var raw *tfprotov6.RawState
	if req.RawState != nil {
		raw = &tfprotov6.RawState{JSON: req.RawState.JSON, Flatmap: req.RawState.Flatmap}
	}
	r, err := s.s.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: req.TypeName, Version: req.Version, RawState: raw})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.UpgradeResourceStateResponse{UpgradedState: dv5(r.UpgradedState), Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov5.ReadResourceRequest) (*tfprotov5.ReadResourceResponse, error) {
	r, err := s.s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: req.TypeName, CurrentState: dv6(req.CurrentState), Private: req.Private})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ReadResourceResponse{NewState: dv5(r.NewState), Private: r.Private, Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov5.PlanResourceChangeRequest) (*tfprotov5.PlanResourceChangeResponse, error) {
	r, err := s.s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         req.TypeName,
		PriorState:       dv6(req.PriorState),
		ProposedNewState: dv6(req.ProposedNewState),
		Config:           dv6(req.Config),
		PriorPrivate:     req.PriorPrivate,
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.PlanResourceChangeResponse{
		PlannedState:    dv5(r.PlannedState),
		RequiresReplace: r.RequiresReplace,
		PlannedPrivate:  r.PlannedPrivate,
		Diagnostics:     diags5(r.Diagnostics),
	}, nil
}

// hook runs the test hooks for an apply of typeName to the planned state
// planned (MessagePack): a panic for a tether_value whose input is
// "panic", a helper process for "spawn:FILE".
func hook(typeName string, planned []byte) error {
	if typeName != "tether_value" || planned == nil {
		return nil
	}
	ty := cty.Object(map[string]cty.Type{"input": cty.DynamicPseudoType, "output": cty.DynamicPseudoType, "delay_ms": cty.Number, "id": cty.String})
	v, err := ctymsgpack.Unmarshal(planned, ty)
	if err != nil || v.IsNull() {
		return nil
	}
	in := v.GetAttr("input")
	if !in.IsKnown() || in.IsNull() || in.Type() != cty.String {
		return nil
	}
	if in.AsString() == "panic" {
		panic("tether5: asked to panic")
	}
	if file, ok := strings.CutPrefix(in.AsString(), "spawn:"); ok {
		return spawn(file)
	}
	return nil
}

// hooks6 is the built-in provider over protocol 6 with the hooks.
type hooks6 struct{ tfprotov6.ProviderServer }

func (h hooks6) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.PlannedState != nil {
		if err := hook(req.TypeName, req.PlannedState.MsgPack); err != nil {
			return nil, err
		}
	}
	return h.ProviderServer.ApplyResourceChange(ctx, req)
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov5.ApplyResourceChangeRequest) (*tfprotov5.ApplyResourceChangeResponse, error) {
	if req.PlannedState != nil {
		if err := hook(req.TypeName, req.PlannedState.MsgPack); err != nil {
			return nil, err
		}
	}
	r, err := s.s.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName:       req.TypeName,
		PriorState:     dv6(req.PriorState),
		PlannedState:   dv6(req.PlannedState),
		Config:         dv6(req.Config),
		PlannedPrivate: req.PlannedPrivate,
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ApplyResourceChangeResponse{NewState: dv5(r.NewState), Private: r.Private, Diagnostics: diags5(r.Diagnostics)}, nil
}

func (s *server) ImportResourceState(ctx context.Context, req *tfprotov5.ImportResourceStateRequest) (*tfprotov5.ImportResourceStateResponse, error) {
	r, err := s.s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: req.TypeName, ID: req.ID})
	if err != nil {
		return nil, err
	}
	out := &tfprotov5.ImportResourceStateResponse{Diagnostics: diags5(r.Diagnostics)}
	for _, ir := range r.ImportedResources {
		out.ImportedResources = append(out.ImportedResources, &tfprotov5.ImportedResource{TypeName: ir.TypeName, State: dv5(ir.State), Private: ir.Private})
	}
	return out, nil
}

func (s *server) ReadDataSource(ctx context.Context, req *tfprotov5.ReadDataSourceRequest) (*tfprotov5.ReadDataSourceResponse, error) {
	r, err := s.s.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: req.TypeName, Config: dv6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov5.ReadDataSourceResponse{State: dv5(r.State), Diagnostics: diags5(r.Diagnostics)}, nil
}

func dv5(v *tfprotov6.DynamicValue) *tfprotov5.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfprotov5.DynamicValue{MsgPack: v.MsgPack, JSON: v.JSON}
}

func dv6(v *tfprotov5.DynamicValue) *tfprotov6.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfprotov6.DynamicValue{MsgPack: v.MsgPack, JSON: v.JSON}
}

func diags5(in []*tfprotov6.Diagnostic) []*tfprotov5.Diagnostic {
	var out []*tfprotov5.Diagnostic
	for _, d := range in {
		out = append(out, &tfprotov5.Diagnostic{
			Severity:  tfprotov5.DiagnosticSeverity(d.Severity),
			Summary:   d.Summary,
			Detail:    d.Detail,
			Attribute: d.Attribute,
		})
	}
	return out
}

func schema5(s *tfprotov6.Schema) *tfprotov5.Schema {
	if s == nil {
		return nil
	}
	return &tfprotov5.Schema{Version: s.Version, Block: block5(s.Block)}
}

func block5(b *tfprotov6.SchemaBlock) *tfprotov5.SchemaBlock {
	if b == nil {
		return nil
	}
	out := &tfprotov5.SchemaBlock{
		Version:         b.Version,
		Description:     b.Description,
		DescriptionKind: tfprotov5.StringKind(b.DescriptionKind),
		Deprecated:      b.Deprecated,
	}
	for _, a := range b.Attributes {
		out.Attributes = append(out.Attributes, &tfprotov5.SchemaAttribute{
			Name:            a.Name,
			Type:            a.Type,
			Description:     a.Description,
			DescriptionKind: tfprotov5.StringKind(a.DescriptionKind),
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			Deprecated:      a.Deprecated,
		})
	}
	for _, nb := range b.BlockTypes {
		out.BlockTypes = append(out.BlockTypes, &tfprotov5.SchemaNestedBlock{
			TypeName: nb.TypeName,
			Block:    block5(nb.Block),
			Nesting:  tfprotov5.SchemaNestedBlockNestingMode(nb.Nesting),
			MinItems: nb.MinItems,
			MaxItems: nb.MaxItems,
		})
	}
	return out
}

// spawn starts a helper that outlives the call, with no hold on the
// plugin's output.
func spawn(file string) error {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return os.WriteFile(file, []byte(fmt.Sprint(cmd.Process.Pid)), 0o644)
}

func function5(f *tfprotov6.Function) *tfprotov5.Function {
	param := func(p *tfprotov6.FunctionParameter) *tfprotov5.FunctionParameter {
		if p == nil {
			return nil
		}
		return &tfprotov5.FunctionParameter{
			Name:               p.Name,
			Type:               p.Type,
			AllowNullValue:     p.AllowNullValue,
			AllowUnknownValues: p.AllowUnknownValues,
			Description:        p.Description,
		}
	}
	out := &tfprotov5.Function{
		Summary:           f.Summary,
		Description:       f.Description,
		VariadicParameter: param(f.VariadicParameter),
		Return:            &tfprotov5.FunctionReturn{Type: f.Return.Type},
	}
	for _, p := range f.Parameters {
		out.Parameters = append(out.Parameters, param(p))
	}
	return out
}
