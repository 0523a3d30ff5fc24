package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
)

// planOrphans plans the destruction of recorded objects that no node
// claimed: their resource or module left the configuration (or, for
// destroy, everything).
func (e *Engine) planOrphans(ctx context.Context, p *Planned, snap *state.Snapshot) hcl.Diagnostics {
	var orphans []*node
	var diags hcl.Diagnostics
	var addrs []string
	p.unclaimed(func(obj *state.Object) { addrs = append(addrs, obj.Address) })
	sort.Strings(addrs)
	for _, a := range addrs {
		obj := snap.Objects[a]
		ia, _ := addr.ParseInstance(a)
		static := ia.Static()
		var cn *config.Node
		if id, ok := p.byAddr[static]; ok {
			cn = p.nodes[id].cfg
			if p.kept(p.nodes[id]) {
				continue
			}
		}
		prov, rs, d := e.orphanProvider(ctx, p, obj)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if cn != nil && cn.Lifecycle.PreventDestroy {
			diags = append(diags, preventDestroy(a, cn, plan.Delete))
			continue
		}
		orphan := &instance{addr: a, recorded: obj}
		if r := p.refreshed[a]; r != nil && r.recorded == obj {
			// The destroy's walk refreshed it already: the orphan is
			// that instance whole (its refreshed object, private data
			// and the references it resolved, so that the deletion is
			// planned and applied with their values), copied so that
			// the walk's node and this one share nothing.
			whole := *r
			orphan = &whole
		}
		n := &node{id: len(p.nodes), addr: a, prov: prov, schema: rs, orphan: orphan}
		p.nodes = append(p.nodes, n)
		orphans = append(orphans, n)
	}
	if diags.HasErrors() {
		return diags
	}
	// A targeted destroy follows the orphans' recorded dependencies.
	p.targets, _ = p.targetClosure()
	var mu sync.Mutex
	p.forEach(len(orphans), func(i int) {
		n := orphans[i]
		in := n.orphan
		removed := p.removedBy(in.addr)
		if removed != nil && !removed.Destroy && !p.opts.Destroy {
			// State forgets it; the provider is not asked.
			v, d := decodeRecorded(ctx, e.Keys, n.prov, n.schema, in.recorded, nil)
			meta, err := decodeMeta(in.recorded.Sensitive)
			if err != nil {
				d = append(d, errorDiag(in.addr, nil, "Cannot read recorded object", diagnostic.Failed("reading the recorded object", err)))
			}
			if d.HasErrors() {
				mu.Lock()
				diags = append(diags, d...)
				mu.Unlock()
				return
			}
			in.meta, in.prior, in.recordedVal = meta, v, v
			in.change = &plan.ResourceChange{
				Addr: in.addr, Mode: plan.Managed, Type: in.recorded.Type, Provider: in.recorded.Provider,
				Action: plan.Forget, Reason: "destroy = false is set in the configuration",
				Before: in.returned(n, in.prior, in.meta.Sensitive),
				After:  in.returned(n, in.prior, in.meta.Sensitive),
			}
			return
		}
		var d hcl.Diagnostics
		if r := p.refreshed[in.addr]; r == nil || r.recorded != in.recorded {
			d = e.refresh(ctx, p, n.prov, n, in)
		}
		if !d.HasErrors() {
			in.change = &plan.ResourceChange{
				Addr: in.addr, Mode: plan.Managed, Type: in.recorded.Type, Provider: in.recorded.Provider,
				Action: plan.Delete,
				Before: in.returned(n, in.prior, in.meta.Sensitive),
				After:  cty.NullVal(n.schema.Block.ImpliedType()),
			}
			if !p.opts.Destroy {
				in.change.Reason = notInConfiguration(in.addr)
			}
			if in.prior.IsNull() {
				in.change.Action = plan.NoOp
			} else {
				d = append(d, e.planDestroy(ctx, n, in)...)
			}
		}
		if len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
	})
	return diags
}

// planDestroy lets the provider see the deletion of an orphan's refreshed
// object before it is applied, as Terraform's planDestroy does: a
// PlanResourceChange with null configuration and proposed new state. The
// provider may refuse it, and the private data it plans is what the
// deletion is applied with. Anything but a null plan is the provider's bug.
func (e *Engine) planDestroy(ctx context.Context, n *node, in *instance) hcl.Diagnostics {
	null := cty.NullVal(n.schema.Block.ImpliedType())
	prior := in.res.priorFor(in.prior, in.meta.Refs)
	resp := n.prov.PlanResourceChange(ctx, provider.PlanRequest{
		TypeName: in.recorded.Type, PriorState: prior, ProposedNewState: null, Config: null, PriorPrivate: in.priorPrivate,
	})
	diags := attribute(in.addr, nil, in.scrubDiags(resp.Diagnostics))
	if resp.Diagnostics.HasErrors() {
		return diags
	}
	if resp.Deferred == "" && resp.PlannedState != cty.NilVal && !resp.PlannedState.IsNull() {
		return append(diags, errorDiag(in.addr, nil, "Provider produced invalid plan",
			fmt.Sprintf("Provider %s planned a non-null destroy value for %s.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
				displayProvider(n, in), in.addr)))
	}
	in.providerPrior, in.priorPrivate = prior, resp.PlannedPrivate
	return diags
}

