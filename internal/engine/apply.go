package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
)

// Result counts what an apply did.
type Result struct {
	Added, Changed, Destroyed int
	// Outputs are the root outputs after the apply, marked.
	Outputs map[string]cty.Value
}

// Apply carries out a plan. Each completed operation is committed to state
// before anything that depends on it starts, so a failure keeps all work
// completed before it; independent work goes on after a failure, and what
// depends on the failed resource is skipped.
func (e *Engine) Apply(ctx context.Context, p *Planned) (*Result, hcl.Diagnostics) {
	g, order, diags := p.applyGraph()
	if diags.HasErrors() {
		return nil, diags
	}
	res := &Result{Outputs: map[string]cty.Value{}}
	var mu sync.Mutex
	scope := p.scope()
	g.Walk(ctx, order, e.parallelism(), func(id int) bool {
		n := p.nodes[id]
		d, counted := e.applyNode(ctx, p, n, scope)
		mu.Lock()
		defer mu.Unlock()
		diags = append(diags, d...)
		switch counted {
		case plan.Create:
			res.Added++
		case plan.Update:
			res.Changed++
		case plan.Delete:
			res.Destroyed++
		case plan.DeleteThenCreate, plan.CreateThenDelete:
			res.Added++
			res.Destroyed++
		}
		return !d.HasErrors()
	}, nil)
	if err := ctx.Err(); err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Apply interrupted",
			Detail: "Operations that had completed are recorded in state; run the command again to finish."})
	}
	diags = append(diags, e.commitOutputs(ctx, p, res)...)
	return res, diags
}

// applyGraph orders the apply. Creates and updates follow the
// configuration's dependencies; a deletion waits for everything that
// depended on the object when it was last written, so nothing is destroyed
// while something still uses it.
func (p *Planned) applyGraph() (*graph.Graph, []int, hcl.Diagnostics) {
	g := graph.New(len(p.nodes))
	deleting := func(n *node) bool { return n.change != nil && n.change.Action == plan.Delete }
	if !p.opts.Destroy {
		for _, n := range p.nodes {
			for _, d := range n.deps {
				g.DependsOn(n.id, d)
			}
		}
	}
	for _, n := range p.nodes {
		if n.recorded == nil {
			continue
		}
		for _, dep := range recordedAndCurrentDeps(n) {
			id, ok := p.byAddr[dep]
			if !ok {
				continue
			}
			target := p.nodes[id]
			// n depended on target: if target is deleted, n goes first.
			if deleting(target) {
				g.DependsOn(target.id, n.id)
			}
		}
	}
	order, cycle := g.Order()
	if cycle != nil {
		return nil, nil, hcl.Diagnostics{cycleDiag(p.nodes, cycle)}
	}
	return g, order, nil
}

func recordedAndCurrentDeps(n *node) []string {
	if len(n.resourceDeps) == 0 {
		return n.recorded.Dependencies
	}
	return append(append([]string(nil), n.recorded.Dependencies...), n.resourceDeps...)
}

func (e *Engine) applyNode(ctx context.Context, p *Planned, n *node, scope config.Scope) (hcl.Diagnostics, plan.Action) {
	if n.cfg != nil {
		switch n.cfg.Kind {
		case config.Variable, config.Local:
			v, diags := n.cfg.Eval(scope)
			n.value = v
			return attribute(n, diags), plan.NoOp
		case config.Output:
			if p.opts.Destroy {
				return nil, plan.NoOp
			}
			return p.planOutput(n, scope), plan.NoOp
		case config.Provider:
			if !n.configUnknown {
				return nil, plan.NoOp
			}
			return e.configure(ctx, n, scope), plan.NoOp
		case config.DataSource:
			if n.change == nil {
				return nil, plan.NoOp
			}
			return e.readDeferred(ctx, n, scope), plan.NoOp
		}
	}
	if n.change == nil {
		return nil, plan.NoOp
	}
	if n.change.Action == plan.NoOp {
		return e.keep(ctx, n), plan.NoOp
	}
	change := n.change
	planned, priv := n.planned, n.plannedPriv
	if change.Action != plan.Delete {
		cfgVal, diags := n.cfg.Eval(scope)
		if diags.HasErrors() {
			return attribute(n, diags), plan.NoOp
		}
		if uv, _ := cfgVal.UnmarkDeep(); !uv.IsWhollyKnown() {
			return hcl.Diagnostics{errorDiag(n, "Configuration not known at apply",
				"Some values in this resource's configuration are still unknown after all its dependencies were applied. This is a bug in Tether; please report it.")}, plan.NoOp
		}
		var d hcl.Diagnostics
		change, planned, priv, d = e.planChange(ctx, n, cfgVal)
		if d.HasErrors() {
			return d, plan.NoOp
		}
		if n.recorded != nil && n.recorded.Status == state.Tainted && change.Action != plan.Create {
			change.Action = replaceAction(n)
		}
		if change.Action == plan.NoOp {
			n.value = change.After
			return e.keep(ctx, n), plan.NoOp
		}
	}
	return e.execute(ctx, n, change, planned, priv)
}

