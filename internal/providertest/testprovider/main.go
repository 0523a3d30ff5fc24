package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// upgradedSchema is the schema version of testing_upgraded, "1" unless the
// build sets it to "0" with -ldflags "-X main.upgradedSchema=0".
var upgradedSchema = "1"

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return testingProvider{} }, providerserver.ServeOpts{
		Address:         "registry.terraform.io/tetherhq/testing",
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}

type testingProvider struct{}

// providerModel is the provider's configuration.
type providerModel struct {
	Prefix        types.String `tfsdk:"prefix"`
	FailConfigure types.Bool   `tfsdk:"fail_configure"`
	DeferUnknown  types.Bool   `tfsdk:"defer_unknown"`
	APIKey        types.String `tfsdk:"api_key"`
}

// settings is what Configure hands to the resources.
type settings struct {
	// prefix starts every name a resource makes. It is unknown while
	// planning when the configuration takes it from an object not yet
	// created; Terraform configures the provider again, with the known
	// value, before applying.
	prefix types.String
	// apiKey is the api_key the provider was configured with, which it
	// echoes, as careless providers do, in a warning, its log, and
	// testing_echo's attributes and errors.
	apiKey string
}

// withPrefix is s.prefix + name, unknown when either is.
func (s *settings) withPrefix(name types.String) types.String {
	if s == nil || s.prefix.IsUnknown() || name.IsUnknown() {
		return types.StringUnknown()
	}
	return types.StringValue(s.prefix.ValueString() + name.ValueString())
}

func (testingProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "testing"
}

func (testingProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A provider for Tether's tests.",
		Attributes: map[string]schema.Attribute{
			"prefix": schema.StringAttribute{
				Optional:    true,
				Description: "Starts every name the resources make.",
			},
			"fail_configure": schema.BoolAttribute{
				Optional:    true,
				Description: "When true, configuring the provider fails.",
			},
			"api_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "A credential the provider echoes back: in a warning when configured, in its log, and in testing_echo's echo attribute and errors, whole, in part and encoded.",
			},
			"defer_unknown": schema.BoolAttribute{
				Optional:    true,
				Description: "When true and prefix is not known yet, the provider defers everything it is asked to plan or read, where the client allows.",
			},
		},
	}
}

func (testingProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.FailConfigure.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("fail_configure"),
			"Provider configuration refused",
			"The testing provider was configured with fail_configure = true, so it refuses to be configured.")
		return
	}
	if m.DeferUnknown.ValueBool() && m.Prefix.IsUnknown() && req.ClientCapabilities.DeferralAllowed {
		resp.Deferred = &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}
		return
	}
	s := &settings{prefix: m.Prefix, apiKey: m.APIKey.ValueString()}
	if k := s.apiKey; k != "" {
		resp.Diagnostics.AddWarning("Configured with an API key", "The testing provider was configured with the API key "+echoes(k)+".")
		tflog.Info(ctx, "configured with api_key="+echoes(k))
	}
	if m.Prefix.IsNull() {
		s.prefix = types.StringValue("")
	}
	resp.ResourceData = s
	resp.DataSourceData = s
	resp.EphemeralResourceData = s
}

func (testingProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &thing{} },
		func() resource.Resource { return &nested{} },
		func() resource.Resource { return &upgraded{} },
		func() resource.Resource { return &file{} },
		func() resource.Resource { return &moved{} },
		func() resource.Resource { return &secret{} },
		func() resource.Resource { return &echo{} },
	}
}

func (testingProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		func() datasource.DataSource { return &echoData{} },
	}
}

func (testingProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		func() ephemeral.EphemeralResource { return &token{} },
	}
}

// configured is embedded by every resource, data source and ephemeral
// resource: it keeps the provider's settings. Its Configure is a
// resource's; the others' call take.
type configured struct{ s *settings }

// take keeps the settings the provider's Configure handed over, if any:
// the framework also configures a type before the provider is.
func (c *configured) take(providerData any) {
	if s, ok := providerData.(*settings); ok {
		c.s = s
	}
}

func (c *configured) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	c.take(req.ProviderData)
}

// echo is the provider's api_key repeated in every way echoes knows, or
// "" when it has no key long enough to cut in two.
func (c *configured) echo() string {
	if c.s == nil || len(c.s.apiKey) < 2 {
		return ""
	}
	return echoes(c.s.apiKey)
}