// orphanProvider finds the provider configuration that destroys a recorded
// object no node claims: the one state names. A default configuration
// that the configuration no longer declares is implied with an empty
// body, as Terraform does; an aliased one must still be declared.
func (e *Engine) orphanProvider(ctx context.Context, p *Planned, obj *state.Object) (provider.Provider, *provider.ResourceSchema, hcl.Diagnostics) {
	pc, err := addr.ParseProviderConfig(obj.Provider)
	if err != nil {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Unreadable provider in state", diagnostic.Failed("reading the provider recorded with the object", err))}
	}
	a := pc.String()
	schema, err := e.schemaOf(pc.Source.String())
	if err != nil {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Provider not available", fmt.Sprintf("The recorded object %s needs provider %s to be destroyed: %s", obj.Address, pc.Source.ForDisplay(), err))}
	}
	rs, ok, err := schema.Resources.Get(obj.Type)
	if err != nil {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Invalid provider schema", diagnostic.Failed(fmt.Sprintf("reading the schema of resource type %q of provider %s", obj.Type, pc.Source.ForDisplay()), err))}
	}
	if !ok {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Unknown resource type", fmt.Sprintf("Provider %s no longer has the resource type %q of the recorded object.", pc.Source.ForDisplay(), obj.Type))}
	}
	p.implied.Lock()
	defer p.implied.Unlock()
	whole := pc
	whole.Key = ""
	if id, ok := p.byAddr[whole.String()]; ok && pc.Key != "" {
		pn := p.nodes[id]
		prov, ok := pn.provs[pc.Key]
		if !ok {
			return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Provider configuration not present",
				fmt.Sprintf("To destroy %s, the provider instance %s is needed, and the for_each of %s no longer has that key. Put the key back until the object is destroyed.", obj.Address, a, pn.addr))}
		}
		return prov, rs, nil
	}
	if id, ok := p.byAddr[a]; ok {
		pn := p.nodes[id]
		if pn.prov == nil {
			return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Provider not configured", fmt.Sprintf("The provider configuration %s, which the recorded object needs, could not be configured.", a))}
		}
		return pn.prov, rs, nil
	}
	if pc.Alias != "" || pc.Module != "" {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Provider configuration not present",
			fmt.Sprintf("To destroy %s, its original provider configuration %s is needed, and the configuration no longer declares it. Add the provider block back until the object is destroyed.", obj.Address, a))}
	}
	if prov, ok := p.impliedProviders[a]; ok {
		return prov, rs, nil
	}
	prov, err := e.Providers.Start(pc.Source.String())
	if err != nil {
		return nil, nil, hcl.Diagnostics{errorDiag(obj.Address, nil, "Provider not available", diagnostic.Failed("starting the provider", err))}
	}
	if d := prov.ConfigureProvider(ctx, schema.Provider.EmptyValue()); d.HasErrors() {
		return nil, nil, attribute(a, nil, d)
	}
	p.impliedProviders[a] = prov
	return prov, rs, nil
}

// kept reports whether the objects of a node's declaration stay untouched
// this round because the node, or a module around it, is deferred.
func (p *Planned) kept(n *node) bool {
	if p.opts.Destroy {
		return false
	}
	if n.deferredAny {
		return true
	}
	for m := n.mod; m != nil && m.call != nil; m = m.parent {
		if m.call.deferredAny || len(m.deferredIn) > 0 {
			return true
		}
	}
	return false
}

// removedBy finds the removed block that covers a recorded object: one
// naming its resource, or a module call it was declared in.
func (p *Planned) removedBy(instance string) *config.Removed {
	ia, err := addr.ParseInstance(instance)
	if err != nil {
		return nil
	}
	static := ia.Static()
	for i := range p.cfg.Removed {
		r := &p.cfg.Removed[i]
		if r.From == static || strings.HasPrefix(static, r.From+".") {
			return r
		}
	}
	return nil
}

// notInConfiguration is why a recorded object is destroyed, in
// Terraform's words: the outermost declaration that is gone.
func notInConfiguration(instance string) string {
	ia, err := addr.ParseInstance(instance)
	if err != nil {
		return instance + " is not in configuration"
	}
	return ia.Static() + " is not in configuration"
}
