package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/refs"
	"github.com/tetherhq/tether/internal/secrets"
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
		byAddr := make(map[string]*state.Object, len(recorded))
		for _, obj := range recorded {
			byAddr[obj.Address] = obj
		}
		imports, d := p.importTargets(n, mi)
		if d.HasErrors() {
			return d
		}
		for _, k := range keys {
			in := &instance{addr: instanceAddr(n, mi, k.key), key: k.key, each: k.each}
			if obj, ok := byAddr[in.addr]; ok {
				in.recorded = obj
				delete(byAddr, in.addr)
			}
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
		gone := make([]string, 0, len(byAddr))
		for a := range byAddr {
			gone = append(gone, a)
		}
		sort.Strings(gone)
		for _, a := range gone {
			in := &instance{addr: a, recorded: byAddr[a], key: cty.NilVal, gone: true}
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

// refresh reads a recorded object of node n back from its provider.
// Under -target only the objects the plan may change are read (see
// targeted); the others keep what state records, as in Terraform, whose
// targeted plan never visits them.
func (e *Engine) refresh(ctx context.Context, p *Planned, prov provider.Provider, n *node, in *instance) hcl.Diagnostics {
	rs, cn := n.schema, n.cfg
	var diags hcl.Diagnostics
	if cn != nil && in.recorded.Type != cn.Type {
		// A moved block brought it from a resource of another type.
		if diags = e.moveAcrossTypes(ctx, p, prov, rs, in, cn); diags.HasErrors() {
			return diags
		}
	}
	v, d := decodeRecorded(ctx, e.Keys, prov, rs, in.recorded, cn)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return diags
	}
	meta, err := decodeMeta(in.recorded.Sensitive)
	if err != nil {
		return append(diags, errorDiag(in.addr, cn, "Cannot read recorded object", diagnostic.Failed("reading the recorded object", err)))
	}
	priv, err := e.openPrivate(in.recorded)
	if err != nil {
		return append(diags, errorDiag(in.addr, cn, "Cannot read recorded object", diagnostic.Failed("opening the provider's private data", err)))
	}
	in.meta = meta
	// Held for the whole run: one type map for all.
	v = rs.Block.SharedType(v)
	in.recordedVal = v
	in.prior = v
	in.priorPrivate, in.recordedPrivate = priv, priv
	if in.res.empty() && (cn == nil || in.gone || p.opts.Destroy) {
		// No configuration says where its references are now (a
		// destroy, whose walk evaluates no resource's arguments, or an
		// object whose resource or key is gone): those
		// recorded with it are resolved, as plan resolves the
		// configuration's, so that the provider reads and deletes the
		// object with the values it was made with, never their
		// descriptions (a provider that compares them answers "gone").
		if in.res, d = e.resolveRecorded(ctx, in.addr, cn, meta.Refs); d.HasErrors() {
			return append(diags, d...)
		}
		if !in.res.empty() {
			defer func() { in.providerPrior = in.res.priorFor(in.prior, meta.Refs) }()
		}
		if desc, ok := unrecordedRef(meta.Refs, v); ok && !p.opts.SkipRefresh && p.targeted(n, in.addr) {
			return append(diags, oldRecord(in.addr, cn, fmt.Sprintf(
				"%s was recorded by an earlier version of Tether, which kept only the description %s of a reference in its arguments, not where the value is, and no configuration gives the value now. Read with the description instead of the value, its provider may answer that the object is gone, and it would be forgotten while it still exists. So it is not refreshed: it is deleted as state records it. If it was already deleted outside Tether and its provider cannot delete it again, remove it from state with `tether state rm %s`.",
				in.addr, desc, in.addr)))
		}
	}
	if p.opts.SkipRefresh || !p.targeted(n, in.addr) {
		return diags
	}
	start := time.Now()
	startID := in.shownID(n, in.recordedVal)
	e.event(plan.Event{Addr: in.addr, Action: plan.NoOp, Phase: plan.Started, ID: startID})
	resp := prov.ReadResource(provider.WithObject(ctx, in.addr), provider.ReadRequest{TypeName: in.recorded.Type, PriorState: in.res.priorFor(v, meta.Refs), Private: priv})
	diags = append(diags, attribute(in.addr, cn, in.scrubDiags(resp.Diagnostics))...)
	if resp.Diagnostics.HasErrors() {
		return diags
	}
	defer func() {
		id := startID
		if !ctysame.Identical(in.prior, in.recordedVal) {
			// Refresh found the object changed (else it shares it).
			id = in.shownID(n, in.prior)
		}
		e.event(plan.Event{Addr: in.addr, Action: plan.NoOp, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: id})
	}()
	if resp.Deferred != "" {
		in.deferredBy = resp.Deferred
		return diags
	}
	if resp.NewState.IsNull() && len(meta.Refs) == 0 {
		if desc, ok := descIn(v); ok {
			// Recorded before references were (no hash says whether the
			// configuration's value is the one it was made with, so the
			// provider was given the description): "gone" may only mean
			// that the description is not the value.
			return append(diags, oldRecord(in.addr, cn, fmt.Sprintf(
				"%s was recorded by an earlier version of Tether, which kept only the description %s of a reference in its arguments, not a hash of its value. Read with the description, its provider answered that the object is gone, which may only mean that the description is not the value; so it is kept in state, not forgotten. The next up plans it with the configuration's values and records its references. If it was really deleted outside Tether, remove it from state with `tether state rm %s`.",
				in.addr, desc, in.addr)))
		}
	}
	// What the real world holds at a referenced path is the referenced
	// value (current or earlier): it is stored and shown as the
	// description only.
	in.prior = e.scrub(refreshed(n, in, resp.NewState), in.res, meta.Refs)
	if ctysame.RawEquals(in.prior, in.recordedVal) {
		in.prior = in.recordedVal // share: refresh found no drift
	}
	in.priorPrivate = resp.Private
	return diags
}

// oldRecord is the warning about an object recorded before references
// were, which refresh does not take the provider's word on.
func oldRecord(address string, cn *config.Node, detail string) *hcl.Diagnostic {
	w := errorDiag(address, cn, "Object recorded without its references", detail)
	w.Severity = hcl.DiagWarning
	return w
}

// unrecordedRef finds a reference of a recorded object that cannot be
// resolved without its configuration, and returns its description: one
// recorded before state kept the reference itself (Ref nil), or, in the
// oldest records, which kept no references at all, a description in the
// value (see descIn).
func unrecordedRef(recorded []refRecord, v cty.Value) (string, bool) {
	for _, rec := range recorded {
		if rec.Ref == nil {
			return rec.Desc, true
		}
	}
	if len(recorded) > 0 {
		return "", false
	}
	return descIn(v)
}

// descIn finds a string of v that is a reference's description, as the
// records written before references were recorded hold in place of the
// value.
func descIn(v cty.Value) (string, bool) {
	var desc string
	u, _ := v.UnmarkDeep()
	cty.Walk(u, func(_ cty.Path, leaf cty.Value) (bool, error) {
		if desc == "" && leaf.Type() == cty.String && leaf.IsKnown() && !leaf.IsNull() {
			if s := leaf.AsString(); strings.HasPrefix(s, "(reference ") && strings.HasSuffix(s, ")") {
				desc = s
			}
		}
		return desc == "", nil
	})
	return desc, desc != ""
}

// readConfig checks an instance's preconditions and evaluates its
// configuration, for the kinds read rather than planned (data sources and
// ephemeral resources).
func (p *Planned) readConfig(n *node, ni *nodeInst, in *instance) (config.Instance, cty.Value, hcl.Diagnostics) {
	inst := config.Instance{Key: in.key, Each: in.each}
	if d := p.conditions(n, ni.mi, inst, n.cfg.Preconditions, cty.NilVal, "Resource precondition failed"); d.HasErrors() {
		return inst, cty.NilVal, attribute(in.addr, n.cfg, d)
	}
	cfgVal, diags := n.cfg.Eval.Evaluate(p.scopeAt(ni.mi), inst)
	return inst, cfgVal, attribute(in.addr, n.cfg, diags)
}

func (e *Engine) planData(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	if !p.targeted(n, in.addr) {
		// -target leaves it out: as in Terraform it is not read, and
		// state keeps its recorded result.
		in.value = p.untargetedData(n, in)
		return nil
	}
	diags := e.planDataRead(ctx, p, n, ni, in)
	if n.cfg.Check == "" {
		return diags
	}
	// A check block's data source: what goes wrong is a warning, its
	// assertions are then not known, and it is read again during apply,
	// so that the check sees what apply made, as in Terraform.
	p.checks.reportRead(p.nodes[p.byAddr[n.cfg.Check]], ni.mi, diags)
	ty := n.schema.Block.ImpliedType()
	if diags.HasErrors() {
		diags = asWarnings(diags)
		in.readFailed = true
		// The plan shows what the configuration sets, as Terraform's
		// does, and so does state.
		in.value = p.configuredData(n, ni, in)
		in.result = withoutUnknowns(in.value)
	}
	if in.change == nil && in.deferredBy == "" {
		after := in.value
		if after == cty.NilVal {
			after = cty.UnknownVal(ty)
		}
		in.change = &plan.ResourceChange{
			Addr: in.addr, Mode: plan.Data, Type: n.cfg.Type, Provider: n.cfg.Provider,
			Action: plan.Read, Before: cty.NullVal(ty), After: after, Reason: plan.ReasonCheck,
		}
	}
	return diags
}

// asWarnings turns errors into warnings: what a check block finds is never
// an error.
func asWarnings(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		d.Severity = hcl.DiagWarning
	}
	return diags
}

