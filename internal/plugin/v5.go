package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
)

// rpc5 speaks protocol version 5: for the calls made here it is version 6
// with some RPCs renamed and no nested attributes.
type rpc5 struct {
	c tfplugin5.ProviderClient
}

func (r rpc5) GetProviderSchema(ctx context.Context) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := r.c.GetSchema(ctx, &tfplugin5.GetProviderSchema_Request{})
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.GetProviderSchemaResponse{
		Diagnostics:       diagsFrom5(resp.Diagnostics),
		ResourceSchemas:   make(map[string]*tfprotov6.Schema, len(resp.ResourceSchemas)),
		DataSourceSchemas: make(map[string]*tfprotov6.Schema, len(resp.DataSourceSchemas)),
	}
	if sc := resp.ServerCapabilities; sc != nil {
		out.ServerCapabilities = &tfprotov6.ServerCapabilities{
			PlanDestroy:               sc.PlanDestroy,
			GetProviderSchemaOptional: sc.GetProviderSchemaOptional,
			MoveResourceState:         sc.MoveResourceState,
			GenerateResourceConfig:    sc.GenerateResourceConfig,
		}
	}
	convert := func(what string, s *tfplugin5.Schema) *tfprotov6.Schema {
		ts, err := schemaFrom5(s)
		if err != nil {
			out.Diagnostics = append(out.Diagnostics, schemaDiag(what, err))
		}
		return ts
	}
	out.Provider = convert("the provider configuration", resp.Provider)
	if resp.ProviderMeta != nil {
		out.ProviderMeta = convert("provider_meta", resp.ProviderMeta)
	}
	for name, s := range resp.ResourceSchemas {
		if ts := convert("resource type "+name, s); ts != nil {
			out.ResourceSchemas[name] = ts
		}
	}
	for name, s := range resp.DataSourceSchemas {
		if ts := convert("data source "+name, s); ts != nil {
			out.DataSourceSchemas[name] = ts
		}
	}
	return out, nil
}

func (r rpc5) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := r.c.PrepareProviderConfig(ctx, &tfplugin5.PrepareProviderConfig_Request{Config: dvTo5(req.Config)})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: diagsFrom5(resp.Diagnostics)}, nil
}

func (r rpc5) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := r.c.ValidateResourceTypeConfig(ctx, &tfplugin5.ValidateResourceTypeConfig_Request{
		TypeName: req.TypeName,
		Config:   dvTo5(req.Config),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diagsFrom5(resp.Diagnostics)}, nil
}

func (r rpc5) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := r.c.ValidateDataSourceConfig(ctx, &tfplugin5.ValidateDataSourceConfig_Request{
		TypeName: req.TypeName,
		Config:   dvTo5(req.Config),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: diagsFrom5(resp.Diagnostics)}, nil
}

func (r rpc5) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := r.c.Configure(ctx, &tfplugin5.Configure_Request{
		TerraformVersion: req.TerraformVersion,
		Config:           dvTo5(req.Config),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ConfigureProviderResponse{Diagnostics: diagsFrom5(resp.Diagnostics)}, nil
}

func (r rpc5) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	preq := &tfplugin5.UpgradeResourceState_Request{TypeName: req.TypeName, Version: req.Version}
	if req.RawState != nil {
		preq.RawState = &tfplugin5.RawState{Json: req.RawState.JSON, Flatmap: req.RawState.Flatmap}
	}
	resp, err := r.c.UpgradeResourceState(ctx, preq)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{
		UpgradedState: dvFrom5(resp.UpgradedState),
		Diagnostics:   diagsFrom5(resp.Diagnostics),
	}, nil
}

func (r rpc5) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := r.c.ReadResource(ctx, &tfplugin5.ReadResource_Request{
		TypeName:     req.TypeName,
		CurrentState: dvTo5(req.CurrentState),
		Private:      req.Private,
		ProviderMeta: dvTo5(req.ProviderMeta),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ReadResourceResponse{
		NewState:    dvFrom5(resp.NewState),
		Diagnostics: diagsFrom5(resp.Diagnostics),
		Private:     resp.Private,
		Deferred:    deferredFrom5(resp.Deferred),
	}, nil
}

func (r rpc5) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := r.c.PlanResourceChange(ctx, &tfplugin5.PlanResourceChange_Request{
		TypeName:         req.TypeName,
		PriorState:       dvTo5(req.PriorState),
		ProposedNewState: dvTo5(req.ProposedNewState),
		Config:           dvTo5(req.Config),
		PriorPrivate:     req.PriorPrivate,
		ProviderMeta:     dvTo5(req.ProviderMeta),
	})
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.PlanResourceChangeResponse{
		PlannedState:                dvFrom5(resp.PlannedState),
		PlannedPrivate:              resp.PlannedPrivate,
		Diagnostics:                 diagsFrom5(resp.Diagnostics),
		UnsafeToUseLegacyTypeSystem: resp.LegacyTypeSystem,
		Deferred:                    deferredFrom5(resp.Deferred),
	}
	for _, p := range resp.RequiresReplace {
		out.RequiresReplace = append(out.RequiresReplace, pathFrom5(p))
	}
	return out, nil
}

