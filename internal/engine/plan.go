package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

// Plan compares the configuration with recorded state, refreshed from the
// providers, and proposes a change for every resource instance and output.
// It writes nothing to state.
func (e *Engine) Plan(ctx context.Context, cfg *config.Config, opts PlanOptions) (*Planned, hcl.Diagnostics) {
	snap, err := e.Store.Load(ctx)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read state", Detail: err.Error()}}
	}
	p, diags := e.build(cfg, snap)
	if diags.HasErrors() {
		return nil, diags
	}
	p.opts = opts
	g, order, d := p.graph()
	if d.HasErrors() {
		return nil, append(diags, d...)
	}

	var mu sync.Mutex
	scope := p.scope()
	g.Walk(ctx, order, e.parallelism(), func(id int) bool {
		n := p.nodes[id]
		d := e.planNode(ctx, p, n, scope)
		if len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
		return !d.HasErrors()
	}, nil)
	if err := ctx.Err(); err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Plan interrupted", Detail: err.Error()})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	p.Plan = p.assemble()
	return p, diags
}

// scope reads node values for evaluation. The walk guarantees that a node's
// dependencies are finished, and their values written, before it runs.
func (p *Planned) scope() config.Scope {
	return config.ScopeFunc(func(addr string) cty.Value {
		id, ok := p.byAddr[addr]
		if !ok {
			return cty.DynamicVal
		}
		return p.nodes[id].value
	})
}

func (p *Planned) depsPending(n *node) bool {
	for _, d := range n.deps {
		if p.nodes[d].pending {
			return true
		}
	}
	return false
}

func (e *Engine) planNode(ctx context.Context, p *Planned, n *node, scope config.Scope) hcl.Diagnostics {
	if n.cfg == nil {
		return e.planOrphan(ctx, p, n)
	}
	switch n.cfg.Kind {
	case config.Variable, config.Local:
		v, diags := n.cfg.Eval(scope)
		n.value = v
		n.pending = p.depsPending(n)
		return attribute(n, diags)
	case config.Output:
		return p.planOutput(n, scope)
	case config.Provider:
		return e.configure(ctx, n, scope)
	case config.DataSource:
		return e.planData(ctx, p, n, scope)
	case config.Resource:
		return e.planResource(ctx, p, n, scope)
	}
	return nil
}

func (p *Planned) planOutput(n *node, scope config.Scope) hcl.Diagnostics {
	v, diags := n.cfg.Eval(scope)
	if diags.HasErrors() {
		return attribute(n, diags)
	}
	if !n.cfg.Sensitive && marks.ContainsSensitive(v) {
		return hcl.Diagnostics{errorDiag(n, "Output refers to sensitive values",
			"The value of this output includes sensitive values. Add sensitive = true to the output block to show that this is intended; Tether will then hide it.")}
	}
	if n.cfg.Sensitive {
		v = v.Mark(marks.Sensitive)
	}
	n.value = v
	n.pending = p.depsPending(n)
	return diags
}

func (e *Engine) configure(ctx context.Context, n *node, scope config.Scope) hcl.Diagnostics {
	v, diags := n.cfg.Eval(scope)
	if diags.HasErrors() {
		return attribute(n, diags)
	}
	uv, _ := v.UnmarkDeep()
	if !uv.IsWhollyKnown() {
		// Configured again during apply, once the values are known.
		n.configUnknown = true
	}
	diags = append(diags, attribute(n, n.prov.ValidateProviderConfig(uv))...)
	if diags.HasErrors() {
		return diags
	}
	return append(diags, attribute(n, n.prov.ConfigureProvider(ctx, uv))...)
}

// refresh reads a recorded object back from its provider.
func (e *Engine) refresh(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	v, diags := decodeRecorded(ctx, n)
	if diags.HasErrors() {
		return diags
	}
	n.recordedVal = v
	n.prior = v
	n.priorPrivate = n.recorded.Private
	if p.opts.SkipRefresh {
		return diags
	}
	resp := n.prov.ReadResource(ctx, provider.ReadRequest{TypeName: typeOf(n), PriorState: v, Private: n.recorded.Private})
	diags = append(diags, attribute(n, resp.Diagnostics)...)
	if resp.Diagnostics.HasErrors() {
		return diags
	}
	n.prior = resp.NewState
	n.priorPrivate = resp.Private
	return diags
}