// validateData asks the provider to validate a data source instance's
// configuration before each read, as Terraform's readDataSource does: in
// the plan, and again during apply for a read the plan left to it, with
// the values known by then.
func validateData(n *node, in *instance, cfg cty.Value) hcl.Diagnostics {
	return attribute(in.addr, n.cfg, in.scrubDiags(in.provider(n).ValidateDataSourceConfig(n.cfg.Type, cfg)))
}

func (e *Engine) planDataRead(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	inst, cfgVal, diags := p.readConfig(n, ni, in)
	if diags.HasErrors() {
		return diags
	}
	if d := ephemeralArguments(in.addr, n.cfg, n.schema.Block, cfgVal); d.HasErrors() {
		return append(diags, d...)
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	in.secrets = append(sensitiveStrings(uv, cfgMarks), providerSecrets(in.provider(n))...)
	in.judgeBy(n, uv, cfgMarks)
	diags = append(diags, validateData(n, in, uv)...)
	if diags.HasErrors() {
		return diags
	}
	pending, _ := p.depsState(n, ni.mi)
	if !uv.IsWhollyKnown() || pending {
		// Reading now would see the world before the pending changes it
		// depends on; read it during apply, right after them.
		in.planned = provider.PlannedDataObject(n.schema.Block, uv)
		in.value = withMarks(n.schema.Block, in.planned, cfgMarks)
		reason := plan.ReasonConfigUnknown
		if uv.IsWhollyKnown() {
			reason = "it depends on " + p.waitingOn(n, ni.mi) + ", which has changes pending"
		}
		in.change = &plan.ResourceChange{
			Addr: in.addr, Mode: plan.Data, Type: n.cfg.Type, Provider: n.cfg.Provider,
			Action: plan.Read, Before: cty.NullVal(ty), After: in.value, Reason: reason,
		}
		return diags
	}
	// The read is reported as during apply, as Terraform reports it.
	start := time.Now()
	e.event(plan.Event{Addr: in.addr, Action: plan.Read, Phase: plan.Started})
	resp, d := e.readData(ctx, in.provider(n), in.addr, n.cfg, cfgVal)
	diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(d))...)
	if d.HasErrors() {
		e.failed(in.addr, plan.Read, start, diags)
		return diags
	}
	value := in.returned(n, resp.State, cfgMarks)
	e.event(plan.Event{Addr: in.addr, Action: plan.Read, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: idOf(value)})
	if resp.Deferred != "" {
		in.deferredBy = resp.Deferred
		return diags
	}
	in.value = value
	in.result = in.value
	return append(diags, attribute(in.addr, n.cfg, p.conditions(n, ni.mi, inst, n.cfg.Postconditions, in.value, "Resource postcondition failed"))...)
}

