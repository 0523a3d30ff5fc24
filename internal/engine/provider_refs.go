package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/redact"
)

// A reference in a provider configuration is resolved, like one in a
// resource's arguments, right before the call that needs it: each time
// the provider is configured. A provider keeps its configuration for
// every later call, so it can echo a resolved value in any of them (an
// error naming the credential it was given, a computed attribute built
// from it); the provider instance is therefore wrapped in a redacting
// provider that takes every resolved value of its configurations out of
// everything the provider says or returns, whole, encoded, digested or in
// part (see package redact), and the provider's own log lines get the
// same treatment.

// redacting is a provider instance whose diagnostics and returned values
// have the resolved values of its configurations replaced by their
// references' descriptions. Ephemeral results are left alone: they are
// never recorded or shown, and a credential derived from the
// configuration must reach its consumer intact.
//
// Sensitive values of its configurations (from a sensitive variable, or
// at an attribute the provider's schema marks sensitive) are scrubbed from
// its diagnostics as "(sensitive value)" but not rewritten in what it
// returns: like a resource's own sensitive arguments, the engine marks
// what holds them sensitive and seals it (see markDerived, sealPrivate).
type redacting struct {
	provider.Provider
	set       *redact.Set
	sensitive *redact.Set
	// also holds the secrets of the instances it serves (see
	// instance.shareSecrets), scrubbed from its diagnostics only.
	also *redact.Set

	mu      sync.Mutex
	secrets []string

	// configured counts the ConfigureProvider calls made on it: a
	// provider instance configured again during apply may judge a
	// resource's configuration differently than it did at plan.
	configured atomic.Uint64
}

// withRedaction wraps a provider instance that a provider configuration
// node starts.
func withRedaction(p provider.Provider) *redacting {
	return &redacting{Provider: p, set: &redact.Set{}, sensitive: &redact.Set{}, also: &redact.Set{}}
}

