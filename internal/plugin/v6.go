// v6.go is the source of v5.go: change this file, then run go generate.

//go:generate go run gen_v5.go

package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/plugin/tfplugin6"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// rpc6 speaks protocol version 6, and answers in version 6 types like
// every rpcClient.
type rpc6 struct {
	c tfplugin6.ProviderClient
	// cc is c's connection, for the one call made without the stubs'
	// decoding (GetProviderSchema).
	cc grpc.ClientConnInterface
}

// GetProviderSchema asks for the schema and returns the response as
// sent, undecoded (see wireSchema).
func (r rpc6) GetProviderSchema(ctx context.Context) ([]byte, error) {
	var wire rawMessage
	err := r.cc.Invoke(ctx, tfplugin6.Provider_GetProviderSchema_FullMethodName, &tfplugin6.GetProviderSchema_Request{}, &wire, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	return wire, nil
}

func (r rpc6) SchemaFromWire(wire []byte) (*wireSchema, error) {
	return decodeWireSchema(wire, &tfplugin6.GetProviderSchema_Response{}, schemaHeadFrom6, typeSchemaFrom6, functionSchemaFrom6)
}

// schemaHeadFrom6 converts a response without the schemas of types (see
// splitSchemaWire).
func schemaHeadFrom6(resp *tfplugin6.GetProviderSchema_Response) *tfprotov6.GetProviderSchemaResponse {
	out := &tfprotov6.GetProviderSchemaResponse{
		Diagnostics:        diagsFrom6(resp.Diagnostics),
		ServerCapabilities: serverCapabilitiesFrom6(resp.ServerCapabilities),
	}
	convert := func(what string, s *tfplugin6.Schema) *tfprotov6.Schema {
		ts, err := schemaFrom6(s)
		if err != nil {
			out.Diagnostics = append(out.Diagnostics, schemaDiag(what, err))
		}
		return ts
	}
	out.Provider = convert("the provider configuration", resp.Provider)
	if resp.ProviderMeta != nil {
		out.ProviderMeta = convert("provider_meta", resp.ProviderMeta)
	}
	return out
}

// functionSchemaFrom6 decodes the signature of one function, a Function
// message.
func functionSchemaFrom6(wire []byte) (*tfprotov6.Function, error) {
	var f tfplugin6.Function
	if err := proto.Unmarshal(wire, &f); err != nil {
		return nil, err
	}
	return functionFrom6(&f)
}

// typeSchemaFrom6 decodes the schema of one type, a Schema message.
func typeSchemaFrom6(wire []byte) (*tfprotov6.Schema, error) {
	var s tfplugin6.Schema
	if err := proto.Unmarshal(wire, &s); err != nil {
		return nil, err
	}
	return schemaFrom6(&s)
}

func serverCapabilitiesFrom6(sc *tfplugin6.ServerCapabilities) *tfprotov6.ServerCapabilities {
	if sc == nil {
		return nil
	}
	return &tfprotov6.ServerCapabilities{
		PlanDestroy:               sc.PlanDestroy,
		GetProviderSchemaOptional: sc.GetProviderSchemaOptional,
		MoveResourceState:         sc.MoveResourceState,
		GenerateResourceConfig:    sc.GenerateResourceConfig,
	}
}

func (r rpc6) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := r.c.ValidateProviderConfig(ctx, &tfplugin6.ValidateProviderConfig_Request{Config: dvTo6(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: diagsFrom6(resp.Diagnostics)}, nil
}

func (r rpc6) ValidateResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error) {
	resp, err := r.c.ValidateResourceConfig(ctx, &tfplugin6.ValidateResourceConfig_Request{
		TypeName: typeName,
		Config:   dvTo6(config),
		ClientCapabilities: &tfplugin6.ClientCapabilities{
			WriteOnlyAttributesAllowed: writeOnlyAttributesAllowed,
		},
	})
	if err != nil {
		return nil, err
	}
	return diagsFrom6(resp.Diagnostics), nil
}

func (r rpc6) ValidateDataResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error) {
	resp, err := r.c.ValidateDataResourceConfig(ctx, &tfplugin6.ValidateDataResourceConfig_Request{
		TypeName: typeName,
		Config:   dvTo6(config),
	})
	if err != nil {
		return nil, err
	}
	return diagsFrom6(resp.Diagnostics), nil
}

func (r rpc6) ValidateEphemeralResourceConfig(ctx context.Context, typeName string, config *tfprotov6.DynamicValue) ([]*tfprotov6.Diagnostic, error) {
	resp, err := r.c.ValidateEphemeralResourceConfig(ctx, &tfplugin6.ValidateEphemeralResourceConfig_Request{
		TypeName: typeName,
		Config:   dvTo6(config),
	})
	if err != nil {
		return nil, err
	}
	return diagsFrom6(resp.Diagnostics), nil
}