// ReadData reads a data source outside a plan, for a Go program's
// direct-form reads: as during a plan, the references in cfg (as
// placeholders, see refs.Placeholders) are resolved for that call alone,
// and the state returned and the diagnostics show their descriptions
// where they echo their values. address names the read in diagnostics.
func ReadData(ctx context.Context, p provider.Provider, address, typeName string, cfg cty.Value) (provider.ReadDataResponse, hcl.Diagnostics) {
	return (&Engine{}).readData(ctx, p, address, &config.Node{Type: typeName}, cfg)
}

// readData reads a data source with its configuration's references
// resolved for that call alone, as a resource's are: the state it returns
// shows their descriptions where it echoes their values, and so does what
// it says.
func (e *Engine) readData(ctx context.Context, prov provider.Provider, address string, cn *config.Node, cfgVal cty.Value) (provider.ReadDataResponse, hcl.Diagnostics) {
	res, diags := e.resolveRefs(ctx, address, cn, cfgVal)
	if diags.HasErrors() {
		return provider.ReadDataResponse{}, diags
	}
	uv, _ := marks.Unmark(cfgVal)
	resp := prov.ReadDataSource(provider.WithObject(ctx, address), provider.ReadDataRequest{TypeName: cn.Type, Config: res.substitute(uv)})
	resp.State = e.scrub(resp.State, res, nil)
	return resp, res.scrubDiags(resp.Diagnostics)
}