// providerSecrets are the sensitive strings the configurations of a
// provider instance held, to be found in what its resources return.
func providerSecrets(p provider.Provider) []string {
	rp, ok := p.(*redacting)
	if !ok {
		return nil
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return slices.Clone(rp.secrets)
}

// addSensitive records the sensitive strings of a configuration: at the
// paths marked sensitive and at the attributes the provider's schema
// marks sensitive. Resolved references are left to the provider's
// redaction set: they are replaced by their descriptions.
func (p *redacting) addSensitive(uv cty.Value, paths []cty.Path, resolved []string) {
	if s, _ := p.Provider.GetSchema(); s != nil && s.Provider != nil {
		paths = append(paths, s.Provider.SensitivePaths(uv, nil)...)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range sensitiveStrings(uv, paths) {
		if slices.Contains(p.secrets, s) || slices.Contains(resolved, s) {
			continue
		}
		p.secrets = append(p.secrets, s)
		p.sensitive.Add(s, "(sensitive value)")
		logging.Redact(s, "(sensitive value)")
	}
}

// redactingOf is the redacting provider *p is, wrapping it (and storing
// the wrapper in *p) if it is not one yet.
func redactingOf(p *provider.Provider) *redacting {
	if rp, ok := (*p).(*redacting); ok {
		return rp
	}
	rp := withRedaction(*p)
	*p = rp
	return rp
}

// ConfigureProvider validates and configures a provider instance outside
// a plan, for a Go program's direct-form data source reads, which run
// while the program runs: v is the configuration with its references as
// placeholders (refs.Placeholders), resolved for the call. The provider
// returned wraps p: as during a plan, everything p says or returns
// afterwards has each resolved value replaced by its reference's
// description, and each sensitive value of v scrubbed from its
// diagnostics. address names the provider in diagnostics.
func ConfigureProvider(ctx context.Context, address string, p provider.Provider, v cty.Value) (provider.Provider, hcl.Diagnostics) {
	rp := withRedaction(p)
	_, diags := (&Engine{}).configureProvider(ctx, address, nil, rp, v)
	return rp, diags
}

// configureProvider validates and configures one provider instance with
// a configuration evaluated from node n, resolving its references first.
// It reports whether the configuration was wholly known.
func (e *Engine) configureProvider(ctx context.Context, address string, cn *config.Node, p *redacting, v cty.Value) (known bool, diags hcl.Diagnostics) {
	res, diags := e.resolveRefs(ctx, address, cn, v)
	if diags.HasErrors() {
		return true, diags
	}
	res.addTo(p.set)
	uv, paths := marks.Unmark(v)
	// An ephemeral value is never recorded: one the provider echoes is
	// judged as a sensitive one is, and sealed.
	paths = append(paths, marks.EphemeralPaths(v)...)
	known = uv.IsWhollyKnown() && !marks.ContainsEphemeral(v)
	uv = res.substitute(uv)
	var resolved []string
	if res != nil {
		resolved = res.secrets
	}
	p.addSensitive(uv, paths, resolved)
	diags = append(diags, p.ValidateProviderConfig(uv)...)
	if diags.HasErrors() {
		return known, diags
	}
	return known, append(diags, p.ConfigureProvider(ctx, uv)...)
}

func (p *redacting) diags(d hcl.Diagnostics) hcl.Diagnostics {
	return redactDiags(d, p.set, p.sensitive, p.also)
}

func (p *redacting) value(v cty.Value) cty.Value {
	if p.set.Empty() || v == cty.NilVal {
		return v
	}
	out, _ := cty.Transform(v, func(_ cty.Path, leaf cty.Value) (cty.Value, error) {
		if leaf.Type() != cty.String || !leaf.IsKnown() || leaf.IsNull() {
			return leaf, nil
		}
		u, m := leaf.Unmark()
		return cty.StringVal(p.set.String(u.AsString())).WithMarks(m), nil
	})
	return out
}

func (p *redacting) GetSchema() (*provider.Schema, hcl.Diagnostics) {
	s, d := p.Provider.GetSchema()
	return s, p.diags(d)
}

func (p *redacting) ValidateProviderConfig(c cty.Value) hcl.Diagnostics {
	return p.diags(p.Provider.ValidateProviderConfig(c))
}

func (p *redacting) ValidateResourceConfig(t string, c cty.Value) hcl.Diagnostics {
	return p.diags(p.Provider.ValidateResourceConfig(t, c))
}

func (p *redacting) ValidateDataSourceConfig(t string, c cty.Value) hcl.Diagnostics {
	return p.diags(p.Provider.ValidateDataSourceConfig(t, c))
}

func (p *redacting) ValidateEphemeralConfig(t string, c cty.Value) hcl.Diagnostics {
	return p.diags(p.Provider.ValidateEphemeralConfig(t, c))
}

func (p *redacting) ConfigureProvider(ctx context.Context, c cty.Value) hcl.Diagnostics {
	p.configured.Add(1)
	return p.diags(p.Provider.ConfigureProvider(ctx, c))
}

func (p *redacting) UpgradeResourceState(ctx context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	resp := p.Provider.UpgradeResourceState(ctx, req)
	resp.UpgradedState, resp.Diagnostics = p.value(resp.UpgradedState), p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	resp := p.Provider.ReadResource(ctx, req)
	resp.NewState, resp.Diagnostics = p.value(resp.NewState), p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	resp := p.Provider.PlanResourceChange(ctx, req)
	resp.PlannedState, resp.Diagnostics = p.value(resp.PlannedState), p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	resp := p.Provider.ApplyResourceChange(ctx, req)
	resp.NewState, resp.Diagnostics = p.value(resp.NewState), p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) ImportResourceState(ctx context.Context, req provider.ImportRequest) provider.ImportResponse {
	resp := p.Provider.ImportResourceState(ctx, req)
	for i := range resp.Imported {
		resp.Imported[i].State = p.value(resp.Imported[i].State)
	}
	resp.Diagnostics = p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) ReadDataSource(ctx context.Context, req provider.ReadDataRequest) provider.ReadDataResponse {
	resp := p.Provider.ReadDataSource(ctx, req)
	resp.State, resp.Diagnostics = p.value(resp.State), p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) OpenEphemeral(ctx context.Context, req provider.OpenEphemeralRequest) provider.OpenEphemeralResponse {
	resp := p.Provider.OpenEphemeral(ctx, req)
	resp.Diagnostics = p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) RenewEphemeral(ctx context.Context, req provider.RenewEphemeralRequest) provider.RenewEphemeralResponse {
	resp := p.Provider.RenewEphemeral(ctx, req)
	resp.Diagnostics = p.diags(resp.Diagnostics)
	return resp
}

func (p *redacting) CloseEphemeral(ctx context.Context, req provider.CloseEphemeralRequest) hcl.Diagnostics {
	return p.diags(p.Provider.CloseEphemeral(ctx, req))
}

func (p *redacting) MoveResourceState(ctx context.Context, req provider.MoveRequest) provider.MoveResponse {
	resp := p.Provider.MoveResourceState(ctx, req)
	resp.TargetState, resp.Diagnostics = p.value(resp.TargetState), p.diags(resp.Diagnostics)
	return resp
}
