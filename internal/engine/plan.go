package engine

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/refs"
	"github.com/tetherhq/tether/internal/state"
)

// withCause says why ctx ended, when it did and err is the context's
// error alone: "context canceled" does not tell a user that a signal
// (SIGINT, SIGTERM) stopped the run, and which.
func withCause(ctx context.Context, err error) string {
	msg := err.Error()
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() && !strings.Contains(msg, cause.Error()) {
			msg += " (" + cause.Error() + ")"
		}
	}
	return msg
}

// Plan compares the configuration with recorded state, refreshed from the
// providers, and proposes a change for every resource instance and output.
// It writes nothing to state.
func (e *Engine) Plan(ctx context.Context, cfg *config.Config, opts PlanOptions) (*Planned, hcl.Diagnostics) {
	snap, err := e.Store.Load(ctx)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read state", Detail: withCause(ctx, err)}}
	}
	p, diags := e.build(cfg, snap, opts)
	if diags.HasErrors() {
		return nil, diags
	}
	g, order, d := p.graph()
	if d.HasErrors() {
		return nil, append(diags, d...)
	}
	var mu sync.Mutex
	report := func(d hcl.Diagnostics) bool {
		if len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
		return !d.HasErrors()
	}
	// What -target keeps is known before planning, so that refresh
	// reads only that; an address matching nothing is reported by narrow.
	p.targets, _ = p.targetClosure()
	g.Walk(ctx, order, e.parallelism(), func(id int) bool {
		return report(e.planNode(ctx, p, p.nodes[id]))
	}, nil)
	report(e.closeAll(&p.ephemerals))
	if err := ctx.Err(); err != nil {
		diags = append(diags, diagnostic.Wrap("Plan interrupted", "planning", err))
	}
	if d := p.validateMoves(); d.HasErrors() && ctx.Err() == nil {
		return nil, d
	}
	if diags.HasErrors() {
		return nil, diags
	}
	report(e.planOrphans(ctx, p, snap))
	if diags.HasErrors() {
		return nil, diags
	}
	diags = append(diags, p.narrow()...)
	if diags.HasErrors() {
		return nil, diags
	}
	if !p.opts.Destroy && len(p.sameObjects()) > 0 {
		// An order Apply could not keep is an error now, not after the
		// plan was approved.
		if _, _, d := p.applyGraph(); d.HasErrors() {
			return nil, append(diags, d...)
		}
	}
	p.Plan = p.assemble()
	return p, diags
}

// depsState reports whether any dependency of n, seen from mi, has pending
// changes or is deferred, and what a deferred one waits for.
func (p *Planned) depsState(n *node, mi *modInstance) (pending bool, waiting string) {
	for _, d := range n.deps {
		dn := p.nodes[d]
		if ni := dn.at(mi); ni != nil {
			if ni.deferred && waiting == "" {
				waiting = ni.waiting
				if waiting == "" {
					waiting = dn.addr
				}
			}
			pending = pending || ni.pending
			continue
		}
		if dn.mod.parent != mi.path {
			// A node in an unrelated module (through depends_on on a
			// module): it counts as a whole.
			for _, ni := range dn.per {
				pending = pending || ni.pending
				if ni.deferred && waiting == "" {
					waiting = ni.waiting
				}
			}
			continue
		}
		{
			// An output of a module called from here.
			if why := dn.mod.deferredIn[mi]; why != "" && waiting == "" {
				waiting = why
			}
			for _, k := range dn.mod.children[mi] {
				if ni := dn.at(k); ni != nil {
					pending = pending || ni.pending
					if ni.deferred && waiting == "" {
						waiting = ni.waiting
					}
				}
			}
		}
	}
	return pending || waiting != "", waiting
}