func (e *Engine) planInstance(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	// Made once for every provider call of the instance (refresh, plan).
	ctx = provider.WithObject(ctx, in.addr)
	var diags hcl.Diagnostics
	block := n.schema.Block
	ty := block.ImpliedType()
	in.prior = cty.NullVal(ty)
	in.recordedVal = cty.NullVal(ty)
	inst := config.Instance{Key: in.key, Each: in.each}
	// The configuration comes first: its references, resolved, let
	// refresh recognise referenced values in what the provider reads back.
	var cfgVal cty.Value
	var ev evaluated
	if !in.gone {
		if d := p.conditions(n, ni.mi, inst, n.cfg.Preconditions, cty.NilVal, "Resource precondition failed"); d.HasErrors() {
			return attribute(in.addr, n.cfg, d)
		}
		var d hcl.Diagnostics
		cfgVal, d = n.cfg.Eval.Evaluate(p.scopeAt(ni.mi), inst)
		if d.HasErrors() {
			d = scrubSecrets(d, p.sensitiveInputs(n, ni.mi))
		}
		// Held until the instance is applied: one type map for all.
		cfgVal = block.SharedType(cfgVal)
		diags = append(diags, attribute(in.addr, n.cfg, d)...)
		if d.HasErrors() {
			return diags
		}
		// Most configurations carry no mark at all (nothing sensitive,
		// ephemeral or referenced): then one look inside says so for the
		// three questions below, each of which would look again.
		marked := marks.ContainsMarked(cfgVal)
		if marked {
			if d := ephemeralArguments(in.addr, n.cfg, block, cfgVal); d.HasErrors() {
				return append(diags, d...)
			}
		}
		// Refresh comes before the plan: what it says is scrubbed too.
		in.inputs = append(p.sensitiveInputs(n, ni.mi), providerSecrets(in.provider(n))...)
		ev = in.takeOf(n, cfgVal, marked)
		if marked {
			if in.res, d = e.resolveRefs(ctx, in.addr, n.cfg, cfgVal); d.HasErrors() {
				return append(diags, d...)
			}
		} else {
			in.res = nil // as resolveRefs resolves a value with no placeholder
		}
		in.shareSecrets(n)
	}
	if in.recorded != nil {
		diags = append(diags, e.refresh(ctx, p, in.provider(n), n, in)...)
		if diags.HasErrors() {
			return diags
		}
	}
	if in.importID != "" {
		if d := e.importObject(ctx, n, in); d.HasErrors() {
			return append(diags, d...)
		}
	}
	in.resourceDeps = p.resourceDeps(n)
	before := in.returned(n, in.prior, in.meta.Sensitive)
	in.value = before

	// An instance whose key left count or for_each, or whose enabled is
	// false, is destroyed.
	if in.gone {
		reason := "its key is no longer in count or for_each"
		if n.cfg.Enabled != nil {
			reason = plan.ReasonEnabledFalse
		}
		in.change = &plan.ResourceChange{Addr: in.addr, Mode: plan.Managed, Type: n.cfg.Type, Provider: n.cfg.Provider,
			Action: plan.Delete, Before: before, After: cty.NullVal(ty), Reason: reason}
		if in.prior.IsNull() {
			in.change.Action = plan.NoOp
		}
		if n.cfg.Lifecycle.PreventDestroy && in.change.Action == plan.Delete {
			return append(diags, preventDestroy(in.addr, n.cfg, plan.Delete))
		}
		return diags
	}

	requested := p.replaceRequested(in.addr)
	in.forceReplace = p.triggered(n, ni.mi) || requested
	change, planned, plannedPriv, d := e.planChange(ctx, n, in, ev)
	diags = append(diags, d...)
	if d.HasErrors() {
		return diags
	}
	if requested && change.Action.IsReplace() {
		change.Reason, change.Requested = "replacement requested with -replace", true
	}
	change.Before = before
	change.Importing = in.importID
	if in.recorded != nil && in.recorded.Status == state.Tainted && change.Action != plan.Create {
		change.Action = replaceAction(n)
		change.Tainted = true
	}
	if n.cfg.Lifecycle.PreventDestroy && (change.Action.IsReplace() || change.Action == plan.Delete) {
		return append(diags, preventDestroy(in.addr, n.cfg, change.Action))
	}
	if change.Action == plan.NoOp && in.recorded != nil && !secrets.IsSealed(in.recorded.Value) {
		// A value that became sensitive (a variable marked sensitive,
		// what the rule for derived values now finds) in an object state
		// holds in clear is an update of state alone, as in Terraform:
		// without it, up would have nothing to apply and the clear record
		// would stay, unsealed, however often it ran. (An object already
		// sealed records the new paths with its next change.)
		if _, sens := marks.Unmark(change.After); !coveredPaths(sens, in.meta.Sensitive) {
			change.Action = plan.Update
			// Shown as Terraform shows it: before, what state records as
			// sensitive (it holds the rest in clear), so that each
			// attribute that becomes sensitive is shown with a warning.
			change.Before = withMarks(n.schema.Block, unmarked(in.prior), in.meta.Sensitive)
		}
	}
	if change.Action == plan.NoOp && in.res.empty() && in.importID == "" {
		// Nothing to apply: keep one object instead of three, since a
		// large no-change plan is mostly these. (With references, the
		// planned value carries their marks for dependents, so it stays.)
		change.After = before
		planned, plannedPriv = cty.NilVal, nil
		in.configVal, in.providerPrior = cty.NilVal, cty.NilVal
		// The configuration kept to skip validating it again is for an
		// apply that plans the instance anew, which a no-op never is
		// (apply keeps it as it is): held, it is a second object per
		// instance for the whole run.
		in.validated = nil
	}
	in.change = change
	in.planned = planned
	in.plannedPriv = plannedPriv
	in.value = change.After
	if len(n.cfg.Postconditions) > 0 {
		if p.conditionsKnown(ni.mi, inst, n.cfg.Postconditions, change.After) {
			diags = append(diags, attribute(in.addr, n.cfg, p.conditions(n, ni.mi, inst, n.cfg.Postconditions, change.After, "Resource postcondition failed"))...)
		} else {
			in.checkAfterApply = true
		}
	}
	return diags
}

