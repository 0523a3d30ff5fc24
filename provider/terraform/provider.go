package terraform

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/provider"
)

// Type names of the provider's resource and data source.
const (
	dataType        = "terraform_data"
	remoteStateType = "terraform_remote_state"
)

type terraformProvider struct {
	schema   *provider.Schema
	dataType cty.Type
}

// New returns the built-in terraform provider. It has no configuration
// and is safe for concurrent use.
func New() provider.Provider {
	p := &terraformProvider{
		schema: &provider.Schema{
			Provider: &provider.Block{},
			Resources: provider.NewTypes(map[string]*provider.ResourceSchema{
				dataType: dataSchema(),
			}),
			DataSources: provider.NewTypes(map[string]*provider.ResourceSchema{
				remoteStateType: remoteStateSchema(),
			}),
			Functions: provider.NewFunctions(functions()),
		},
	}
	p.dataType = dataSchema().Block.ImpliedType()
	return p
}

func (p *terraformProvider) GetSchema() (*provider.Schema, hcl.Diagnostics) {
	return p.schema, nil
}

func (p *terraformProvider) ValidateProviderConfig(cty.Value) hcl.Diagnostics { return nil }

func (p *terraformProvider) ConfigureProvider(context.Context, cty.Value) hcl.Diagnostics {
	return nil
}

func (p *terraformProvider) ValidateResourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	if typeName != dataType {
		return unsupported("resource", typeName)
	}
	return validateData(config)
}

func (p *terraformProvider) ValidateDataSourceConfig(typeName string, config cty.Value) hcl.Diagnostics {
	if typeName != remoteStateType {
		return unsupported("data source", typeName)
	}
	return validateRemoteState(config)
}

func (p *terraformProvider) ValidateEphemeralConfig(typeName string, _ cty.Value) hcl.Diagnostics {
	return unsupported("ephemeral resource", typeName)
}

func (p *terraformProvider) UpgradeResourceState(_ context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	if req.TypeName != dataType {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("resource", req.TypeName)}
	}
	v, err := ctyjson.Unmarshal(req.RawStateJSON, p.dataType)
	if err != nil {
		return provider.UpgradeResponse{UpgradedState: cty.NullVal(p.dataType), Diagnostics: hcl.Diagnostics{
			diagnostic.Wrap("Invalid recorded terraform_data", "reading the recorded object", err)}}
	}
	return provider.UpgradeResponse{UpgradedState: v}
}

func (p *terraformProvider) ReadResource(_ context.Context, req provider.ReadRequest) provider.ReadResponse {
	// The object is its own record: there is nothing else to read.
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (p *terraformProvider) PlanResourceChange(_ context.Context, req provider.PlanRequest) provider.PlanResponse {
	if req.TypeName != dataType {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: unsupported("resource", req.TypeName)}
	}
	return planData(req)
}

func (p *terraformProvider) ApplyResourceChange(_ context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if req.TypeName != dataType {
		return provider.ApplyResponse{NewState: req.PriorState, Diagnostics: unsupported("resource", req.TypeName)}
	}
	return applyData(req)
}

func (p *terraformProvider) ImportResourceState(_ context.Context, req provider.ImportRequest) provider.ImportResponse {
	if req.TypeName != dataType {
		return provider.ImportResponse{Diagnostics: unsupported("resource", req.TypeName)}
	}
	return provider.ImportResponse{Imported: []provider.ImportedResource{{TypeName: dataType, State: importedData(req.ID)}}}
}

func (p *terraformProvider) MoveResourceState(_ context.Context, req provider.MoveRequest) provider.MoveResponse {
	if req.TargetTypeName != dataType {
		return provider.MoveResponse{TargetState: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("resource", req.TargetTypeName)}
	}
	return moveToData(req)
}

func (p *terraformProvider) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	if req.TypeName != remoteStateType {
		return provider.ReadDataResponse{State: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("data source", req.TypeName)}
	}
	return readRemoteState(ctx, req.Config)
}

func (p *terraformProvider) OpenEphemeral(_ context.Context, req provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	return provider.OpenEphemeralResponse{Result: cty.NullVal(cty.DynamicPseudoType), Diagnostics: unsupported("ephemeral resource", req.TypeName)}
}

func (p *terraformProvider) RenewEphemeral(_ context.Context, req provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	return provider.RenewEphemeralResponse{Diagnostics: unsupported("ephemeral resource", req.TypeName)}
}

func (p *terraformProvider) CloseEphemeral(_ context.Context, req provider.CloseEphemeralRequest) hcl.Diagnostics {
	return unsupported("ephemeral resource", req.TypeName)
}

func (p *terraformProvider) Close() error { return nil }

func unsupported(kind, name string) hcl.Diagnostics {
	return hcl.Diagnostics{diagnostic.Error(fmt.Sprintf("Unsupported %s type", kind),
		fmt.Sprintf("The built-in terraform provider has no %s type named %q.", kind, name))}
}

// pathExtra ties a diagnostic to the attribute it is about, so that the
// engine points at the argument that set it.
type pathExtra struct{ path cty.Path }

func (e pathExtra) AttributePath() cty.Path { return e.path }

// attrError is a diagnostic about the attribute name.
func attrError(name, summary, detail string) *hcl.Diagnostic {
	d := diagnostic.Error(summary, detail)
	d.Extra = pathExtra{cty.GetAttrPath(name)}
	return d
}