func (e *Engine) planOrphan(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	diags := e.refresh(ctx, p, n)
	if diags.HasErrors() {
		return diags
	}
	sens, _ := decodePaths(n.recorded.Sensitive)
	n.change = &plan.ResourceChange{
		Addr: n.addr, Mode: plan.Managed, Type: typeOf(n), Provider: providerOf(n),
		Action: plan.Delete,
		Before: withMarks(n.schema.Block, n.prior, sens),
		After:  cty.NullVal(n.schema.Block.ImpliedType()),
	}
	if !p.opts.Destroy {
		n.change.Reason = "it is no longer in the configuration"
	}
	if n.prior.IsNull() {
		n.change.Action = plan.NoOp
	}
	n.pending = true
	return diags
}

func (e *Engine) planData(ctx context.Context, p *Planned, n *node, scope config.Scope) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	if p.opts.Destroy {
		// Nothing reads a data source during destroy; dependents see an
		// unknown result.
		n.value = cty.UnknownVal(ty)
		return nil
	}
	cfgVal, diags := n.cfg.Eval(scope)
	if diags.HasErrors() {
		return attribute(n, diags)
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	diags = append(diags, attribute(n, n.prov.ValidateDataSourceConfig(n.cfg.Type, uv))...)
	if diags.HasErrors() {
		return diags
	}
	if !uv.IsWhollyKnown() || p.depsPending(n) {
		// Reading now would see the world before the pending changes it
		// depends on; read it during apply, right after them.
		n.planned = proposedNew(n.schema.Block, cty.NullVal(ty), uv)
		n.value = withMarks(n.schema.Block, n.planned, cfgMarks)
		n.pending = true
		reason := "its configuration depends on values not known until apply"
		if uv.IsWhollyKnown() {
			reason = "it depends on " + p.firstPending(n) + ", which has changes pending"
		}
		n.change = &plan.ResourceChange{
			Addr: n.addr, Mode: plan.Data, Type: n.cfg.Type, Provider: n.cfg.Provider,
			Action: plan.Read, Before: cty.NullVal(ty), After: n.value, Reason: reason,
		}
		return diags
	}
	resp := n.prov.ReadDataSource(ctx, provider.ReadDataRequest{TypeName: n.cfg.Type, Config: uv})
	diags = append(diags, attribute(n, resp.Diagnostics)...)
	if resp.Diagnostics.HasErrors() {
		return diags
	}
	n.value = withMarks(n.schema.Block, resp.State, cfgMarks)
	return diags
}

func (p *Planned) firstPending(n *node) string {
	for _, d := range n.deps {
		if dn := p.nodes[d]; dn.pending {
			if dn.cfg != nil && (dn.cfg.Kind == config.Resource || dn.cfg.Kind == config.DataSource) {
				return dn.addr
			}
			if s := p.firstPending(dn); s != "" {
				return s
			}
		}
	}
	return ""
}