func preventDestroy(address string, cn *config.Node, action plan.Action) *hcl.Diagnostic {
	return errorDiag(address, cn, "Instance cannot be destroyed",
		fmt.Sprintf("%s has lifecycle.prevent_destroy set, but the plan would %s it. Remove prevent_destroy, or change the configuration so that it is updated in place.", address, action))
}

func replaceAction(n *node) plan.Action {
	if n.cbd {
		return plan.CreateThenDelete
	}
	return plan.DeleteThenCreate
}

// triggered reports whether a replace_triggered_by reference has a change
// planned in the same module instance.
func (p *Planned) triggered(n *node, mi *modInstance) bool {
	for _, t := range n.cfg.Lifecycle.ReplaceTriggeredBy {
		id, ok := p.byAddr[t.Addr]
		if !ok {
			continue
		}
		ni := p.nodes[id].at(mi)
		if ni == nil {
			continue
		}
		for _, in := range ni.insts {
			c := in.change
			if c == nil || c.Action == plan.NoOp || c.Action == plan.Read {
				continue
			}
			if len(t.Path) == 0 || c.Action != plan.Update || pathChanged(t.Path, unmarked(c.Before), unmarked(c.After)) {
				return true
			}
		}
	}
	return false
}

func unmarked(v cty.Value) cty.Value {
	u, _ := v.UnmarkDeep()
	return u
}

// evaluated is an instance's configuration as evaluated (val), unmarked,
// with the paths that were sensitive.
type evaluated struct {
	val, unmarked cty.Value
	sensitive     []cty.Path
}

// take records what an instance's evaluated configuration makes secret:
// what is scrubbed from whatever its provider says, and what the values it
// returns are judged by (see judgeBy). in.inputs must be set.
func (in *instance) take(n *node, cfgVal cty.Value) evaluated {
	return in.takeOf(n, cfgVal, marks.ContainsMarked(cfgVal))
}

