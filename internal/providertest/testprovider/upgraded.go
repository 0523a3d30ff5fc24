package main

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// upgraded is testing_upgraded. Its schema version 0 had size as a string;
// version 1 has it as a number and upgrades objects recorded with version
// 0. Which schema a build has is upgradedSchema.
type upgraded struct{ configured }

type upgradedModelV0 struct {
	ID    types.String `tfsdk:"id"`
	Value types.String `tfsdk:"value"`
	Size  types.String `tfsdk:"size"`
}

type upgradedModelV1 struct {
	ID    types.String `tfsdk:"id"`
	Value types.String `tfsdk:"value"`
	Size  types.Int64  `tfsdk:"size"`
}

func (*upgraded) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_upgraded"
}

// upgradedSchemaV returns the schema of version v, 0 or 1.
func upgradedSchemaV(v int64) schema.Schema {
	var size schema.Attribute = schema.Int64Attribute{Required: true}
	if v == 0 {
		size = schema.StringAttribute{Required: true}
	}
	return schema.Schema{
		Version: v,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"value": schema.StringAttribute{Required: true},
			"size":  size,
		},
	}
}

func (*upgraded) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	if upgradedSchema == "0" {
		resp.Schema = upgradedSchemaV(0)
		return
	}
	resp.Schema = upgradedSchemaV(1)
}

func (*upgraded) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	if upgradedSchema == "0" {
		return nil
	}
	prior := upgradedSchemaV(0)
	return map[int64]resource.StateUpgrader{
		0: {
			PriorSchema: &prior,
			StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
				var old upgradedModelV0
				resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
				if resp.Diagnostics.HasError() {
					return
				}
				size, err := strconv.ParseInt(old.Size.ValueString(), 10, 64)
				if err != nil {
					resp.Diagnostics.AddAttributeError(path.Root("size"),
						"Invalid size in prior state",
						"The size recorded with schema version 0 is not an integer: "+err.Error()+".")
					return
				}
				resp.Diagnostics.Append(resp.State.Set(ctx, upgradedModelV1{ID: old.ID, Value: old.Value, Size: types.Int64Value(size)})...)
			},
		},
	}
}

func (*upgraded) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw.Copy()
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), "upgraded")...)
}

func (*upgraded) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (*upgraded) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw.Copy()
}

func (*upgraded) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
