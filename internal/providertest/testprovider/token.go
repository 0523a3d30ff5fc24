package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// token is the ephemeral resource testing_token: a credential that exists
// only while a command runs, as a vault lease or a short-lived database
// password does. Each Open, Renew and Close is appended to the journal
// file when one is configured, so that tests can check when the client
// opened and closed it; nothing else records the token.
type token struct{ configured }

type tokenModel struct {
	Name         types.String `tfsdk:"name"`
	Journal      types.String `tfsdk:"journal"`
	RenewSeconds types.Int64  `tfsdk:"renew_seconds"`
	Value        types.String `tfsdk:"value"`
}

func (*token) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_token"
}

func (*token) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"name":    schema.StringAttribute{Required: true},
			"journal": schema.StringAttribute{Optional: true, Description: "A file to which each open, renewal and close is appended."},
			"renew_seconds": schema.Int64Attribute{Optional: true,
				Description: "When set, the client is asked to renew the token this many seconds after opening it."},
			"value": schema.StringAttribute{Computed: true, Sensitive: true},
		},
	}
}

func (t *token) Configure(_ context.Context, req ephemeral.ConfigureRequest, _ *ephemeral.ConfigureResponse) {
	t.take(req.ProviderData)
}

func (t *token) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m tokenModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The journal names the token with the provider's prefix, so that a
	// test can see which configuration of the provider opened it.
	name := t.s.withPrefix(m.Name).ValueString()
	m.Value = types.StringValue(name + "-token")
	if err := journal(m.Journal, "open "+name); err != nil {
		resp.Diagnostics.AddError("Cannot write the journal", err.Error())
		return
	}
	lease, _ := json.Marshal(tokenLease{Name: name, Journal: m.Journal.ValueString(), RenewSeconds: m.RenewSeconds.ValueInt64()})
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, "lease", lease)...)
	if n := m.RenewSeconds.ValueInt64(); n > 0 {
		resp.RenewAt = time.Now().Add(time.Duration(n) * time.Second)
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}

// tokenLease is what Open keeps in private data: Renew and Close are given
// nothing else.
type tokenLease struct {
	Name         string `json:"name"`
	Journal      string `json:"journal"`
	RenewSeconds int64  `json:"renew_seconds"`
}

func (*token) Renew(ctx context.Context, req ephemeral.RenewRequest, resp *ephemeral.RenewResponse) {
	l, diags := leaseOf(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	if err := journal(types.StringValue(l.Journal), "renew "+l.Name); err != nil {
		resp.Diagnostics.AddError("Cannot write the journal", err.Error())
		return
	}
	resp.RenewAt = time.Now().Add(time.Duration(l.RenewSeconds) * time.Second)
}

func (*token) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	l, diags := leaseOf(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	if err := journal(types.StringValue(l.Journal), "close "+l.Name); err != nil {
		resp.Diagnostics.AddError("Cannot write the journal", err.Error())
	}
}

func leaseOf(ctx context.Context, p interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}) (tokenLease, diag.Diagnostics) {
	var l tokenLease
	b, diags := p.GetKey(ctx, "lease")
	if diags.HasError() {
		return l, diags
	}
	if err := json.Unmarshal(b, &l); err != nil {
		diags.AddError("Unreadable private data", fmt.Sprintf("The token's lease %q cannot be read: %s.", b, err))
	}
	return l, diags
}

// journal appends line to the file at path, when one is set.
func journal(path types.String, line string) error {
	if path.IsNull() || path.ValueString() == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path.ValueString()), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path.ValueString(), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