// takeOf is take for a configuration already known to carry marks or
// not (marks.ContainsMarked).
func (in *instance) takeOf(n *node, cfgVal cty.Value, marked bool) evaluated {
	uv, m := cfgVal, []cty.Path(nil)
	if marked {
		uv, m = marks.Unmark(cfgVal)
	}
	in.secrets = append(sensitiveStrings(uv, m), in.inputs...)
	in.judgeBy(n, uv, m)
	return evaluated{val: cfgVal, unmarked: uv, sensitive: m}
}

// planChange asks the provider what applying a configuration, taken (see
// take), to the instance's prior object means. It is used during plan and
// again during apply, with the values dependencies really produced.
func (e *Engine) planChange(ctx context.Context, n *node, in *instance, ev evaluated) (*plan.ResourceChange, cty.Value, []byte, hcl.Diagnostics) {
	block := n.schema.Block
	ty := block.ImpliedType()
	uv, cfgMarks := ev.unmarked, ev.sensitive
	uv = in.res.substitute(uv)
	prior := in.res.priorFor(in.prior, in.meta.Refs)
	in.providerPrior = prior
	unignored := uv
	if !prior.IsNull() {
		uv = ignoreChanges(n.cfg.Lifecycle, block, prior, uv)
	}
	in.configVal = uv
	// The configuration as written is validated, before ignore_changes
	// puts prior values in it, as Terraform validates it: a prior value
	// the provider computed may conflict with what the configuration
	// sets (ssm_parameter's insecure_value with value).
	diags := e.validateResource(n, in, unignored)
	if diags.HasErrors() {
		return nil, cty.NilVal, nil, diags
	}
	if in.validated != nil {
		in.validated.from = ev.val
	}
	proposed := provider.ProposedNew(block, prior, uv)
	resp := in.provider(n).PlanResourceChange(provider.WithObject(ctx, in.addr), provider.PlanRequest{
		TypeName: n.cfg.Type, PriorState: prior, ProposedNewState: proposed,
		Config: uv, PriorPrivate: in.priorPrivate,
	})
	diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(resp.Diagnostics))...)
	if resp.Diagnostics.HasErrors() {
		return nil, cty.NilVal, nil, diags
	}
	if resp.Deferred != "" {
		// Planned in a later round; nothing of this plan is used.
		in.deferredBy = resp.Deferred
		return &plan.ResourceChange{Addr: in.addr, Mode: plan.Managed, Type: n.cfg.Type, Provider: n.cfg.Provider, Action: plan.NoOp, Before: in.prior, After: in.prior}, in.prior, nil, diags
	}
	if d := invalidPlan(n, in, prior, uv, proposed, resp); d != nil {
		return nil, cty.NilVal, nil, append(diags, d)
	}
	change := &plan.ResourceChange{Addr: in.addr, Mode: plan.Managed, Type: n.cfg.Type, Provider: n.cfg.Provider}
	planned, priv := resp.PlannedState, resp.PlannedPrivate
	if resp.LegacyTypeSystem {
		// A legacy SDK provider may change what ignore_changes kept (a
		// value stored as its hash, say): put the prior values back once
		// more, as Terraform does.
		planned = ignoreChanges(n.cfg.Lifecycle, nil, prior, planned)
	}
	var requiresReplace []cty.Path
	for _, path := range resp.RequiresReplace {
		// A write-only value is never recorded, so it cannot be
		// compared: the provider's word is taken, as Terraform takes it.
		if a := block.AttributeByPath(path); !prior.IsNull() && ((a != nil && a.WriteOnly) || pathChanged(path, prior, planned)) {
			requiresReplace = append(requiresReplace, path)
		}
	}
	switch {
	case in.prior.IsNull():
		change.Action = plan.Create
		if in.recorded != nil {
			change.Reason = "it was deleted outside Tether"
		}
	case ctysame.RawEquals(planned, prior) && !in.forceReplace && len(requiresReplace) == 0:
		change.Action = plan.NoOp
	default:
		change.Action = plan.Update
		change.RequiresReplace = requiresReplace
		if len(change.RequiresReplace) > 0 || in.forceReplace {
			if len(change.RequiresReplace) == 0 {
				change.Reason = "a resource in its replace_triggered_by changed"
			}
			change.Action = replaceAction(n)
			// A replacement is a create: plan it again from nothing so that
			// computed attributes are unknown rather than carried over. As
			// in Terraform, from the configuration as written: with no
			// prior object, nothing is ignored. The private data the
			// update's plan returned goes with it, as Terraform sends it
			// (an SDKv2 provider keeps its timeouts there).
			proposed := provider.ProposedNew(block, cty.NullVal(ty), unignored)
			resp := in.provider(n).PlanResourceChange(provider.WithObject(ctx, in.addr), provider.PlanRequest{
				TypeName: n.cfg.Type, PriorState: cty.NullVal(ty), ProposedNewState: proposed,
				Config: unignored, PriorPrivate: priv,
			})
			diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(resp.Diagnostics))...)
			if resp.Diagnostics.HasErrors() {
				return nil, cty.NilVal, nil, diags
			}
			if d := invalidPlan(n, in, cty.NullVal(ty), unignored, proposed, resp); d != nil {
				return nil, cty.NilVal, nil, append(diags, d)
			}
			planned, priv = resp.PlannedState, resp.PlannedPrivate
		}
	}
	if !ctysame.Identical(planned, prior) {
		// Held until the instance is applied: one type map for all. (The
		// prior object given back is shared with in.prior already.)
		planned = block.SharedType(planned)
	}
	// The plan shows, and dependents see, descriptions where the
	// configuration had references; the resolved object stays in memory
	// for the apply.
	change.After = in.res.remark(in.returned(n, e.scrub(planned, in.res, nil), cfgMarks))
	change.After = markWriteOnly(block, change.After, uv)
	return change, planned, priv, diags
}