func (e *Engine) planNode(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	cn := n.cfg
	if cn.Kind == config.Module {
		// A destroy expands modules too (see destroy.go); what it
		// destroys is what state records, whatever their instances.
		return p.expandModule(n)
	}
	if len(n.mod.deferredIn) > 0 {
		n.deferredAny = true
	}
	n.per = newNodeInsts(n.mod.instances)
	switch cn.Kind {
	case config.Resource, config.DataSource, config.Ephemeral:
		pn := p.nodes[p.byAddr[cn.Provider]]
		switch {
		case pn.cfg.Repeat != nil:
			// Each instance takes its own provider instance.
			if pn.provs == nil && !pn.per[0].deferred {
				return nil // its configuration failed, and said so
			}
		case pn.prov == nil:
			return nil // its configuration failed, and said so
		default:
			n.prov = pn.prov
		}
		if p.opts.Destroy {
			return e.destroyResources(ctx, p, n)
		}
		return e.planResources(ctx, p, n)
	}
	var diags hcl.Diagnostics
	for _, ni := range n.per {
		pending, waiting := p.depsState(n, ni.mi)
		ni.pending = pending
		if waiting != "" {
			ni.deferred, ni.waiting = true, waiting
		}
		// A destroy evaluates no rule; Terraform still knows the root
		// module's outputs then.
		if (!p.opts.Destroy || (cn.Kind == config.Output && cn.Module == "")) && !ni.mi.overridden() {
			p.checks.instances(n, []string{objectAddr(n, ni.mi)})
		}
		var d hcl.Diagnostics
		switch cn.Kind {
		case config.Variable, config.Local:
			ni.value, d = p.evalValue(n, ni.mi)
		case config.Output:
			d = p.planOutput(n, ni)
		case config.Provider:
			d = e.configure(ctx, p, n)
		case config.Check:
			d = p.check(n, ni, false)
		}
		if d.HasErrors() {
			// An expression's error may quote a sensitive value it was
			// given (tonumber(var.password)).
			d = scrubSecrets(d, p.sensitiveInputs(n, ni.mi))
		}
		diags = append(diags, attribute(n.addr, cn, d)...)
	}
	return diags
}

// evalNode evaluates a variable, local or output in a module instance. A
// module's input variable is its call's argument, evaluated where the call
// is, with the module instance's count.index or each.*.
func evalNode(p *Planned, n *node, mi *modInstance) (cty.Value, hcl.Diagnostics) {
	if n.cfg.Argument && mi.parent != nil {
		return n.cfg.Eval.Evaluate(p.scopeAt(mi.parent), config.Instance{Key: mi.key, Each: mi.each})
	}
	return n.cfg.Eval.Evaluate(p.scopeAt(mi), config.NoInstance)
}

// evalValue evaluates a variable or local in a module instance; a
// variable's validation rules (its Postconditions) are then checked in its
// own module instance, except when destroying, as in Terraform. A rule not
// known yet passes here and is checked again during apply.
func (p *Planned) evalValue(n *node, mi *modInstance) (cty.Value, hcl.Diagnostics) {
	if mi.overridden() {
		return cty.DynamicVal, nil
	}
	v, diags := evalNode(p, n, mi)
	if diags.HasErrors() || n.cfg.Kind != config.Variable || len(n.cfg.Postconditions) == 0 || p.opts.Destroy {
		return v, diags
	}
	d := p.conditions(n, mi, config.NoInstance, n.cfg.Postconditions, v, "Invalid value for variable")
	if d.HasErrors() {
		return cty.DynamicVal, append(diags, d...)
	}
	return v, append(diags, d...)
}

