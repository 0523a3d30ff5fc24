package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// echoData is the data source testing_echo: testing_echo's echo, read. It
// repeats the provider's api_key in its attribute echo, and in its error
// when fail is true.
type echoData struct{ s *settings }

type echoDataModel struct {
	Echo types.String `tfsdk:"echo"`
	Fail types.Bool   `tfsdk:"fail"`
}

func (*echoData) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_echo"
}

func (*echoData) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"echo": schema.StringAttribute{
				Computed:    true,
				Description: "The provider's api_key, repeated in every way echoes knows.",
			},
			"fail": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, the read fails with an error that repeats the api_key.",
			},
		},
	}
}

func (d *echoData) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*settings); ok {
		d.s = s
	}
}

func (d *echoData) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m echoDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	e := echo{configured{d.s}}
	if m.Fail.ValueBool() {
		resp.Diagnostics.AddError("Request refused", "The service refused the read made with the key "+e.echo()+".")
		return
	}
	m.Echo = types.StringValue(e.echo())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