// keep records a refreshed object that needs no change, when refresh or a
// new dependency list changed what is stored.
func (e *Engine) keep(ctx context.Context, n *node) hcl.Diagnostics {
	if n.recorded == nil || n.prior.IsNull() {
		return nil
	}
	if n.prior.RawEquals(n.recordedVal) && sameStrings(n.recorded.Dependencies, n.resourceDeps) {
		return nil
	}
	_, sens := marks.Unmark(n.value)
	return e.put(ctx, n, n.prior, n.priorPrivate, sens, state.Ready)
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (e *Engine) readDeferred(ctx context.Context, n *node, scope config.Scope) hcl.Diagnostics {
	start := time.Now()
	e.event(plan.Event{Addr: n.addr, Action: plan.Read, Phase: plan.Started})
	cfgVal, diags := n.cfg.Eval(scope)
	if diags.HasErrors() {
		e.failed(n, plan.Read, start, diags)
		return attribute(n, diags)
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	resp := n.prov.ReadDataSource(ctx, provider.ReadDataRequest{TypeName: n.cfg.Type, Config: uv})
	diags = append(diags, attribute(n, resp.Diagnostics)...)
	if resp.Diagnostics.HasErrors() {
		e.failed(n, plan.Read, start, diags)
		return diags
	}
	n.value = withMarks(n.schema.Block, resp.State, cfgMarks)
	e.event(plan.Event{Addr: n.addr, Action: plan.Read, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: idOf(resp.State)})
	return diags
}

// execute performs one planned change through the provider and records the
// outcome.
func (e *Engine) execute(ctx context.Context, n *node, change *plan.ResourceChange, planned cty.Value, priv []byte) (hcl.Diagnostics, plan.Action) {
	start := time.Now()
	action := change.Action
	e.event(plan.Event{Addr: n.addr, Action: action, Phase: plan.Started})
	_, sens := marks.Unmark(change.After)
	ty := n.schema.Block.ImpliedType()
	var diags hcl.Diagnostics

	destroy := func() bool {
		resp := n.prov.ApplyResourceChange(ctx, provider.ApplyRequest{
			TypeName: typeOf(n), PriorState: n.prior, PlannedState: cty.NullVal(ty), Config: cty.NullVal(ty), PlannedPrivate: n.priorPrivate,
		})
		diags = append(diags, attribute(n, resp.Diagnostics)...)
		if resp.Diagnostics.HasErrors() {
			return false
		}
		if err := e.Store.Commit(ctx, state.Changes{Delete: []string{n.addr}}); err != nil {
			diags = append(diags, errorDiag(n, "Cannot record deletion", err.Error()))
			return false
		}
		n.prior = cty.NullVal(ty)
		return true
	}
	create := func(prior cty.Value) bool {
		resp := n.prov.ApplyResourceChange(ctx, provider.ApplyRequest{
			TypeName: typeOf(n), PriorState: prior, PlannedState: planned, Config: n.configVal, PlannedPrivate: priv,
		})
		diags = append(diags, attribute(n, resp.Diagnostics)...)
		if resp.Diagnostics.HasErrors() {
			if !resp.NewState.IsNull() && resp.NewState != cty.NilVal {
				status := state.Ready
				if prior.IsNull() {
					status = state.Tainted
				}
				diags = append(diags, e.put(ctx, n, resp.NewState, resp.Private, sens, status)...)
			}
			return false
		}
		if d := e.put(ctx, n, resp.NewState, resp.Private, sens, state.Ready); d.HasErrors() {
			diags = append(diags, d...)
			return false
		}
		n.value = withMarks(n.schema.Block, resp.NewState, sens)
		n.prior = resp.NewState
		return true
	}

	ok := false
	switch action {
	case plan.Create:
		ok = create(cty.NullVal(ty))
	case plan.Update:
		ok = create(n.prior)
	case plan.Delete:
		ok = destroy()
	case plan.DeleteThenCreate:
		ok = destroy() && create(cty.NullVal(ty))
	case plan.CreateThenDelete:
		old, oldPriv := n.prior, n.priorPrivate
		if ok = create(cty.NullVal(ty)); ok {
			resp := n.prov.ApplyResourceChange(ctx, provider.ApplyRequest{
				TypeName: typeOf(n), PriorState: old, PlannedState: cty.NullVal(ty), Config: cty.NullVal(ty), PlannedPrivate: oldPriv,
			})
			diags = append(diags, attribute(n, resp.Diagnostics)...)
			ok = !resp.Diagnostics.HasErrors()
		}
	}
	if !ok {
		e.failed(n, action, start, diags)
		return diags, plan.NoOp
	}
	e.event(plan.Event{Addr: n.addr, Action: action, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: idOf(n.prior)})
	return diags, action
}

func (e *Engine) put(ctx context.Context, n *node, v cty.Value, priv []byte, sens []cty.Path, status state.Status) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	raw, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return hcl.Diagnostics{errorDiag(n, "Cannot record object", fmt.Sprintf("The provider returned an object that cannot be stored: %s.", err))}
	}
	sensJSON, err := encodePaths(sens)
	if err != nil {
		return hcl.Diagnostics{errorDiag(n, "Cannot record object", err.Error())}
	}
	obj := &state.Object{
		Address: n.addr, Mode: state.Managed, Type: typeOf(n), Provider: providerOf(n),
		SchemaVersion: n.schema.Version, Value: raw, Private: priv, Sensitive: sensJSON,
		Dependencies: n.resourceDeps, Status: status,
	}
	if n.cfg != nil {
		obj.CreateBeforeDestroy = n.cfg.Lifecycle.CreateBeforeDestroy
	}
	if err := e.Store.Commit(ctx, state.Changes{Put: []*state.Object{obj}}); err != nil {
		return hcl.Diagnostics{errorDiag(n, "Cannot record object", err.Error())}
	}
	return nil
}

