package main

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// nested is testing_nested: protocol 6 nested attributes (single, list and
// map), with computed attributes inside the list's objects.
type nested struct{ configured }

type nestedModel struct {
	ID       types.String `tfsdk:"id"`
	Settings types.Object `tfsdk:"settings"`
	Rules    types.List   `tfsdk:"rules"`
	ByName   types.Map    `tfsdk:"by_name"`
	Summary  types.String `tfsdk:"summary"`
}

type ruleModel struct {
	Name types.String `tfsdk:"name"`
	Port types.Int64  `tfsdk:"port"`
	Key  types.String `tfsdk:"key"`
}

var ruleTypes = map[string]attr.Type{"name": types.StringType, "port": types.Int64Type, "key": types.StringType}

func (*nested) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nested"
}

func (*nested) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"settings": schema.SingleNestedAttribute{
				Required: true,
				Attributes: map[string]schema.Attribute{
					"mode":   schema.StringAttribute{Required: true},
					"level":  schema.Int64Attribute{Optional: true},
					"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType},
				},
			},
			"rules": schema.ListNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name": schema.StringAttribute{Required: true},
						"port": schema.Int64Attribute{Optional: true},
						"key": schema.StringAttribute{
							Computed:    true,
							Description: "The provider's prefix, the rule's name and its port.",
						},
					},
				},
			},
			"by_name": schema.MapNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"value": schema.StringAttribute{Required: true},
					},
				},
			},
			"summary": schema.StringAttribute{
				Computed:    true,
				Description: "The mode, the number of rules and the number of by_name entries.",
			},
		},
	}
}

func (n *nested) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(n.record(ctx, req.Plan, &resp.State)...)
}

// record completes the planned object and records it.
func (n *nested) record(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State) diag.Diagnostics {
	var m nestedModel
	diags := plan.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	m.ID = types.StringValue("nested")
	diags.Append(n.complete(ctx, &m)...)
	return append(diags, state.Set(ctx, &m)...)
}

// complete sets the computed attributes of a planned object.
func (n *nested) complete(ctx context.Context, m *nestedModel) diag.Diagnostics {
	var diags diag.Diagnostics
	var mode string
	if v, ok := m.Settings.Attributes()["mode"].(basetypes.StringValue); ok {
		mode = v.ValueString()
	}
	var rules []ruleModel
	if !m.Rules.IsNull() {
		diags.Append(m.Rules.ElementsAs(ctx, &rules, false)...)
		for i := range rules {
			rules[i].Key = types.StringValue(fmt.Sprintf("%s%s:%d", n.s.prefix.ValueString(), rules[i].Name.ValueString(), rules[i].Port.ValueInt64()))
		}
		var d diag.Diagnostics
		m.Rules, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: ruleTypes}, rules)
		diags.Append(d...)
	}
	m.Summary = types.StringValue(fmt.Sprintf("mode %s, %d rules, %d by name", mode, len(rules), len(m.ByName.Elements())))
	return diags
}

func (*nested) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (n *nested) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(n.record(ctx, req.Plan, &resp.State)...)
}

func (*nested) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