func (p *Planned) planOutput(n *node, ni *nodeInst) hcl.Diagnostics {
	if ni.mi.overridden() {
		ni.value = overrideOutput(ni.mi, n.cfg.Name)
		return nil
	}
	if p.opts.Destroy && n.cfg.Module == "" {
		// Removed; a module's output is evaluated, for what uses it.
		ni.value = cty.NullVal(cty.DynamicPseudoType)
		return nil
	}
	if d := p.conditions(n, ni.mi, config.NoInstance, n.cfg.Preconditions, cty.NilVal, "Module output value precondition failed"); d.HasErrors() {
		return d
	}
	v, diags := evalNode(p, n, ni.mi)
	if diags.HasErrors() {
		return diags
	}
	// An output shows a reference by its description, never its value.
	if pv, err := refs.Placeholders(v); err == nil {
		v = pv
	}
	if !n.cfg.Ephemeral && marks.ContainsEphemeral(v) {
		return hcl.Diagnostics{errorDiag(n.addr, n.cfg, "Ephemeral value not allowed",
			"This output value is not declared as returning an ephemeral value, so it cannot be set to a result derived from an ephemeral value.")}
	}
	if n.cfg.Ephemeral {
		v = v.Mark(marks.Ephemeral)
	}
	if !n.cfg.Sensitive && marks.ContainsSensitive(v) {
		return hcl.Diagnostics{errorDiag(n.addr, n.cfg, "Output refers to sensitive values",
			"The value of this output includes sensitive values. Add sensitive = true to the output block to show that this is intended; Tether will then hide it.")}
	}
	if n.cfg.Sensitive {
		v = v.Mark(marks.Sensitive)
	}
	ni.value = v
	return diags
}

// conditions checks preconditions or postconditions, and records how
// each came out (see checkRecord). A condition that is not known yet
// passes here and is checked again after apply.
func (p *Planned) conditions(n *node, mi *modInstance, inst config.Instance, conds []config.Condition, self cty.Value, summary string) hcl.Diagnostics {
	if len(conds) == 0 || p.opts.Destroy {
		// A destroy evaluates no rule, as in Terraform.
		return nil
	}
	var diags hcl.Diagnostics
	object := objectAddr(n, mi)
	if k := n.cfg.Kind; k == config.Resource || k == config.DataSource {
		object = instanceAddr(n, mi, inst.Key)
	}
	pre := isPre(n, conds)
	for i, c := range conds {
		status, msg, d := evalCondition(c, p.scopeAt(mi), inst, self)
		p.checks.report(n, object, pre, i, status, msg)
		diags = append(diags, d...)
		if status == checks.Fail {
			f := c.Failed(summary, msg)
			diagnostic.MarkCheckRule(f, object, ruleKind(n, pre))
			diags = append(diags, f)
		}
	}
	return diags
}

// ruleKind is the kind of n's custom conditions, its preconditions when
// pre is set.
func ruleKind(n *node, pre bool) diagnostic.CheckKind {
	switch {
	case n.cfg.Kind == config.Variable:
		return diagnostic.Validation
	case n.cfg.Kind == config.Check:
		return diagnostic.Assertion
	case pre:
		return diagnostic.Precondition
	}
	return diagnostic.Postcondition
}

// conditionsKnown reports whether every condition can be decided now.
func (p *Planned) conditionsKnown(mi *modInstance, inst config.Instance, conds []config.Condition, self cty.Value) bool {
	for _, c := range conds {
		ok, _, d := c.Eval(p.scopeAt(mi), inst, self)
		if !d.HasErrors() && !ok.IsKnown() {
			return false
		}
	}
	return true
}

// check evaluates a check block's assertions; failures are warnings.
func (p *Planned) check(n *node, ni *nodeInst, final bool) hcl.Diagnostics {
	if p.opts.Destroy || ni.mi.overridden() {
		return nil
	}
	d := p.conditions(n, ni.mi, config.NoInstance, n.cfg.Postconditions, cty.NilVal, "Check block assertion failed")
	if !final && !p.checkDataFailed(n, ni) && !p.conditionsKnown(ni.mi, config.NoInstance, n.cfg.Postconditions, cty.NilVal) {
		known := diagnostic.Error("Check block assertion known after apply",
			"The assertion depends on values not known until apply; it will be checked then.")
		diagnostic.MarkCheckRule(known, objectAddr(n, ni.mi), diagnostic.Assertion)
		d = append(d, known)
	}
	for _, x := range d {
		x.Severity = hcl.DiagWarning
	}
	return attribute(n.addr, n.cfg, d)
}

