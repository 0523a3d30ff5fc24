package main

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// serial is testing_thing's serial: above 2^53, so a float64 cannot hold it.
const serial int64 = 7227701560655103598

// thing is testing_thing: a name with the provider's prefix, a serial
// number, and a way to make the provider exit while creating it.
type thing struct{ configured }

type thingModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	Result        types.String `tfsdk:"result"`
	Big           types.Int64  `tfsdk:"big"`
	Serial        types.Int64  `tfsdk:"serial"`
	CrashOnCreate types.Bool   `tfsdk:"crash_on_create"`
}

func (*thing) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (*thing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"result": schema.StringAttribute{
				Computed:    true,
				Description: "The provider's prefix followed by name.",
			},
			"big": schema.Int64Attribute{
				Optional:    true,
				Description: "Any 64-bit integer, kept exactly.",
			},
			"serial": schema.Int64Attribute{
				Computed:      true,
				Description:   "7227701560655103598, which a float64 would round.",
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"crash_on_create": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, the provider process exits (status 2) while creating the object.",
			},
		},
	}
}

// ModifyPlan plans result from the provider's prefix: unknown while the
// prefix is, and a change in place when the prefix changes.
func (t *thing) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m thingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Result = t.s.withPrefix(m.Name)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (t *thing) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var crash types.Bool
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("crash_on_create"), &crash)...)
	if crash.ValueBool() {
		os.Exit(2)
	}
	resp.Diagnostics.Append(t.record(ctx, req.Plan, &resp.State)...)
}

// record completes the planned object and records it.
func (t *thing) record(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State) diag.Diagnostics {
	var m thingModel
	diags := plan.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	m.ID = m.Name
	m.Serial = types.Int64Value(serial)
	m.Result = t.s.withPrefix(m.Name)
	return append(diags, state.Set(ctx, &m)...)
}

func (*thing) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (t *thing) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(t.record(ctx, req.Plan, &resp.State)...)
}

func (*thing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
