package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// configure starts provider configuration node n's provider, when it has
// not started yet, and configures it with the configuration's values as
// planned; one with for_each or count configures each instance
// (configureEach). Values not known until apply leave it to be configured
// again then.
func (e *Engine) configure(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	if n.cfg.Repeat != nil {
		return e.configureEach(ctx, p, n)
	}
	if n.prov == nil {
		if e.Providers.Start == nil {
			return hcl.Diagnostics{errorDiag(n.addr, n.cfg, "Provider not available", fmt.Sprintf("No provider %s can be started here.", n.cfg.Source))}
		}
		prov, err := e.startConfig(n.cfg)
		if err != nil {
			return hcl.Diagnostics{errorDiag(n.addr, n.cfg, "Provider not available", diagnostic.Failed("starting the provider", err))}
		}
		n.prov = withRedaction(prov)
	}
	v, diags := n.cfg.Eval.Evaluate(p.scopeAt(n.mod.instances[0]), config.NoInstance)
	if diags.HasErrors() {
		return diags
	}
	rp := redactingOf(&n.prov)
	known, d := e.configureProvider(ctx, n.addr, n.cfg, rp, v)
	if !known {
		// Configured again during apply, once the values are known, or
		// with the ephemeral values opened for the apply: those of the
		// plan are closed by then (a revoked credential, say).
		n.configUnknown = true
	}
	return append(diags, d...)
}

// configureEach configures a provider configuration repeated with
// for_each: one provider instance per key, each configured with its
// each.key and each.value. A for_each not known yet defers the
// configuration, and with it everything it serves, to a later round.
func (e *Engine) configureEach(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	ni := n.per[0]
	keys, deferredBy, diags := p.repeatKeys(n, ni.mi)
	if diags.HasErrors() {
		return diags
	}
	if deferredBy != "" {
		ni.deferred, ni.waiting, ni.pending = true, deferredBy, true
		return nil
	}
	if n.provs == nil {
		n.provs = map[string]provider.Provider{}
	}
	for _, k := range keys {
		ks := addr.KeyString(k.key)
		prov, ok := n.provs[ks]
		if !ok {
			started, err := e.startConfig(n.cfg)
			if err != nil {
				return append(diags, errorDiag(n.addr+ks, n.cfg, "Provider not available", diagnostic.Failed("starting the provider", err)))
			}
			prov = withRedaction(started)
			n.provs[ks] = prov
		}
		v, d := n.cfg.Eval.Evaluate(p.scopeAt(ni.mi), config.Instance{Key: k.key, Each: k.each})
		diags = append(diags, d...)
		if d.HasErrors() {
			return diags
		}
		rp := redactingOf(&prov)
		n.provs[ks] = prov
		known, d := e.configureProvider(ctx, n.addr+ks, n.cfg, rp, v)
		if !known {
			n.configUnknown = true
		}
		diags = append(diags, d...)
		if diags.HasErrors() {
			return diags
		}
	}
	return diags
}

// instanceProviders gives each instance of a resource whose provider
// configuration is repeated the provider instance its provider key names;
// an instance whose key left for_each is destroyed by the one state
// records.
func (p *Planned) instanceProviders(n *node, ni *nodeInst) hcl.Diagnostics {
	pn := p.nodes[p.byAddr[n.cfg.Provider]]
	for _, in := range ni.insts {
		var ks string
		if in.gone {
			pc, err := addr.ParseProviderConfig(in.recorded.Provider)
			if err != nil {
				return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Unreadable provider in state", diagnostic.Failed("reading the provider recorded with the object", err))}
			}
			ks = pc.Key
		} else {
			scope, inst := p.scopeAt(ni.mi), config.Instance{Key: in.key(), Each: in.each()}
			if up := n.cfg.ProviderKeyFromCall; up > 0 {
				// A module call picked the instance, once per instance of
				// the module it calls: the node's module's call (up = 1)
				// or one around it.
				mi := ni.mi
				for ; up > 1 && mi.parent != nil; up-- {
					mi = mi.parent
				}
				if mi.parent != nil {
					scope, inst = p.scopeAt(mi.parent), config.Instance{Key: mi.key, Each: mi.each}
				}
			}
			k, diags := n.cfg.ProviderKey(scope, inst)
			if diags.HasErrors() {
				return attribute(in.addr, n.cfg, diags)
			}
			uk, _ := k.Unmark()
			if !uk.IsWhollyKnown() || uk.IsNull() || (uk.Type() != cty.String && uk.Type() != cty.Number) {
				return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Invalid provider instance key",
					"The key that picks this resource's provider instance must be a known string or number when planning.")}
			}
			ks = addr.KeyString(uk)
		}
		prov, ok := pn.provs[ks]
		if !ok {
			return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Provider instance not present",
				fmt.Sprintf("%s has no instance %s: its for_each has the keys %s.", pn.addr, ks, strings.Join(slices.Sorted(maps.Keys(pn.provs)), ", ")))}
		}
		in.prov, in.provKey = prov, ks
	}
	return nil
}

// providerDeferrals defers, for this round, every instance of a node in a
// module instance where the provider deferred one: as with a for_each not
// known yet, nothing of it is changed now (its recorded objects are left
// as they are) and what depends on it waits too.
func (p *Planned) providerDeferrals(n *node) {
	for _, ni := range n.per {
		why := ""
		for _, in := range ni.insts {
			if in.deferredBy != "" {
				why = in.deferredBy
				break
			}
		}
		if why == "" {
			continue
		}
		ni.deferred, ni.waiting, ni.pending, ni.byProvider = true, why, true, true
		ni.value = cty.DynamicVal
		ni.insts = nil
		n.deferredAny = true
	}
}

// sensitiveInputs are the sensitive strings of the variables and locals a
// node refers to: a provider may echo one inside a longer value (a path
// built from a password), which the resource's own sensitive values do
// not show alone.
func (p *Planned) sensitiveInputs(n *node, mi *modInstance) []string {
	var out []string
	for _, d := range n.deps {
		dn := p.nodes[d]
		if dn.cfg == nil || (dn.cfg.Kind != config.Variable && dn.cfg.Kind != config.Local) {
			continue
		}
		ni := dn.at(mi)
		if ni == nil || ni.value == cty.NilVal {
			continue
		}
		u, paths := marks.Unmark(ni.value)
		out = append(out, sensitiveStrings(u, paths)...)
	}
	return out
}