// checkDataFailed reports whether a data source of the check block n, in
// the module instance of ni, could not be read: its assertions are then
// not known, which its warning has said already.
func (p *Planned) checkDataFailed(n *node, ni *nodeInst) bool {
	i := slices.Index(n.per, ni)
	for _, m := range p.nodes {
		if m.cfg == nil || m.cfg.Check != n.addr || i < 0 || i >= len(m.per) {
			continue
		}
		for _, in := range m.per[i].insts {
			if in.readFailed {
				return true
			}
		}
	}
	return false
}

// planResources plans every instance of a resource or data source node in
// every instance of its module.
func (e *Engine) planResources(ctx context.Context, p *Planned, n *node) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(n.per) == 0 && !p.opts.Destroy {
		// No instance of its module: whatever an import names there
		// does not exist.
		if _, d := p.importTargets(n, nil); d.HasErrors() {
			return d
		}
	}
	var all []*instance
	var owner owners
	for _, ni := range n.per {
		mi := ni.mi
		pending, waiting := p.depsState(n, mi)
		ni.pending = pending
		if p.opts.Destroy {
			ni.value = cty.DynamicVal
			continue
		}
		if mi.overridden() {
			// A test's override_module stands in for its module: what
			// state records there is kept as it is.
			p.claim(n, mi, true)
			continue
		}
		keys, deferredBy, d := p.repeatKeys(n, mi)
		if d.HasErrors() {
			return d
		}
		if deferredBy == "" && waiting != "" {
			// Something this node depends on is deferred: so is this node,
			// since its configuration cannot be complete this round.
			deferredBy = waiting
		}
		recorded := p.claim(n, mi, deferredBy != "")
		if deferredBy != "" {
			ni.deferred, ni.waiting, ni.pending = true, deferredBy, true
			ni.value = cty.DynamicVal
			n.deferredAny = true
			continue
		}
		byAddr := newRecordedByAddr(recorded)
		imports, d := p.importTargets(n, mi)
		if d.HasErrors() {
			return d
		}
		for i := range keys {
			k := &keys[i]
			in := &instance{addr: instanceAddr(n, mi, k.key), rk: k.ref()}
			in.recorded = byAddr.take(in.addr)
			if t, ok := imports[in.addr]; ok {
				// An object already recorded is already managed: the
				// import has nothing to do.
				if in.recorded == nil {
					in.importID = t.ID
				}
				delete(imports, in.addr)
			}
			if ni.insts == nil && len(keys) == 1 {
				ni.insts = ni.only[:0]
			}
			ni.insts = append(ni.insts, in)
			owner.add(in, ni)
		}
		var buf [1]string
		known := buf[:0]
		for _, in := range ni.insts {
			known = append(known, in.addr)
		}
		p.checks.instances(n, known)
		if len(imports) > 0 {
			a := slices.Min(slices.Collect(maps.Keys(imports)))
			return hcl.Diagnostics{importTargetMissing(imports[a])}
		}
		// Recorded instances whose keys are gone are destroyed with the
		// node, so that they go before what they depended on.
		for _, obj := range byAddr.left() {
			in := &instance{addr: obj.Address, recorded: obj, gone: true}
			ni.insts = append(ni.insts, in)
			owner.add(in, ni)
		}
		// All of the node's instances, in its node instances' order:
		// when one has them all, as nearly always, its own list.
		if all == nil {
			all = ni.insts
		} else {
			all = append(slices.Clip(all), ni.insts...)
		}
		if n.cfg.ProviderKey != nil {
			if d := p.instanceProviders(n, ni); d.HasErrors() {
				return d
			}
		}
	}
	if len(all) == 1 {
		// Without the closure, which escapes to the walk's goroutines.
		diags = append(diags, e.planOne(ctx, p, n, owner.of(all[0]), all[0])...)
	} else {
		diags = append(diags, p.eachInstance(all, owner, func(ni *nodeInst, in *instance) hcl.Diagnostics {
			return e.planOne(ctx, p, n, ni, in)
		})...)
	}
	if diags.HasErrors() {
		return diags
	}
	p.providerDeferrals(n)
	for _, ni := range n.per {
		if ni.deferred || p.opts.Destroy {
			continue
		}
		for _, in := range ni.insts {
			if in.change != nil && in.change.Action != plan.NoOp {
				ni.pending = true
			}
		}
		ni.value = aggregate(n.cfg, live(ni.insts))
	}
	return diags
}