func (e *Engine) planResource(ctx context.Context, p *Planned, n *node, scope config.Scope) hcl.Diagnostics {
	var diags hcl.Diagnostics
	block := n.schema.Block
	ty := block.ImpliedType()
	n.prior = cty.NullVal(ty)
	n.recordedVal = cty.NullVal(ty)
	if n.recorded != nil {
		diags = e.refresh(ctx, p, n)
		if diags.HasErrors() {
			return diags
		}
	}
	n.resourceDeps = p.resourceDeps(n)
	var priorMarks []cty.Path
	if n.recorded != nil {
		priorMarks, _ = decodePaths(n.recorded.Sensitive)
	}
	before := withMarks(block, n.prior, priorMarks)

	if p.opts.Destroy {
		n.change = &plan.ResourceChange{Addr: n.addr, Mode: plan.Managed, Type: n.cfg.Type, Provider: n.cfg.Provider,
			Action: plan.Delete, Before: before, After: cty.NullVal(ty)}
		if n.prior.IsNull() {
			n.change.Action = plan.NoOp
		}
		n.value = before
		n.pending = true
		return diags
	}

	cfgVal, d := n.cfg.Eval(scope)
	diags = append(diags, attribute(n, d)...)
	if d.HasErrors() {
		return diags
	}
	change, planned, plannedPriv, d := e.planChange(ctx, n, cfgVal)
	diags = append(diags, d...)
	if d.HasErrors() {
		return diags
	}
	change.Before = before
	if n.recorded != nil && n.recorded.Status == "tainted" && change.Action != plan.Create {
		change.Action = replaceAction(n)
		change.Reason = "it is tainted: an earlier apply failed part way through creating it"
	}
	if n.cfg.Lifecycle.PreventDestroy && (change.Action.IsReplace() || change.Action == plan.Delete) {
		return append(diags, errorDiag(n, "Instance cannot be destroyed",
			fmt.Sprintf("%s has lifecycle.prevent_destroy set, but the plan would %s it. Remove prevent_destroy, or change the configuration so that it is updated in place.", n.addr, change.Action)))
	}
	n.change = change
	n.planned = planned
	n.plannedPriv = plannedPriv
	n.value = change.After
	n.pending = change.Action != plan.NoOp
	return diags
}

func replaceAction(n *node) plan.Action {
	if n.cfg != nil && n.cfg.Lifecycle.CreateBeforeDestroy {
		return plan.CreateThenDelete
	}
	return plan.DeleteThenCreate
}

// planChange asks the provider what applying cfgVal to the node's prior
// object means. It is used during plan and again during apply, with the
// values dependencies really produced.
func (e *Engine) planChange(ctx context.Context, n *node, cfgVal cty.Value) (*plan.ResourceChange, cty.Value, []byte, hcl.Diagnostics) {
	block := n.schema.Block
	ty := block.ImpliedType()
	uv, cfgMarks := marks.Unmark(cfgVal)
	n.configVal = uv
	diags := attribute(n, n.prov.ValidateResourceConfig(n.cfg.Type, uv))
	if diags.HasErrors() {
		return nil, cty.NilVal, nil, diags
	}
	resp := n.prov.PlanResourceChange(ctx, provider.PlanRequest{
		TypeName: n.cfg.Type, PriorState: n.prior, ProposedNewState: proposedNew(block, n.prior, uv),
		Config: uv, PriorPrivate: n.priorPrivate,
	})
	diags = append(diags, attribute(n, resp.Diagnostics)...)
	if resp.Diagnostics.HasErrors() {
		return nil, cty.NilVal, nil, diags
	}
	change := &plan.ResourceChange{Addr: n.addr, Mode: plan.Managed, Type: n.cfg.Type, Provider: n.cfg.Provider}
	planned, priv := resp.PlannedState, resp.PlannedPrivate
	switch {
	case n.prior.IsNull():
		change.Action = plan.Create
		if n.recorded != nil {
			change.Reason = "it was deleted outside Tether"
		}
	case planned.RawEquals(n.prior):
		change.Action = plan.NoOp
	default:
		change.Action = plan.Update
		for _, path := range resp.RequiresReplace {
			if pathChanged(path, n.prior, planned) {
				change.RequiresReplace = append(change.RequiresReplace, path)
			}
		}
		if len(change.RequiresReplace) > 0 {
			change.Action = replaceAction(n)
			// A replacement is a create: plan it again from nothing so that
			// computed attributes are unknown rather than carried over.
			resp := n.prov.PlanResourceChange(ctx, provider.PlanRequest{
				TypeName: n.cfg.Type, PriorState: cty.NullVal(ty), ProposedNewState: proposedNew(block, cty.NullVal(ty), uv),
				Config: uv,
			})
			diags = append(diags, attribute(n, resp.Diagnostics)...)
			if resp.Diagnostics.HasErrors() {
				return nil, cty.NilVal, nil, diags
			}
			planned, priv = resp.PlannedState, resp.PlannedPrivate
		}
	}
	change.After = withMarks(block, planned, cfgMarks)
	return change, planned, priv, diags
}