func (e *Engine) event(ev plan.Event) {
	if e.Events != nil {
		e.Events(ev)
	}
}

func (e *Engine) failed(n *node, action plan.Action, start time.Time, diags hcl.Diagnostics) {
	e.event(plan.Event{Addr: n.addr, Action: action, Phase: plan.Failed, Elapsed: time.Since(start), Err: diags.Errs()[0]})
}

// commitOutputs records the root outputs whose values are known after the
// apply, and forgets those no longer declared.
func (e *Engine) commitOutputs(ctx context.Context, p *Planned, res *Result) hcl.Diagnostics {
	var ch state.Changes
	declared := map[string]bool{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Output {
			continue
		}
		declared[n.cfg.Name] = true
		if p.opts.Destroy {
			ch.DeleteOutputs = append(ch.DeleteOutputs, n.cfg.Name)
			continue
		}
		uv, _ := n.value.UnmarkDeep()
		if n.value == cty.NilVal || !uv.IsWhollyKnown() {
			continue
		}
		raw, err := encodeOutput(uv)
		if err != nil {
			continue
		}
		res.Outputs[n.cfg.Name] = n.value
		ch.PutOutputs = append(ch.PutOutputs, &state.Output{Name: n.cfg.Name, Value: raw, Sensitive: n.cfg.Sensitive})
	}
	for name := range p.outputs {
		if !declared[name] {
			ch.DeleteOutputs = append(ch.DeleteOutputs, name)
		}
	}
	if len(ch.PutOutputs) == 0 && len(ch.DeleteOutputs) == 0 {
		return nil
	}
	if err := e.Store.Commit(ctx, ch); err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot record outputs", Detail: err.Error()}}
	}
	return nil
}