// planOne plans an instance of a resource, data source or ephemeral
// resource node.
func (e *Engine) planOne(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	switch n.cfg.Kind {
	case config.DataSource:
		return e.planData(ctx, p, n, ni, in)
	case config.Ephemeral:
		return e.openEphemeral(ctx, p, n, ni, in, true)
	}
	return e.planInstance(ctx, p, n, ni, in)
}

// owners says which node instance (module instance) each instance of a
// node belongs to: with a single one, as nearly every node has, without a
// map per node.
type owners struct {
	one *nodeInst
	by  map[*instance]*nodeInst // those not of one
}

func (o *owners) add(in *instance, ni *nodeInst) {
	if o.one == nil {
		o.one = ni
	}
	if ni == o.one {
		return
	}
	if o.by == nil {
		o.by = map[*instance]*nodeInst{}
	}
	o.by[in] = ni
}

func (o owners) of(in *instance) *nodeInst {
	if ni, ok := o.by[in]; ok {
		return ni
	}
	return o.one
}

// eachInstance runs f for every instance in all, in parallel, with the
// node instance that owns it, and collects what they say.
func (p *Planned) eachInstance(all []*instance, owner owners, f func(ni *nodeInst, in *instance) hcl.Diagnostics) hcl.Diagnostics {
	if len(all) == 1 {
		// Most nodes (one per resource when wide): no lock nor list to
		// make.
		return f(owner.of(all[0]), all[0])
	}
	var diags hcl.Diagnostics
	var mu sync.Mutex
	p.forEach(len(all), func(i int) {
		if d := f(owner.of(all[i]), all[i]); len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
	})
	return diags
}

// live drops the instances that are being destroyed because their key is
// gone, and those -target leaves out that do not exist.
func live(insts []*instance) []*instance {
	out := make([]*instance, 0, len(insts))
	for _, in := range insts {
		if !in.gone && !in.leftOut {
			out = append(out, in)
		}
	}
	return out
}

// claim takes the recorded objects of a node in one module instance. A
// deferred node claims them too, so that they are kept rather than
// destroyed as orphans.
func (p *Planned) claim(n *node, mi *modInstance, keep bool) []*state.Object {
	g := p.recordedAt(n, mi)
	if g == nil {
		return nil
	}
	g.claimed.Store(true)
	if keep {
		return nil
	}
	return g.objs
}

// readConfig checks an instance's preconditions and evaluates its
// configuration, for the kinds read rather than planned (data sources and
// ephemeral resources).
func (p *Planned) readConfig(n *node, ni *nodeInst, in *instance) (config.Instance, cty.Value, hcl.Diagnostics) {
	inst := config.Instance{Key: in.key(), Each: in.each()}
	if d := p.conditions(n, ni.mi, inst, n.cfg.Preconditions, cty.NilVal, "Resource precondition failed"); d.HasErrors() {
		return inst, cty.NilVal, attribute(in.addr, n.cfg, d)
	}
	cfgVal, diags := n.cfg.Eval.Evaluate(p.scopeAt(ni.mi), inst)
	return inst, cfgVal, attribute(in.addr, n.cfg, diags)
}