func (r rpc6) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := r.c.ConfigureProvider(ctx, &tfplugin6.ConfigureProvider_Request{
		TerraformVersion:   req.TerraformVersion,
		Config:             dvTo6(req.Config),
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ConfigureProviderResponse{Diagnostics: diagsFrom6(resp.Diagnostics)}, nil
}

func (r rpc6) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	preq := &tfplugin6.UpgradeResourceState_Request{TypeName: req.TypeName, Version: req.Version}
	if req.RawState != nil {
		preq.RawState = &tfplugin6.RawState{Json: req.RawState.JSON, Flatmap: req.RawState.Flatmap}
	}
	resp, err := r.c.UpgradeResourceState(ctx, preq)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{
		UpgradedState: dvFrom6(resp.UpgradedState),
		Diagnostics:   diagsFrom6(resp.Diagnostics),
	}, nil
}

func (r rpc6) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := r.c.ReadResource(ctx, &tfplugin6.ReadResource_Request{
		TypeName:           req.TypeName,
		CurrentState:       dvTo6(req.CurrentState),
		Private:            req.Private,
		ProviderMeta:       dvTo6(req.ProviderMeta),
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ReadResourceResponse{
		NewState:    dvFrom6(resp.NewState),
		Diagnostics: diagsFrom6(resp.Diagnostics),
		Private:     resp.Private,
		Deferred:    deferredFrom6(resp.Deferred),
	}, nil
}

func (r rpc6) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := r.c.PlanResourceChange(ctx, &tfplugin6.PlanResourceChange_Request{
		TypeName:           req.TypeName,
		PriorState:         dvTo6(req.PriorState),
		ProposedNewState:   dvTo6(req.ProposedNewState),
		Config:             dvTo6(req.Config),
		PriorPrivate:       req.PriorPrivate,
		ProviderMeta:       dvTo6(req.ProviderMeta),
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.PlanResourceChangeResponse{
		PlannedState:                dvFrom6(resp.PlannedState),
		PlannedPrivate:              resp.PlannedPrivate,
		Diagnostics:                 diagsFrom6(resp.Diagnostics),
		UnsafeToUseLegacyTypeSystem: resp.LegacyTypeSystem,
		Deferred:                    deferredFrom6(resp.Deferred),
	}
	for _, p := range resp.RequiresReplace {
		out.RequiresReplace = append(out.RequiresReplace, pathFrom6(p))
	}
	return out, nil
}

func (r rpc6) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := r.c.ApplyResourceChange(ctx, &tfplugin6.ApplyResourceChange_Request{
		TypeName:       req.TypeName,
		PriorState:     dvTo6(req.PriorState),
		PlannedState:   dvTo6(req.PlannedState),
		Config:         dvTo6(req.Config),
		PlannedPrivate: req.PlannedPrivate,
		ProviderMeta:   dvTo6(req.ProviderMeta),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ApplyResourceChangeResponse{
		NewState:                    dvFrom6(resp.NewState),
		Private:                     resp.Private,
		Diagnostics:                 diagsFrom6(resp.Diagnostics),
		UnsafeToUseLegacyTypeSystem: resp.LegacyTypeSystem,
	}, nil
}

func (r rpc6) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := r.c.ImportResourceState(ctx, &tfplugin6.ImportResourceState_Request{
		TypeName:           req.TypeName,
		Id:                 req.ID,
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.ImportResourceStateResponse{
		Diagnostics: diagsFrom6(resp.Diagnostics),
		Deferred:    deferredFrom6(resp.Deferred),
	}
	for _, ir := range resp.ImportedResources {
		if ir == nil {
			continue
		}
		out.ImportedResources = append(out.ImportedResources, &tfprotov6.ImportedResource{
			TypeName: ir.TypeName,
			State:    dvFrom6(ir.State),
			Private:  ir.Private,
		})
	}
	return out, nil
}

func (r rpc6) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	preq := &tfplugin6.MoveResourceState_Request{
		SourceProviderAddress: req.SourceProviderAddress,
		SourceTypeName:        req.SourceTypeName,
		SourceSchemaVersion:   req.SourceSchemaVersion,
		TargetTypeName:        req.TargetTypeName,
		SourcePrivate:         req.SourcePrivate,
	}
	if req.SourceState != nil {
		preq.SourceState = &tfplugin6.RawState{Json: req.SourceState.JSON}
	}
	resp, err := r.c.MoveResourceState(ctx, preq)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.MoveResourceStateResponse{
		TargetState:   dvFrom6(resp.TargetState),
		TargetPrivate: resp.TargetPrivate,
		Diagnostics:   diagsFrom6(resp.Diagnostics),
	}, nil
}

func (r rpc6) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := r.c.ReadDataSource(ctx, &tfplugin6.ReadDataSource_Request{
		TypeName:           req.TypeName,
		Config:             dvTo6(req.Config),
		ProviderMeta:       dvTo6(req.ProviderMeta),
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ReadDataSourceResponse{
		State:       dvFrom6(resp.State),
		Diagnostics: diagsFrom6(resp.Diagnostics),
		Deferred:    deferredFrom6(resp.Deferred),
	}, nil
}

func (r rpc6) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	resp, err := r.c.OpenEphemeralResource(ctx, &tfplugin6.OpenEphemeralResource_Request{
		TypeName:           req.TypeName,
		Config:             dvTo6(req.Config),
		ClientCapabilities: callCapabilities6(),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.OpenEphemeralResourceResponse{
		Result:      dvFrom6(resp.Result),
		Diagnostics: diagsFrom6(resp.Diagnostics),
		Private:     resp.Private,
		RenewAt:     timeFrom(resp.RenewAt),
		Deferred:    deferredFrom6(resp.Deferred),
	}, nil
}

func (r rpc6) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	resp, err := r.c.RenewEphemeralResource(ctx, &tfplugin6.RenewEphemeralResource_Request{
		TypeName: req.TypeName,
		Private:  req.Private,
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.RenewEphemeralResourceResponse{
		Diagnostics: diagsFrom6(resp.Diagnostics),
		Private:     resp.Private,
		RenewAt:     timeFrom(resp.RenewAt),
	}, nil
}

func (r rpc6) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	resp, err := r.c.CloseEphemeralResource(ctx, &tfplugin6.CloseEphemeralResource_Request{
		TypeName: req.TypeName,
		Private:  req.Private,
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.CloseEphemeralResourceResponse{Diagnostics: diagsFrom6(resp.Diagnostics)}, nil
}

func (r rpc6) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	preq := &tfplugin6.CallFunction_Request{Name: req.Name}
	for _, a := range req.Arguments {
		preq.Arguments = append(preq.Arguments, dvTo6(a))
	}
	resp, err := r.c.CallFunction(ctx, preq)
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.CallFunctionResponse{Result: dvFrom6(resp.Result)}
	if e := resp.Error; e != nil {
		out.Error = &tfprotov6.FunctionError{Text: e.Text, FunctionArgument: e.FunctionArgument}
	}
	return out, nil
}

func (r rpc6) StopProvider(ctx context.Context) error {
	resp, err := r.c.StopProvider(ctx, &tfplugin6.StopProvider_Request{})
	if err != nil {
		return err
	}
	if resp.Error != "" {
		return errors.New(resp.Error)
	}
	return nil
}

// callCapabilities6 is what the client can do, for the calls that ask
// (other than ValidateResourceConfig, which has a message of its own).
func callCapabilities6() *tfplugin6.ClientCapabilities {
	return &tfplugin6.ClientCapabilities{DeferralAllowed: deferralAllowed, WriteOnlyAttributesAllowed: writeOnlyAttributesAllowed}
}

func dvTo6(v *tfprotov6.DynamicValue) *tfplugin6.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfplugin6.DynamicValue{Msgpack: v.MsgPack, Json: v.JSON}
}

func dvFrom6(v *tfplugin6.DynamicValue) *tfprotov6.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfprotov6.DynamicValue{MsgPack: v.Msgpack, JSON: v.Json}
}

func deferredFrom6(d *tfplugin6.Deferred) *tfprotov6.Deferred {
	if d == nil {
		return nil
	}
	return &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(d.Reason)}
}

func diagsFrom6(in []*tfplugin6.Diagnostic) []*tfprotov6.Diagnostic {
	if len(in) == 0 {
		return nil
	}
	out := make([]*tfprotov6.Diagnostic, 0, len(in))
	for _, d := range in {
		if d == nil {
			continue
		}
		td := &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityInvalid,
			Summary:  d.Summary,
			Detail:   d.Detail,
		}
		switch d.Severity {
		case tfplugin6.Diagnostic_ERROR:
			td.Severity = tfprotov6.DiagnosticSeverityError
		case tfplugin6.Diagnostic_WARNING:
			td.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if d.Attribute != nil {
			td.Attribute = pathFrom6(d.Attribute)
		}
		out = append(out, td)
	}
	return out
}

// pathFrom6 keeps the steps up to the first it cannot read, so a path from
// a newer protocol still points at the nearest attribute it names.
func pathFrom6(p *tfplugin6.AttributePath) *tftypes.AttributePath {
	if p == nil {
		return nil
	}
	steps := make([]tftypes.AttributePathStep, 0, len(p.Steps))
steps:
	for _, s := range p.Steps {
		switch sel := s.GetSelector().(type) {
		case *tfplugin6.AttributePath_Step_AttributeName:
			steps = append(steps, tftypes.AttributeName(sel.AttributeName))
		case *tfplugin6.AttributePath_Step_ElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(sel.ElementKeyString))
		case *tfplugin6.AttributePath_Step_ElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(sel.ElementKeyInt))
		default:
			break steps
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}

func functionFrom6(f *tfplugin6.Function) (*tfprotov6.Function, error) {
	out := &tfprotov6.Function{
		Summary:            f.Summary,
		Description:        f.Description,
		DescriptionKind:    tfprotov6.StringKind(f.DescriptionKind),
		DeprecationMessage: f.DeprecationMessage,
		Return:             &tfprotov6.FunctionReturn{},
	}
	for i, p := range f.Parameters {
		tp, err := parameterFrom6(p)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		out.Parameters = append(out.Parameters, tp)
	}
	if f.VariadicParameter != nil {
		tp, err := parameterFrom6(f.VariadicParameter)
		if err != nil {
			return nil, fmt.Errorf("variadic parameter: %w", err)
		}
		out.VariadicParameter = tp
	}
	if f.Return == nil {
		return nil, errors.New("no return type")
	}
	ty, err := typeFromJSON(f.Return.Type)
	if err != nil {
		return nil, fmt.Errorf("return type: %w", err)
	}
	out.Return.Type = ty
	return out, nil
}

func parameterFrom6(p *tfplugin6.Function_Parameter) (*tfprotov6.FunctionParameter, error) {
	if p == nil {
		return nil, errors.New("missing")
	}
	ty, err := typeFromJSON(p.Type)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.FunctionParameter{
		Name:               p.Name,
		Type:               ty,
		AllowNullValue:     p.AllowNullValue,
		AllowUnknownValues: p.AllowUnknownValues,
		Description:        p.Description,
		DescriptionKind:    tfprotov6.StringKind(p.DescriptionKind),
	}, nil
}

func schemaFrom6(s *tfplugin6.Schema) (*tfprotov6.Schema, error) {
	if s == nil {
		return &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}}, nil
	}
	b, err := blockFrom6(s.Block)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.Schema{Version: s.Version, Block: b}, nil
}

func blockFrom6(b *tfplugin6.Schema_Block) (*tfprotov6.SchemaBlock, error) {
	out := &tfprotov6.SchemaBlock{}
	if b == nil {
		return out, nil
	}
	out.Version = b.Version
	out.Description = b.Description
	out.DescriptionKind = tfprotov6.StringKind(b.DescriptionKind)
	out.Deprecated = b.Deprecated
	out.DeprecationMessage = b.DeprecationMessage
	for _, a := range b.Attributes {
		if a == nil {
			continue
		}
		ta, err := attributeFrom6(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		out.Attributes = append(out.Attributes, ta)
	}
	for _, nb := range b.BlockTypes {
		if nb == nil {
			continue
		}
		inner, err := blockFrom6(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %q: %w", nb.TypeName, err)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: nb.TypeName,
			Block:    inner,
			// tfprotov6 numbers the nesting modes as the protocol does.
			Nesting:  tfprotov6.SchemaNestedBlockNestingMode(nb.Nesting),
			MinItems: nb.MinItems,
			MaxItems: nb.MaxItems,
		})
	}
	return out, nil
}

func attributeFrom6(a *tfplugin6.Schema_Attribute) (*tfprotov6.SchemaAttribute, error) {
	out := &tfprotov6.SchemaAttribute{
		Name:               a.Name,
		Description:        a.Description,
		DescriptionKind:    tfprotov6.StringKind(a.DescriptionKind),
		Required:           a.Required,
		Optional:           a.Optional,
		Computed:           a.Computed,
		Sensitive:          a.Sensitive,
		Deprecated:         a.Deprecated,
		DeprecationMessage: a.DeprecationMessage,
		WriteOnly:          a.WriteOnly,
	}
	// Protocol 6 only: version 5 has no nested attributes.
	if a.NestedType != nil {
		obj := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingMode(a.NestedType.Nesting)}
		for _, na := range a.NestedType.Attributes {
			if na == nil {
				continue
			}
			ta, err := attributeFrom6(na)
			if err != nil {
				return nil, fmt.Errorf("nested attribute %q: %w", na.Name, err)
			}
			obj.Attributes = append(obj.Attributes, ta)
		}
		out.NestedType = obj
		return out, nil
	}
	ty, err := typeFromJSON(a.Type)
	if err != nil {
		return nil, err
	}
	out.Type = ty
	return out, nil
}