func (r rpc5) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := r.c.ApplyResourceChange(ctx, &tfplugin5.ApplyResourceChange_Request{
		TypeName:       req.TypeName,
		PriorState:     dvTo5(req.PriorState),
		PlannedState:   dvTo5(req.PlannedState),
		Config:         dvTo5(req.Config),
		PlannedPrivate: req.PlannedPrivate,
		ProviderMeta:   dvTo5(req.ProviderMeta),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ApplyResourceChangeResponse{
		NewState:                    dvFrom5(resp.NewState),
		Private:                     resp.Private,
		Diagnostics:                 diagsFrom5(resp.Diagnostics),
		UnsafeToUseLegacyTypeSystem: resp.LegacyTypeSystem,
	}, nil
}

func (r rpc5) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := r.c.ImportResourceState(ctx, &tfplugin5.ImportResourceState_Request{TypeName: req.TypeName, Id: req.ID})
	if err != nil {
		return nil, err
	}
	out := &tfprotov6.ImportResourceStateResponse{
		Diagnostics: diagsFrom5(resp.Diagnostics),
		Deferred:    deferredFrom5(resp.Deferred),
	}
	for _, ir := range resp.ImportedResources {
		if ir == nil {
			continue
		}
		out.ImportedResources = append(out.ImportedResources, &tfprotov6.ImportedResource{
			TypeName: ir.TypeName,
			State:    dvFrom5(ir.State),
			Private:  ir.Private,
		})
	}
	return out, nil
}

func (r rpc5) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := r.c.ReadDataSource(ctx, &tfplugin5.ReadDataSource_Request{
		TypeName:     req.TypeName,
		Config:       dvTo5(req.Config),
		ProviderMeta: dvTo5(req.ProviderMeta),
	})
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ReadDataSourceResponse{
		State:       dvFrom5(resp.State),
		Diagnostics: diagsFrom5(resp.Diagnostics),
		Deferred:    deferredFrom5(resp.Deferred),
	}, nil
}

func (r rpc5) StopProvider(ctx context.Context) error {
	resp, err := r.c.Stop(ctx, &tfplugin5.Stop_Request{})
	if err != nil {
		return err
	}
	if resp.Error != "" {
		return errors.New(resp.Error)
	}
	return nil
}

func dvTo5(v *tfprotov6.DynamicValue) *tfplugin5.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfplugin5.DynamicValue{Msgpack: v.MsgPack, Json: v.JSON}
}

func dvFrom5(v *tfplugin5.DynamicValue) *tfprotov6.DynamicValue {
	if v == nil {
		return nil
	}
	return &tfprotov6.DynamicValue{MsgPack: v.Msgpack, JSON: v.Json}
}

func deferredFrom5(d *tfplugin5.Deferred) *tfprotov6.Deferred {
	if d == nil {
		return nil
	}
	return &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(d.Reason)}
}

func diagsFrom5(in []*tfplugin5.Diagnostic) []*tfprotov6.Diagnostic {
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
		case tfplugin5.Diagnostic_ERROR:
			td.Severity = tfprotov6.DiagnosticSeverityError
		case tfplugin5.Diagnostic_WARNING:
			td.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if d.Attribute != nil {
			td.Attribute = pathFrom5(d.Attribute)
		}
		out = append(out, td)
	}
	return out
}

// pathFrom5 keeps the steps up to the first it cannot read, so a path from
// a newer protocol still points at the nearest attribute it names.
func pathFrom5(p *tfplugin5.AttributePath) *tftypes.AttributePath {
	if p == nil {
		return nil
	}
	steps := make([]tftypes.AttributePathStep, 0, len(p.Steps))
steps:
	for _, s := range p.Steps {
		switch sel := s.GetSelector().(type) {
		case *tfplugin5.AttributePath_Step_AttributeName:
			steps = append(steps, tftypes.AttributeName(sel.AttributeName))
		case *tfplugin5.AttributePath_Step_ElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(sel.ElementKeyString))
		case *tfplugin5.AttributePath_Step_ElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(sel.ElementKeyInt))
		default:
			break steps
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}

func schemaFrom5(s *tfplugin5.Schema) (*tfprotov6.Schema, error) {
	if s == nil {
		return &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}}, nil
	}
	b, err := blockFrom5(s.Block)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.Schema{Version: s.Version, Block: b}, nil
}

func blockFrom5(b *tfplugin5.Schema_Block) (*tfprotov6.SchemaBlock, error) {
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
		ta, err := attributeFrom5(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		out.Attributes = append(out.Attributes, ta)
	}
	for _, nb := range b.BlockTypes {
		if nb == nil {
			continue
		}
		inner, err := blockFrom5(nb.Block)
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

func attributeFrom5(a *tfplugin5.Schema_Attribute) (*tfprotov6.SchemaAttribute, error) {
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
	ty, err := typeFromJSON(a.Type)
	if err != nil {
		return nil, err
	}
	out.Type = ty
	return out, nil
}