// assemble collects the proposed changes in address order.
func (p *Planned) assemble() *plan.Plan {
	pl := &plan.Plan{Destroy: p.opts.Destroy, Targeted: p.narrowing(), RefreshOnly: p.opts.RefreshOnly, Timestamp: p.run.PlanTime,
		Checks: p.checks.results()}
	addChange := func(n *node, in *instance) {
		if in.recorded != nil && !in.recordedVal.IsNull() && in.recordedVal != cty.NilVal && !ctysame.RawEquals(in.prior, in.recordedVal) {
			sens := in.meta.Sensitive
			action := plan.Update
			if in.prior.IsNull() {
				action = plan.Delete
			}
			pl.Drift = append(pl.Drift, &plan.ResourceChange{
				Addr: in.addr, Mode: plan.Managed, Type: in.recorded.Type, Provider: in.recorded.Provider,
				Action: action,
				Before: withMarks(n.schema.Block, in.recordedVal, sens),
				After:  withMarks(n.schema.Block, in.prior, sens),
				Schema: n.schema.Block,
			})
		}
		if in.change != nil {
			if n.schema != nil {
				in.change.Schema = n.schema.Block
			}
			pl.Changes = append(pl.Changes, in.change)
		}
		if in.recorded != nil && n.schema != nil && in.recorded.SchemaVersion < n.schema.Version && in.change != nil && in.change.Action == plan.NoOp {
			pl.Upgraded = append(pl.Upgraded, in.addr)
		}
	}
	for _, n := range p.nodes {
		if n.orphan != nil {
			addChange(n, n.orphan)
			continue
		}
		for _, ni := range n.per {
			if ni.deferred && !n.held && !p.opts.Destroy && (n.cfg.Kind == config.Resource || n.cfg.Kind == config.DataSource || n.cfg.Kind == config.Module) {
				pl.Deferred = append(pl.Deferred, p.deferredChange(n, ni))
			}
			if p.opts.Destroy {
				// A destroy's walk gives values only: each recorded
				// object is planned, its drift included, as the orphan
				// it is.
				continue
			}
			for _, in := range ni.insts {
				addChange(n, in)
			}
		}
	}
	for _, mv := range p.moves {
		pl.Moved = append(pl.Moved, &plan.Move{From: mv.from, To: mv.to})
	}
	// In Terraform's order: the root module first, keys by value.
	addr.Sort(pl.Changes, func(c *plan.ResourceChange) string { return c.Addr })
	addr.Sort(pl.Drift, func(c *plan.ResourceChange) string { return c.Addr })
	sort.Slice(pl.Deferred, func(i, j int) bool { return pl.Deferred[i].Addr < pl.Deferred[j].Addr })
	pl.Outputs = p.outputChanges()
	pl.Data = p.dataRecords()
	return pl
}

func (p *Planned) deferredChange(n *node, ni *nodeInst) *plan.DeferredChange {
	target := addr.Join(ni.mi.str, relAddr(n)) + "[*]"
	if n.cfg.Repeat == nil && n.cfg.Kind != config.Module {
		target = addr.Join(ni.mi.str, relAddr(n))
	}
	existing := p.recordedAt(n, ni.mi) != nil
	return &plan.DeferredChange{Addr: target, WaitingOn: ni.waiting, Existing: existing, Module: n.cfg.Kind == config.Module, ByProvider: ni.byProvider}
}

