package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// echo is testing_echo: a resource that repeats the provider's api_key in
// its computed attribute echo, and in its error when fail is true, the
// way a careless provider repeats a credential it was configured with.
// It also keeps the key in its private data, as a provider keeps what it
// needs to find the object again, and refuses to read or update an object
// whose private data does not hold the key it is configured with: private
// data must come back exactly as the provider wrote it.
type echo struct{ configured }

// echoDescription is the description of the echo attribute of
// testing_echo, resource and data source.
const echoDescription = "The provider's api_key, repeated in every way echoes knows."

// privateKey is the key of the api_key in testing_echo's private data.
const privateKey = "api_key"

type echoModel struct {
	ID    types.String `tfsdk:"id"`
	Echo  types.String `tfsdk:"echo"`
	Fail  types.Bool   `tfsdk:"fail"`
	Input types.String `tfsdk:"input"`
	Parts types.List   `tfsdk:"part"`
}

// partModel is a part block of testing_echo: its computed echo repeats
// the block's input inside a longer value, as a provider echoes an
// argument into a nested block's computed attribute.
type partModel struct {
	Input types.String `tfsdk:"input"`
	Echo  types.String `tfsdk:"echo"`
}

var partTypes = map[string]attr.Type{"input": types.StringType, "echo": types.StringType}

// echoParts sets the echo of every part block from its input, and warns
// with each input, as a careless provider repeats an argument in a
// warning.
func echoParts(ctx context.Context, m *echoModel) diag.Diagnostics {
	if m.Parts.IsNull() || m.Parts.IsUnknown() {
		return nil
	}
	var parts []partModel
	diags := m.Parts.ElementsAs(ctx, &parts, false)
	if diags.HasError() {
		return diags
	}
	for i := range parts {
		echo := "part"
		if in := parts[i].Input.ValueString(); len(in) >= 2 {
			echo = "part " + echoes(in)
			diags.AddWarning("Part echoed", "The part's input was "+echoes(in)+".")
		}
		parts[i].Echo = types.StringValue(echo)
	}
	var d diag.Diagnostics
	m.Parts, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: partTypes}, parts)
	return append(diags, d...)
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
			"echo": schema.StringAttribute{Computed: true, Description: echoDescription},
			"fail": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, creating the object fails with an error that repeats the api_key and input.",
			},
			"input": schema.StringAttribute{
				Optional:    true,
				Description: "Any string, repeated like the api_key in the error when fail is true.",
			},
		},
		Blocks: map[string]schema.Block{
			"part": schema.ListNestedBlock{
				Description: "A nested block whose computed echo repeats its input, in every way echoes knows, inside a longer value.",
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"input": schema.StringAttribute{Optional: true},
						"echo":  schema.StringAttribute{Computed: true},
					},
				},
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

// refuse adds the error testing_echo fails with when told to (fail =
// true), resource and data source: it repeats the api_key, and input
// when there is one, as a careless service's error does. what names the
// call refused.
func (c *configured) refuse(diags *diag.Diagnostics, what, input string) {
	detail := "The service refused the " + what + " made with the key " + c.echo() + "."
	if len(input) >= 2 {
		detail += " Its input was " + echoes(input) + "."
	}
	diags.AddError("Request refused", detail)
}

func (e *echo) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Fail.ValueBool() {
		e.refuse(&resp.Diagnostics, "request", m.Input.ValueString())
		return
	}
	m.ID = types.StringValue("echo")
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(echoParts(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	if e.s != nil && e.s.apiKey != "" {
		key, _ := json.Marshal(e.s.apiKey)
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateKey, key)...)
	}
}

// checkPrivate fails unless the private data holds the key the provider
// is configured with, or no key when it has none.
func (e *echo) checkPrivate(ctx context.Context, private interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}, diags *diag.Diagnostics) {
	raw, d := private.GetKey(ctx, privateKey)
	diags.Append(d...)
	var kept string
	if raw != nil {
		if err := json.Unmarshal(raw, &kept); err != nil {
			diags.AddError("Private data damaged", "The private data of testing_echo does not hold a JSON string: "+err.Error())
			return
		}
	}
	want := ""
	if e.s != nil {
		want = e.s.apiKey
	}
	if kept != want {
		diags.AddError("Private data changed", "The private data of testing_echo does not hold the api_key the provider is configured with: it did not come back as the provider wrote it.")
	}
}

func (e *echo) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	e.checkPrivate(ctx, req.Private, &resp.Diagnostics)
}

func (e *echo) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	e.checkPrivate(ctx, req.Private, &resp.Diagnostics)
	var m echoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(echoParts(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (*echo) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
