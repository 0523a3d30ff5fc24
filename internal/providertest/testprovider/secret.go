package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// secret is testing_secret: its password_wo is write-only, given by the
// configuration at plan and apply and never returned; password_version
// says when to send it again, as write-only attributes are used.
type secret struct{ configured }

type secretModel struct {
	ID              types.String `tfsdk:"id"`
	Name            types.String `tfsdk:"name"`
	PasswordWO      types.String `tfsdk:"password_wo"`
	PasswordVersion types.Int64  `tfsdk:"password_version"`
	Applied         types.Bool   `tfsdk:"applied"`
}

func (*secret) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_secret"
}

func (*secret) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name":             schema.StringAttribute{Required: true},
			"password_wo":      schema.StringAttribute{Optional: true, Sensitive: true, WriteOnly: true},
			"password_version": schema.Int64Attribute{Optional: true},
			// applied says whether the apply was given a password: what a
			// real resource would pass on to its API.
			"applied": schema.BoolAttribute{Computed: true},
		},
	}
}

func (*secret) apply(ctx context.Context, config secretModel) secretModel {
	m := config
	m.ID = types.StringValue("secret-" + config.Name.ValueString())
	m.Applied = types.BoolValue(!config.PasswordWO.IsNull() && config.PasswordWO.ValueString() != "")
	m.PasswordWO = types.StringNull()
	return m
}

func (s *secret) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(s.write(ctx, req.Config, &resp.State)...)
}

// write makes the object from the configuration, which alone holds the
// write-only password.
func (s *secret) write(ctx context.Context, config tfsdk.Config, state *tfsdk.State) diag.Diagnostics {
	var c secretModel
	diags := config.Get(ctx, &c)
	if diags.HasError() {
		return diags
	}
	m := s.apply(ctx, c)
	return append(diags, state.Set(ctx, &m)...)
}

func (*secret) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m secretModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (s *secret) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(s.write(ctx, req.Config, &resp.State)...)
}

func (*secret) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