// validateResource asks the instance's provider to validate cfg, the
// configuration it is about to plan, unless the same configured provider
// instance already found exactly this value valid without a word.
//
// Terraform validates again each time it plans an instance: in its plan,
// and again when it plans the instance anew during apply, because its apply
// runs in a new provider process and dependencies' values are known by then.
// When apply follows the plan in the same run, with the provider that
// validated it (not configured since) and a configuration that came out
// identical, that call would be the same request to the same process a
// second time. Skipping it saves a fifth of a create's provider calls. Any
// diagnostic, a warning included, makes the next plan ask again, so that
// nothing the provider said is lost or shown twice differently.
func (e *Engine) validateResource(n *node, in *instance, cfg cty.Value) hcl.Diagnostics {
	prov := in.provider(n)
	rp, _ := prov.(*redacting)
	v := in.validated
	if rp != nil && v != nil && v.prov == rp && v.configured == rp.configured.Load() && v.config.RawEquals(cfg) {
		return nil
	}
	in.validated = nil
	var configured uint64
	if rp != nil {
		configured = rp.configured.Load()
	}
	d := prov.ValidateResourceConfig(n.cfg.Type, cfg)
	if len(d) == 0 && rp != nil {
		in.validated = &validation{prov: rp, configured: configured, config: cfg}
	}
	return attribute(in.addr, n.cfg, in.scrubDiags(d))
}

// validation is a resource configuration a provider instance found valid.
type validation struct {
	prov       *redacting
	configured uint64 // prov.configured when it validated
	config     cty.Value
	// from is the configuration, as evaluated (marked), that the
	// provider was then asked to plan from (see samePlan).
	from cty.Value
}

// pathChanged reports whether the value at path differs between before
// and after, as Terraform decides it for requires-replace paths and
// replace_triggered_by: a path missing on one side is null there; a value
// not known yet may differ.
func pathChanged(path cty.Path, before, after cty.Value) bool {
	b, errB := path.Apply(before)
	a, errA := path.Apply(after)
	switch {
	case errA != nil && errB != nil:
		return false
	case errB != nil:
		b = cty.NullVal(a.Type())
	case errA != nil:
		a = cty.NullVal(b.Type())
	}
	eq := a.Equals(b)
	return !eq.IsKnown() || eq.False()
}

// resourceDeps collects the resources, data sources and ephemeral
// resources a node depends on, directly or not (through locals,
// variables, outputs, modules and other resources), as Terraform records
// them.
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
			if dn.cfg != nil && (dn.cfg.Kind == config.Resource || dn.cfg.Kind == config.DataSource || dn.cfg.Kind == config.Ephemeral) {
				out = append(out, dn.addr)
			}
			visit(dn)
		}
	}
	visit(n)
	sort.Strings(out)
	return out
}

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
		orphan := &instance{addr: a, recorded: obj, key: cty.NilVal}
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

