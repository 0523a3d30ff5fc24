package engine

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/state"
)

// A destroy's walk.
//
// As in Terraform, a destroy first refreshes what state records and reads
// the data sources, with the configuration evaluated as a plan evaluates
// it: module instances are expanded by their count or for_each (which may
// come from a data source), module outputs and locals take the values of
// the objects state records, and the provider configurations are
// configured from them. No rule (precondition, postcondition, variable
// validation, check) is evaluated, and nothing is planned but the deletion
// of every recorded object, which planOrphans does from what this walk
// refreshed. Root outputs are planned for removal.
//
// Applying a destroy evaluates nothing again: Terraform's destroy leaves
// out of its graph every local, variable and output no provider needs,
// since they may no longer evaluate once objects are gone; a provider
// configured with values unknown at plan is configured during apply with
// those the plan evaluated.

// destroyResources evaluates a resource, data source or ephemeral resource
// node for a destroy: each instance's value is its recorded object,
// refreshed, or the result of reading it. Nothing is claimed, so every
// recorded object is destroyed as an orphan.
func (e *Engine) destroyResources(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	var all []*instance
	var owner owners
	known := map[*nodeInst]bool{}
	for _, ni := range n.per {
		ni.value = cty.DynamicVal
		keys, deferredBy, d := p.repeatKeys(n, ni.mi)
		if d.HasErrors() {
			return d
		}
		if deferredBy != "" {
			// Not known: its recorded objects are destroyed all the same,
			// and nothing that needs its value can be known.
			continue
		}
		known[ni] = true
		byAddr := map[string]*state.Object{}
		if g := p.recordedAt(n, ni.mi); g != nil {
			for _, obj := range g.objs {
				byAddr[obj.Address] = obj
			}
		}
		for i := range keys {
			k := &keys[i]
			in := &instance{addr: instanceAddr(n, ni.mi, k.key), rk: k.ref(), recorded: byAddr[instanceAddr(n, ni.mi, k.key)]}
			ni.insts = append(ni.insts, in)
			owner.add(in, ni)
			all = append(all, in)
		}
		if n.cfg.ProviderKey != nil {
			if d := p.instanceProviders(n, ni); d.HasErrors() {
				return d
			}
		}
	}
	diags := p.eachInstance(all, owner, func(ni *nodeInst, in *instance) hcl.Diagnostics {
		switch n.cfg.Kind {
		case config.DataSource:
			return e.destroyData(ctx, p, n, ni, in)
		case config.Ephemeral:
			return e.openEphemeral(ctx, p, n, ni, in, true)
		}
		return e.destroyRefresh(ctx, p, n, in)
	})
	if diags.HasErrors() {
		return diags
	}
	for _, ni := range n.per {
		if known[ni] {
			ni.value = aggregate(n.cfg, ni.insts)
		}
		// The walk plans nothing of them: what a destroy plans is the
		// deletion of recorded objects alone.
		for _, in := range ni.insts {
			in.change = nil
		}
	}
	return diags
}

// destroyRefresh refreshes a resource instance's recorded object, which
// planOrphans then plans to delete, and makes it the instance's value. An
// instance state does not record has an unknown value.
func (e *Engine) destroyRefresh(ctx context.Context, p *Planned, n *node, in *instance) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	if in.recorded == nil {
		in.value = cty.UnknownVal(ty)
		return nil
	}
	diags := e.refresh(ctx, p, in.provider(n), n, in)
	if diags.HasErrors() {
		return diags
	}
	in.value = withMarks(n.schema.Block, in.prior, in.meta.Sensitive)
	p.refreshedMu.Lock()
	if p.refreshed == nil {
		p.refreshed = map[string]*instance{}
	}
	p.refreshed[in.addr] = in
	p.refreshedMu.Unlock()
	return diags
}

// destroyData reads a data source instance for a destroy, as Terraform's
// refresh before a destroy does. With -refresh=false, under -target when
// the target does not need it, or when its configuration is not known,
// its value is the result state records; when state records nothing,
// there is no refresh, and nothing is read. A check block's data source
// neither fails the destroy nor records a result: no check is evaluated.
func (e *Engine) destroyData(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	if p.opts.SkipRefresh || p.noRefresh || !p.targeted(n, in.addr) {
		in.value = p.untargetedData(n, in)
		return nil
	}
	diags := e.planDataRead(ctx, p, n, ni, in)
	if n.cfg.Check != "" {
		diags = nil
	}
	if in.result == cty.NilVal {
		// Not read now (its configuration is not known) or not read at
		// all: what state recorded stands for it.
		in.value = p.untargetedData(n, in)
	}
	return diags
}