func (p *Planned) outputChanges() []*plan.OutputChange {
	var out []*plan.OutputChange
	declared := map[string]bool{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Output || n.cfg.Module != "" {
			continue
		}
		ni := n.per[0]
		declared[n.cfg.Name] = true
		if (ni.deferred && !p.opts.Destroy) || n.held {
			continue
		}
		oc := &plan.OutputChange{Name: n.cfg.Name, Sensitive: n.cfg.Sensitive, After: ni.value, Before: cty.NullVal(cty.DynamicPseudoType)}
		rec, ok := p.outputs[n.cfg.Name]
		switch {
		case !ok && p.opts.Destroy:
			continue
		case !ok && unmarked(oc.After).IsNull():
			// Null and not recorded (null root outputs never are): no
			// change, as in Terraform, whatever its sensitivity.
			oc.Action = plan.NoOp
		case !ok:
			oc.Action = plan.Create
		default:
			before, err := decodeOutput(p.keys, rec.Value)
			if err == nil && rec.Sensitive {
				before = before.Mark(marks.Sensitive)
			}
			oc.Before = before
			switch {
			case p.opts.Destroy:
				oc.Action = plan.Delete
				oc.After = cty.NullVal(cty.DynamicPseudoType)
			case err != nil || !unmarked(oc.After).RawEquals(unmarked(before)):
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
		before, _ := decodeOutput(p.keys, rec.Value)
		if rec.Sensitive {
			before = before.Mark(marks.Sensitive)
		}
		out = append(out, &plan.OutputChange{Name: name, Action: plan.Delete, Before: before, After: cty.NullVal(cty.DynamicPseudoType), Sensitive: rec.Sensitive})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Variables are the values of the root module's variables the plan was
// made with, sensitive ones marked.
func (p *Planned) Variables() map[string]cty.Value {
	out := map[string]cty.Value{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Variable || n.cfg.Module != "" || len(n.per) == 0 {
			continue
		}
		if v := n.per[0].value; v != cty.NilVal {
			out[n.cfg.Name] = v
		}
	}
	return out
}

// ScrubSecrets replaces every sensitive string of the values the plan
// evaluated (variables, locals, outputs, resources and data sources, in
// every module instance), whole, encoded, digested or in part, with
// "(sensitive value)" in what diags say: what console evaluates in
// RootScope may quote any of them in an error, as plan's own evaluation
// may, and is scrubbed the same way.
func (p *Planned) ScrubSecrets(diags hcl.Diagnostics) hcl.Diagnostics {
	var secrets []string
	for _, n := range p.nodes {
		for _, ni := range n.per {
			if ni.value == cty.NilVal {
				continue
			}
			u, paths := marks.Unmark(ni.value)
			secrets = append(secrets, sensitiveStrings(u, paths)...)
		}
	}
	return scrubSecrets(diags, secrets)
}

// RootScope gives the values of the root module's nodes as planned: what
// state records where nothing changes, planned values where something
// does (unknown where known only after apply).
func (p *Planned) RootScope() config.Scope {
	return p.scopeAt(p.mods[""].instances[0])
}

// recordedByAddr finds a node's recorded objects in a module instance by
// address, each once. Most resources have one recorded object and one
// instance, or none: they are then matched without a map, which the walk
// would make, fill, empty and range over for each of them.
type recordedByAddr struct {
	one *state.Object
	m   map[string]*state.Object
}

func newRecordedByAddr(objs []*state.Object) recordedByAddr {
	switch len(objs) {
	case 0:
		return recordedByAddr{} // no map for a first apply's resources
	case 1:
		return recordedByAddr{one: objs[0]}
	}
	m := make(map[string]*state.Object, len(objs))
	for _, obj := range objs {
		m[obj.Address] = obj
	}
	return recordedByAddr{m: m}
}

// take is the recorded object at address a, nil when there is none or it
// was taken.
func (r *recordedByAddr) take(a string) *state.Object {
	if r.m == nil {
		if obj := r.one; obj != nil && obj.Address == a {
			r.one = nil
			return obj
		}
		return nil
	}
	obj, ok := r.m[a]
	if ok {
		delete(r.m, a)
	}
	return obj
}

// left are the recorded objects not taken, by address.
func (r *recordedByAddr) left() []*state.Object {
	if r.m == nil {
		if r.one == nil {
			return nil
		}
		return []*state.Object{r.one}
	}
	objs := slices.Collect(maps.Values(r.m))
	slices.SortFunc(objs, func(a, b *state.Object) int { return strings.Compare(a.Address, b.Address) })
	return objs
}