// importTargets evaluates the imports that target node n in module
// instance mi (nil for none), by instance address. Import blocks are the
// root module's: they are evaluated there, and name instances in any
// module instance; one naming a module instance that does not exist is an
// error.
func (p *Planned) importTargets(n *node, mi *modInstance) (map[string]config.ImportTarget, hcl.Diagnostics) {
	// Evaluated once for all module instances of the node, when the
	// first is planned (planResources goes through them in order).
	if n.imports != nil && mi != nil && mi != n.per[0].mi {
		return maps.Clone(n.imports[mi.str]), nil
	}
	if len(p.cfg.Imports) == 0 && len(p.opts.Imports) == 0 {
		return nil, nil // none to evaluate: no map to make for each node
	}
	n.imports = map[string]map[string]config.ImportTarget{}
	var diags hcl.Diagnostics
	for _, imp := range append(p.cfg.Imports, p.opts.Imports...) {
		if imp.To != n.addr || imp.Eval == nil {
			continue
		}
		// An import block's errors are its own, at the block, not the
		// resource's.
		targets, d := imp.Eval(p.scopeAt(p.mods[""].instances[0]))
		diags = append(diags, d...)
		for _, t := range targets {
			m := moduleOf(t.Addr)
			if !slices.ContainsFunc(n.per, func(ni *nodeInst) bool { return ni.mi.str == m }) {
				diags = append(diags, importTargetMissing(t))
				continue
			}
			in := n.imports[m]
			if in == nil {
				in = map[string]config.ImportTarget{}
				n.imports[m] = in
			}
			if prev, ok := in[t.Addr]; ok && prev.ID != t.ID {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate import target",
					Detail: fmt.Sprintf("%s is imported twice, with the ids %q and %q.", t.Addr, prev.ID, t.ID), Subject: t.Range.Ptr()})
			}
			in[t.Addr] = t
		}
	}
	if mi == nil {
		return nil, diags
	}
	return maps.Clone(n.imports[mi.str]), diags
}

// importTargetMissing is Terraform's error for an import of an instance
// that count or for_each, of the resource or of a module call, does not
// make.
func importTargetMissing(t config.ImportTarget) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Configuration for import target does not exist",
		Detail:  fmt.Sprintf("The configuration for the given import %s does not exist. All target instances must have an associated configuration to be imported.", t.Addr),
		Subject: t.Range.Ptr()}
}

// moduleOf is the module instance of an instance address, "" for the
// root module's.
func moduleOf(instance string) string {
	ia, err := addr.ParseInstance(instance)
	if err != nil {
		return ""
	}
	return addr.ModulePath(ia.Module)
}

// importObject reads the existing object an import names, as the prior
// object of the instance: the provider imports it by its id, then reads it
// back, as Terraform does.
func (e *Engine) importObject(ctx context.Context, n *node, in *instance) hcl.Diagnostics {
	resp := in.provider(n).ImportResourceState(ctx, provider.ImportRequest{TypeName: n.cfg.Type, ID: in.importID})
	if resp.Diagnostics.HasErrors() {
		return attribute(in.addr, n.cfg, resp.Diagnostics)
	}
	var found *provider.ImportedResource
	for i := range resp.Imported {
		if resp.Imported[i].TypeName == n.cfg.Type {
			found = &resp.Imported[i]
			break
		}
	}
	if found == nil {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Import returned no object",
			fmt.Sprintf("The provider imported no %s for the id %q.", n.cfg.Type, in.importID))}
	}
	read := in.provider(n).ReadResource(ctx, provider.ReadRequest{TypeName: n.cfg.Type, PriorState: found.State, Private: found.Private})
	if read.Diagnostics.HasErrors() {
		return attribute(in.addr, n.cfg, read.Diagnostics)
	}
	if read.NewState.IsNull() {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot import non-existent remote object",
			fmt.Sprintf("The provider found no %s with the id %q to import. Check the id, and that the object exists.", n.cfg.Type, in.importID))}
	}
	in.prior, in.priorPrivate = refreshed(n, in, read.NewState), read.Private
	return append(resp.Diagnostics, read.Diagnostics...)
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
			scope, inst := p.scopeAt(ni.mi), config.Instance{Key: in.key, Each: in.each}
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
