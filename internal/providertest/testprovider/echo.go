package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// echo is testing_echo: a resource that repeats the provider's api_key in
// its computed attribute echo, and in its error when fail is true, the
// way a careless provider repeats a credential it was configured with.
type echo struct{ configured }

type echoModel struct {
	ID   types.String `tfsdk:"id"`
	Echo types.String `tfsdk:"echo"`
	Fail types.Bool   `tfsdk:"fail"`
}

// echoes is every way the provider repeats a key: whole, upper-cased, cut
// in two halves, hex, inside a base64 Basic credential, and its SHA-256.
func echoes(key string) string {
	half := len(key) / 2
	sum := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s (upper %s; starts %s...; ...ends %s; hex %s; Basic %s; sha256 %s)",
		key, strings.ToUpper(key), key[:half], key[half:], hex.EncodeToString([]byte(key)),
		base64.StdEncoding.EncodeToString([]byte("user:"+key)), hex.EncodeToString(sum[:]))
}

func (*echo) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_echo"
}

func (*echo) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"echo": schema.StringAttribute{
				Computed:    true,
				Description: "The provider's api_key, repeated in every way echoes knows.",
			},
			"fail": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, creating the object fails with an error that repeats the api_key.",
			},
		},
	}
}

func (e *echo) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || e.s == nil {
		return
	}
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (e *echo) echo() string {
	if e.s == nil || len(e.s.apiKey) < 2 {
		return ""
	}
	return echoes(e.s.apiKey)
}

func (e *echo) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Fail.ValueBool() {
		resp.Diagnostics.AddError("Request refused", "The service refused the request made with the key "+e.echo()+".")
		return
	}
	m.ID = types.StringValue("echo")
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (*echo) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (e *echo) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (*echo) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
