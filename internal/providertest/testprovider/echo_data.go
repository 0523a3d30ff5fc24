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
type echoData struct{ configured }

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
			"echo": schema.StringAttribute{Computed: true, Description: echoDescription},
			"fail": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, the read fails with an error that repeats the api_key.",
			},
		},
	}
}

func (d *echoData) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	d.take(req.ProviderData)
}

func (d *echoData) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m echoDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Fail.ValueBool() {
		d.refuse(&resp.Diagnostics, "read", "")
		return
	}
	m.Echo = types.StringValue(d.echo())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