func pathChanged(path cty.Path, before, after cty.Value) bool {
	b, errB := path.Apply(before)
	a, errA := path.Apply(after)
	if errA != nil || errB != nil {
		return errA == nil || errB == nil
	}
	if !a.IsWhollyKnown() || !b.IsWhollyKnown() {
		return true
	}
	return !a.RawEquals(b)
}

// resourceDeps collects the resources a node depends on, looking through
// locals, variables, outputs and data sources.
func (p *Planned) resourceDeps(n *node) []string {
	seen := map[int]bool{}
	var out []string
	var visit func(m *node)
	visit = func(m *node) {
		for _, d := range m.deps {
			if seen[d] {
				continue
			}
			seen[d] = true
			dn := p.nodes[d]
			if dn.cfg != nil && dn.cfg.Kind == config.Resource {
				out = append(out, dn.addr)
				continue
			}
			visit(dn)
		}
	}
	visit(n)
	sort.Strings(out)
	return out
}

// assemble collects the proposed changes in address order.
func (p *Planned) assemble() *plan.Plan {
	pl := &plan.Plan{Destroy: p.opts.Destroy}
	for _, n := range p.nodes {
		if n.recorded != nil && n.cfg != nil && !n.recordedVal.IsNull() && !n.prior.RawEquals(n.recordedVal) {
			sens, _ := decodePaths(n.recorded.Sensitive)
			pl.Drift = append(pl.Drift, &plan.ResourceChange{
				Addr: n.addr, Mode: plan.Managed, Type: typeOf(n), Provider: providerOf(n),
				Action: driftAction(n.prior),
				Before: withMarks(n.schema.Block, n.recordedVal, sens),
				After:  withMarks(n.schema.Block, n.prior, sens),
			})
		}
		if n.change != nil {
			pl.Changes = append(pl.Changes, n.change)
		}
	}
	sort.Slice(pl.Changes, func(i, j int) bool { return pl.Changes[i].Addr < pl.Changes[j].Addr })
	sort.Slice(pl.Drift, func(i, j int) bool { return pl.Drift[i].Addr < pl.Drift[j].Addr })
	pl.Outputs = p.outputChanges()
	return pl
}

func driftAction(now cty.Value) plan.Action {
	if now.IsNull() {
		return plan.Delete
	}
	return plan.Update
}

func (p *Planned) outputChanges() []*plan.OutputChange {
	var out []*plan.OutputChange
	declared := map[string]bool{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Output {
			continue
		}
		declared[n.cfg.Name] = true
		oc := &plan.OutputChange{Name: n.cfg.Name, Sensitive: n.cfg.Sensitive, After: n.value, Before: cty.NullVal(cty.DynamicPseudoType)}
		if p.opts.Destroy {
			oc.After = cty.NullVal(cty.DynamicPseudoType)
		}
		rec, ok := p.outputs[n.cfg.Name]
		switch {
		case !ok && p.opts.Destroy:
			continue
		case !ok:
			oc.Action = plan.Create
		default:
			before, err := decodeOutput(rec.Value)
			if err == nil && rec.Sensitive {
				before = before.Mark(marks.Sensitive)
			}
			oc.Before = before
			after, _ := oc.After.UnmarkDeep()
			prev, _ := before.UnmarkDeep()
			switch {
			case p.opts.Destroy:
				oc.Action = plan.Delete
			case err != nil || !after.RawEquals(prev):
				oc.Action = plan.Update
			default:
				oc.Action = plan.NoOp
			}
		}
		out = append(out, oc)
	}
	for name, rec := range p.outputs {
		if declared[name] {
			continue
		}
		before, _ := decodeOutput(rec.Value)
		if rec.Sensitive {
			before = before.Mark(marks.Sensitive)
		}
		out = append(out, &plan.OutputChange{Name: name, Action: plan.Delete, Before: before, After: cty.NullVal(cty.DynamicPseudoType), Sensitive: rec.Sensitive})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
