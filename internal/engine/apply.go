package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
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
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/statejson"
)

// Result counts what an apply did.
type Result struct {
	Imported, Added, Changed, Destroyed int
	// Outputs are the root outputs after the apply, marked.
	Outputs map[string]cty.Value
}

// Apply carries out a plan. Each completed operation is committed to state
// before anything that depends on it starts, so a failure keeps all work
// completed before it; independent work goes on after a failure, and what
// depends on the failed resource is skipped.
func (e *Engine) Apply(ctx context.Context, p *Planned) (*Result, hcl.Diagnostics) {
	// Once the state's lock is lost (broken by another process), every
	// further provider call would make an object no state can record:
	// the first commit that finds it so stops the apply.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	store := e.Store
	guarded := stopOnLostLock{Store: store, stop: stop}
	e.Store = guarded
	defer func() { e.Store = store }()
	later, _ := store.(state.LaterCommitter)

	res := &Result{Outputs: map[string]cty.Value{}}
	p.run.Applying = true
	if p.Plan != nil && !p.Plan.Timestamp.IsZero() {
		p.run.PlanTime = p.Plan.Timestamp
	}
	p.checks.beginApply(p.walked)
	// Ordered before anything is recorded: an order that cannot be kept
	// changes nothing.
	g, order, diags := p.applyGraph()
	if diags.HasErrors() {
		return nil, diags
	}
	if err := e.commitMoves(ctx, p); err != nil {
		return res, hcl.Diagnostics{diagnostic.Wrap("Cannot record moved objects", "recording the moved objects", err)}
	}
	var mu sync.Mutex
	count := func(a plan.Action) {
		mu.Lock()
		defer mu.Unlock()
		switch a {
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
	}
	// The walk may run more nodes than --parallelism: only provider
	// operations take one of the parallelism slots, so a node's own
	// engine work overlaps other nodes' waits on their providers.
	p.slots = newSlots(e.parallelism())
	for i, d := range g.Depths(order) {
		p.nodes[i].depth = d
	}
	extra := e.parallelism() + 64
	p.sem = make(chan struct{}, extra)
	end := func(d hcl.Diagnostics, done graph.Done) {
		if len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
		done.Report(!d.HasErrors())
	}
	check := guarded.check
	g.WalkLater(ctx, order, extra, func(id int, done graph.Done) {
		var h *handover
		if later != nil {
			h = &handover{e: e, p: p, done: done, end: end, check: check}
		}
		d := e.applyNode(ctx, p, p.nodes[id], count, h)
		if !h.queued() {
			end(d, done)
			return
		}
		h.diags = d
		later.CommitLater(h.changes, h)
	}, nil)
	diags = append(diags, e.closeAll(&p.ephemerals)...)
	var lost *state.LockLostError
	switch {
	case errors.As(context.Cause(ctx), &lost):
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "State lock lost",
			Detail: "Another process broke this operation's lock, so it stopped: no further provider call was started. " + lost.Error() + "."})
	case ctx.Err() != nil:
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Apply interrupted",
			Detail: "Operations that had completed are recorded in state; run the command again to finish."})
	}
	diags = append(diags, e.commitData(ctx, p)...)
	diags = append(diags, e.commitOutputs(ctx, p, res)...)
	res.Imported = int(p.imported.Load())
	return res, diags
}

// stopOnLostLock stops the apply at the first commit that finds the lock
// lost.
type stopOnLostLock struct {
	state.Store
	stop context.CancelCauseFunc
}

func (s stopOnLostLock) Commit(ctx context.Context, c state.Changes) error {
	return s.check(s.Store.Commit(ctx, c))
}

// check stops the apply when err says the lock was lost, and returns err.
func (s stopOnLostLock) check(err error) error {
	if err == nil {
		return nil // without a lost to find, which would allocate it
	}
	var lost *state.LockLostError
	if errors.As(err, &lost) {
		s.stop(lost)
	}
	return err
}

func (e *Engine) commitMoves(ctx context.Context, p *Planned) error {
	if len(p.moves) == 0 {
		return nil
	}
	snap, err := e.Store.Load(ctx)
	if err != nil {
		return err
	}
	var ch state.Changes
	for _, m := range p.moves {
		obj, ok := snap.Objects[m.from]
		if !ok {
			continue
		}
		moved := *obj
		moved.Address = m.to
		if m.retype != nil && m.retype.converted != nil {
			moved = *m.retype.converted
		}
		ch.Delete = append(ch.Delete, m.from)
		ch.Put = append(ch.Put, &moved)
	}
	return e.Store.Commit(ctx, ch)
}

// applyGraph orders the apply. Creates and updates follow the
// configuration's dependencies; the deletion of an object nothing claims
// any more waits for everything that depended on it when it was last
// written, so nothing is destroyed while something still uses it.
func (p *Planned) applyGraph() (*graph.Graph, []int, hcl.Diagnostics) {
	g := graph.New(len(p.nodes))
	orphansOf := map[string][]*node{}
	for _, n := range p.nodes {
		if n.orphan != nil {
			s := staticOf(n.addr)
			orphansOf[s] = append(orphansOf[s], n)
		} else if !p.opts.Destroy {
			for _, d := range n.deps {
				g.DependsOn(n.id, d)
			}
		}
	}
	if len(orphansOf) > 0 {
		for _, n := range p.nodes {
			for _, rec := range recordedOf(n) {
				for _, dep := range rec.Dependencies {
					for _, o := range orphansOf[dep] {
						if o != n {
							g.DependsOn(o.id, n.id)
						}
					}
				}
			}
		}
	}
	if !p.opts.Destroy {
		if d := p.orderSameObjects(g); d.HasErrors() {
			return nil, nil, d
		}
	}
	order, cycle := g.Order()
	if cycle != nil {
		return nil, nil, hcl.Diagnostics{cycleDiag(p.nodes, cycle)}
	}
	return g, order, nil
}

func recordedOf(n *node) []*state.Object {
	if n.orphan != nil {
		return []*state.Object{n.orphan.recorded}
	}
	var out []*state.Object
	for _, ni := range n.per {
		for _, in := range ni.insts {
			if in.recorded != nil {
				out = append(out, in.recorded)
			}
		}
	}
	return out
}

// applyNode applies node n. h, when not nil, may take the node's last
// commit (see handover): then the node is done only once that commit is.
func (e *Engine) applyNode(ctx context.Context, p *Planned, n *node, count func(plan.Action), h *handover) hcl.Diagnostics {
	if n.orphan != nil {
		return e.applyInstance(ctx, p, n, nil, n.orphan, count, nil)
	}
	cn := n.cfg
	if p.opts.Destroy && cn.Kind != config.Provider {
		// A destroy evaluates nothing again (see destroy.go).
		return nil
	}
	var diags hcl.Diagnostics
	switch cn.Kind {
	case config.Module:
		return p.refreshEach(n, true)
	case config.Provider:
		if n.configUnknown {
			return attribute(n.addr, cn, e.configure(ctx, p, n))
		}
		return nil
	case config.Variable, config.Local, config.Output, config.Check:
		if n.held {
			return nil
		}
		for _, ni := range n.per {
			if ni.deferred {
				continue
			}
			var d hcl.Diagnostics
			switch cn.Kind {
			case config.Output:
				d = p.planOutput(n, ni)
			case config.Check:
				d = p.check(n, ni, true)
			default:
				ni.value, d = p.evalValue(n, ni.mi)
			}
			diags = append(diags, attribute(n.addr, cn, d)...)
		}
		return diags
	}
	if d := p.refreshEach(n, false); d.HasErrors() {
		return d
	}
	var all []*instance
	var one *instance // the only instance, while there is one: no list to make
	var owner owners
	for _, ni := range n.per {
		if ni.deferred {
			continue
		}
		for _, in := range ni.insts {
			if in.change != nil && !p.applies(n, in) {
				// Planned with its node, but no target needs it: as in
				// Terraform, its change is left out (see instanceNeeds).
				continue
			}
			switch {
			case one == nil && all == nil:
				one = in
			case one != nil:
				all = append(all, one, in)
				one = nil
			default:
				all = append(all, in)
			}
			owner.add(in, ni)
		}
	}
	if one != nil && len(n.deleteFirst) == 0 {
		diags = e.applyOne(ctx, p, n, owner.of(one), one, count, h)
	} else {
		if one != nil {
			all = []*instance{one}
		}
		diags = e.applyBatches(ctx, p, n, all, owner, count)
	}
	for _, ni := range n.per {
		if !ni.deferred {
			ni.value = aggregate(cn, live(ni.insts))
		}
	}
	return diags
}

// applyBatches applies the instances all of node n: those n.deleteFirst
// names first, and the rest only once they succeeded.
func (e *Engine) applyBatches(ctx context.Context, p *Planned, n *node, all []*instance, owner owners, count func(plan.Action)) hcl.Diagnostics {
	batches := [][]*instance{all}
	if len(n.deleteFirst) > 0 {
		// A create here makes an object a delete here removes (see
		// orderSameObjects): those deletes go first, and the rest only
		// once they succeeded.
		var first, rest []*instance
		for _, in := range all {
			if n.deleteFirst[in] {
				first = append(first, in)
			} else {
				rest = append(rest, in)
			}
		}
		batches = [][]*instance{first, rest}
	}
	var diags hcl.Diagnostics
	for _, batch := range batches {
		d := e.applyInstances(ctx, p, n, batch, owner, count)
		diags = append(diags, d...)
		if d.HasErrors() {
			break
		}
	}
	return diags
}

// applyInstances applies instances of node n at once.
func (e *Engine) applyInstances(ctx context.Context, p *Planned, n *node, all []*instance, owner owners, count func(plan.Action)) hcl.Diagnostics {
	if len(all) == 1 {
		// Most nodes (one per resource when wide): no lock to make.
		return e.applyOne(ctx, p, n, owner.of(all[0]), all[0], count, nil)
	}
	var diags hcl.Diagnostics
	var mu sync.Mutex
	p.forEach(len(all), func(i int) {
		if d := e.applyOne(ctx, p, n, owner.of(all[i]), all[i], count, nil); len(d) > 0 {
			mu.Lock()
			diags = append(diags, d...)
			mu.Unlock()
		}
	})
	return diags
}

// applyOne applies one instance of node n, owned by ni.
func (e *Engine) applyOne(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance, count func(plan.Action), h *handover) hcl.Diagnostics {
	if n.cfg.Kind == config.Ephemeral {
		// Its value from the plan was closed with the plan: open it
		// again for what is applied with it.
		return e.openEphemeral(ctx, p, n, ni, in, false)
	}
	walked := in.change != nil && p.targeted(n, in.addr)
	if walked {
		p.checks.restore(n, in.addr, false)
	}
	d := e.applyInstance(ctx, p, n, ni, in, count, h)
	if walked && !d.HasErrors() {
		if h.queued() {
			h.restore = true
		} else {
			p.checks.restore(n, in.addr, true)
		}
	}
	return d
}

// refreshEach evaluates count or for_each again during apply: the keys
// were known at plan, but each.value may hold values known only now.
func (p *Planned) refreshEach(n *node, module bool) hcl.Diagnostics {
	r := n.cfg.Repeat
	if r == nil || !r.ForEach {
		return nil
	}
	for _, ni := range n.per {
		if ni.deferred {
			continue
		}
		keys, _, d := p.repeatKeys(n, ni.mi)
		if d.HasErrors() {
			return d
		}
		each := make(map[string]cty.Value, len(keys))
		for _, k := range keys {
			each[k.key.AsString()] = k.each
		}
		if module {
			for _, mi := range p.mods[n.addr].children[ni.mi] {
				if v, ok := each[mi.key.AsString()]; ok {
					mi.each = v
				}
			}
			continue
		}
		for _, in := range ni.insts {
			if v, ok := each[keyString(in.key())]; ok {
				in.setEach(v)
			}
		}
	}
	return nil
}

func keyString(k cty.Value) string {
	if k == cty.NilVal || k.Type() != cty.String {
		return ""
	}
	return k.AsString()
}

// applyInstance carries out one instance's planned change.
func (e *Engine) applyInstance(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance, count func(plan.Action), h *handover) hcl.Diagnostics {
	if in.change == nil {
		return nil
	}
	cn := n.cfg
	if in.change.Action == plan.Read {
		return e.readDeferred(ctx, p, n, ni, in)
	}
	if in.change.Action == plan.Forget {
		if err := e.Store.Commit(ctx, state.Changes{Delete: []string{in.addr}}); err != nil {
			return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot record state", diagnostic.Failed("recording the object's state", err))}
		}
		return nil
	}
	// Made once for every provider call of the instance (plan, apply).
	ctx = h.withObject(ctx, in.addr)
	inst := config.Instance{Key: in.key(), Each: in.each()}
	if in.change.Action != plan.Delete && cn != nil && !p.opts.RefreshOnly {
		// As in Terraform, the preconditions are evaluated again with
		// the values known now: one not known at plan is decided here,
		// and a failure stops the change before the provider is asked.
		if d := p.conditions(n, ni.mi, inst, cn.Preconditions, cty.NilVal, "Resource precondition failed"); d.HasErrors() {
			return attribute(in.addr, cn, d)
		}
	}
	if in.change.Action == plan.NoOp {
		d := e.keep(ctx, n, in)
		if !d.HasErrors() && in.importID != "" {
			p.imported.Add(1)
		}
		return d
	}
	change := in.change
	planned, priv := in.planned, in.plannedPriv
	if change.Action != plan.Delete {
		cfgVal := cty.NilVal
		literal := false
		if v := in.validated; cn.Constant && v != nil && v.from != cty.NilVal {
			// The value evaluated at plan, which a body of literals
			// gives again (its warnings were shown at plan).
			cfgVal, literal = v.from, true
		} else {
			var diags hcl.Diagnostics
			if cfgVal, diags = cn.Eval.Evaluate(p.scopeAt(ni.mi), inst); diags.HasErrors() {
				return attribute(in.addr, cn, diags)
			}
		}
		// A body of literals holds nothing unknown: not walked again.
		if !literal && !whollyKnown(cfgVal) { // marks and all: no unmarked copy
			return hcl.Diagnostics{errorDiag(in.addr, cn, "Configuration not known at apply",
				"Some values in this resource's configuration are still unknown after all its dependencies were applied. This is a bug in Tether; please report it.")}
		}
		var d hcl.Diagnostics
		// Resolved again: the values must be current when the provider
		// acts on them, and a failure leaves this object as it was.
		if in.res, d = e.resolveRefs(ctx, in.addr, cn, cfgVal); d.HasErrors() {
			e.failed(in.addr, change.Action, time.Now(), d)
			return d
		}
		// The approved action stands: a replacement the plan showed is
		// carried out even if the final values no longer need it, as in
		// Terraform; one it did not show is not.
		approved := in.change.Action
		if approved.IsReplace() {
			in.forceReplace = true
		}
		if !samePlan(n, in, approved, cfgVal) {
			change, planned, priv, d = e.planChange(ctx, n, in, in.take(n, cfgVal))
			if d.HasErrors() {
				return d
			}
		}
		if in.deferredBy != "" {
			d := hcl.Diagnostics{errorDiag(in.addr, cn, "Provider deferred an approved change",
				fmt.Sprintf("The provider deferred %s while applying (%s), though it planned it. Nothing was changed; run up again.", in.addr, in.deferredBy))}
			e.failed(in.addr, approved, time.Now(), d)
			return d
		}
		if in.recorded != nil && in.recorded.Status == state.Tainted && change.Action != plan.Create {
			change.Action = replaceAction(n)
		}
		if change.Action.IsReplace() && !approved.IsReplace() {
			d := hcl.Diagnostics{errorDiag(in.addr, cn, "Provider produced inconsistent final plan",
				fmt.Sprintf("When planning %s again with the values known at apply, the provider asked to replace it, which the approved plan did not show (it showed %s). Nothing was changed; run up again to see and approve the replacement.", in.addr, approved))}
			e.failed(in.addr, approved, time.Now(), d)
			return d
		}
		if change.Action == plan.NoOp {
			in.value = change.After
			// An approved update that the final values make a no-op is
			// not counted, as in Terraform (its unknowns came out as they
			// were); one of state alone (a value that became sensitive is
			// sealed) is, as the plan said.
			_, sens := marks.Unmark(in.value)
			stateOnly := approved == plan.Update && in.recorded != nil && !in.prior.IsNull() && !coveredPaths(sens, in.meta.Sensitive)
			d := e.keep(ctx, n, in)
			if !d.HasErrors() && in.importID != "" {
				p.imported.Add(1)
			}
			if !d.HasErrors() && stateOnly {
				count(plan.Update)
			}
			return d
		}
	}
	diags := e.execute(ctx, p, n, in, change, planned, priv, h)
	if diags.HasErrors() {
		return diags
	}
	if h.queued() {
		h.count, h.counted, h.imported = count, change.Action, in.importID != ""
	} else {
		count(change.Action)
		if in.importID != "" {
			p.imported.Add(1)
		}
	}
	if in.checkAfterApply && cn != nil {
		diags = append(diags, attribute(in.addr, cn, p.conditions(n, ni.mi, inst, cn.Postconditions, in.value, "Resource postcondition failed"))...)
	}
	return diags
}

// samePlan reports whether planning an instance again during apply
// would repeat the plan's request exactly, to a provider that answers the
// same request the same way (provider.PurePlanner: the built-in provider,
// in process, for the types it names): then the plan's answer stands and
// the provider is not asked twice. Terraform plans every instance again
// during apply, and any other provider still is.
//
// Only a create qualifies: its prior object is null at plan and at apply,
// and no step between them changes its action. The request is the same
// when the configuration evaluates to the same value with the same marks,
// no reference had to be resolved in it, (so the value is the one validated
// and planned), and the provider instance that planned it is the one that
// serves it now, not configured since, and found the configuration valid
// without a word (otherwise validation, a part of planning, would be
// asked for again).
func samePlan(n *node, in *instance, approved plan.Action, cfgVal cty.Value) bool {
	if approved != plan.Create || in.change == nil || in.change.Action != plan.Create || in.planned == cty.NilVal ||
		in.importID != "" || in.deferredBy != "" || !in.res.empty() {
		return false
	}
	rp, ok := in.provider(n).(*redacting)
	if !ok {
		return false
	}
	pure, ok := rp.Provider.(provider.PurePlanner)
	if !ok || !pure.PurePlan(n.cfg.Type) {
		return false
	}
	v := in.validated
	return v != nil && v.prov == rp && v.configured == rp.configured.Load() && v.from != cty.NilVal && ctysame.RawEquals(cfgVal, v.from)
}

// keep records a refreshed object that needs no change, when refresh or a
// new dependency list changed what is stored.
func (e *Engine) keep(ctx context.Context, n *node, in *instance) hcl.Diagnostics {
	if in.recorded == nil {
		if in.importID != "" {
			// An imported object that needs no change: recording it is
			// the import.
			_, sens := marks.Unmark(in.value)
			return e.put(ctx, n, in, in.prior, in.priorPrivate, sens, nil, state.Ready)
		}
		return nil
	}
	if in.prior.IsNull() {
		// Refresh found it gone, and nothing will create it again: state
		// forgets it.
		if err := e.Store.Commit(ctx, state.Changes{Delete: []string{in.addr}}); err != nil {
			return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot record state", diagnostic.Failed("recording the object's state", err))}
		}
		return nil
	}
	_, sens := marks.Unmark(in.value)
	if ctysame.RawEquals(in.prior, in.recordedVal) && sameStrings(in.recorded.Dependencies, in.resourceDeps) && in.recorded.SchemaVersion == n.schema.Version &&
		coveredPaths(sens, in.meta.Sensitive) {
		return nil
	}
	return e.put(ctx, n, in, in.prior, in.priorPrivate, sens, in.meta.Refs, state.Ready)
}

// coveredPaths reports whether every path of sens is among recorded: if
// not, something became sensitive (a variable marked sensitive, what the
// rule for derived values finds) that state recorded in clear, and the
// object is recorded again, sealed.
func coveredPaths(sens, recorded []cty.Path) bool {
	for _, p := range sens {
		if !slices.ContainsFunc(recorded, p.Equals) {
			return false
		}
	}
	return true
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

func (e *Engine) readDeferred(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	diags := e.readNow(ctx, p, n, ni, in)
	if n.cfg.Check != "" {
		p.checks.reportRead(p.nodes[p.byAddr[n.cfg.Check]], ni.mi, diags)
	}
	if n.cfg.Check != "" && diags.HasErrors() {
		// A check block's data source fails with a warning; its
		// assertions are then not known.
		in.value = cty.UnknownVal(n.schema.Block.ImpliedType())
		in.result = withoutUnknowns(p.configuredData(n, ni, in))
		return asWarnings(diags)
	}
	return diags
}

// readNow reads a data source during apply.
func (e *Engine) readNow(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	inst := config.Instance{Key: in.key(), Each: in.each()}
	// Its preconditions are decided before it is read, as in Terraform.
	if d := p.conditions(n, ni.mi, inst, n.cfg.Preconditions, cty.NilVal, "Resource precondition failed"); d.HasErrors() {
		return attribute(in.addr, n.cfg, d)
	}
	start := time.Now()
	e.event(plan.Event{Addr: in.addr, Action: plan.Read, Phase: plan.Started})
	cfgVal, diags := n.cfg.Eval.Evaluate(p.scopeAt(ni.mi), inst)
	if diags.HasErrors() {
		e.failed(in.addr, plan.Read, start, diags)
		return attribute(in.addr, n.cfg, diags)
	}
	if d := ephemeralArguments(in.addr, n.cfg, n.schema.Block, cfgVal); d.HasErrors() {
		e.failed(in.addr, plan.Read, start, d)
		return d
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	in.judgeBy(n, uv, cfgMarks)
	diags = append(diags, validateData(n, in, uv)...)
	if diags.HasErrors() {
		e.failed(in.addr, plan.Read, start, diags)
		return diags
	}
	resp, d := e.readData(ctx, in.provider(n), in.addr, n.cfg, cfgVal)
	diags = append(diags, attribute(in.addr, n.cfg, d)...)
	if d.HasErrors() {
		e.failed(in.addr, plan.Read, start, diags)
		return diags
	}
	in.value = in.returned(n, resp.State, cfgMarks)
	in.result = in.value
	e.event(plan.Event{Addr: in.addr, Action: plan.Read, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: idOf(in.value)})
	return append(diags, attribute(in.addr, n.cfg, p.conditions(n, ni.mi, inst, n.cfg.Postconditions, in.value, "Resource postcondition failed"))...)
}

// execute performs one planned change through the provider and records the
// outcome.
//
// h, when not nil, takes the object's commit of a create or update (see
// handover).
func (e *Engine) execute(ctx context.Context, p *Planned, n *node, in *instance, change *plan.ResourceChange, planned cty.Value, priv []byte, h *handover) hcl.Diagnostics {
	action := change.Action
	if action != plan.Create && action != plan.Update {
		// A replacement's other half, or a deletion, follows its commit.
		h = nil
	}
	start := time.Now()
	started := false
	// apply holds a parallelism slot for the provider call alone: the
	// commit that follows is the engine's work, not the provider's.
	apply := func(req provider.ApplyRequest) (provider.ApplyResponse, bool) {
		if err := p.slots.acquire(ctx, n.depth); err != nil {
			return provider.ApplyResponse{}, false
		}
		defer p.slots.release()
		if !started {
			started = true
			start = time.Now()
			ev := plan.Event{Addr: in.addr, Action: action, Phase: plan.Started}
			if action != plan.Create {
				ev.ID = in.shownID(n, in.prior)
			}
			e.event(ev)
		}
		return in.provider(n).ApplyResourceChange(provider.WithObject(ctx, in.addr), req), true
	}
	// Made only when needed: nearly every apply starts.
	interrupted := func() *hcl.Diagnostic {
		return errorDiag(in.addr, n.cfg, "Not started", "The apply was interrupted before this operation could start.")
	}
	_, sens := marks.Unmark(change.After)
	ty := n.schema.Block.ImpliedType()
	var diags hcl.Diagnostics
	typ := typeOf(n, in)

	records := in.res.records()
	destroy := func(prior cty.Value, priorPriv []byte) bool {
		resp, ok := apply(provider.ApplyRequest{
			TypeName: typ, PriorState: prior, PlannedState: cty.NullVal(ty), Config: cty.NullVal(ty), PlannedPrivate: priorPriv,
		})
		if !ok {
			diags = append(diags, interrupted())
			return false
		}
		diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(resp.Diagnostics))...)
		return !resp.Diagnostics.HasErrors()
	}
	create := func(prior cty.Value) bool {
		resp, ok := apply(provider.ApplyRequest{
			TypeName: typ, PriorState: prior, PlannedState: planned, Config: in.configVal, PlannedPrivate: priv,
		})
		if !ok {
			diags = append(diags, interrupted())
			return false
		}
		diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(resp.Diagnostics))...)
		// Nothing the provider returned is kept with a referenced value
		// in it.
		newState, sens := resp.NewState, sens
		if newState != cty.NilVal {
			newState = e.scrub(newState, in.res, nil)
			_, sens = marks.Unmark(in.returned(n, newState, sens))
		}
		if resp.Diagnostics.HasErrors() {
			if newState != cty.NilVal && !newState.IsNull() {
				status := state.Ready
				if prior.IsNull() {
					status = state.Tainted
				}
				diags = append(diags, e.put(ctx, n, in, newState, resp.Private, sens, records, status)...)
			}
			return false
		}
		if d := e.record(ctx, h, n, in, newState, resp.Private, sens, records, state.Ready); d.HasErrors() {
			diags = append(diags, d...)
			return false
		}
		switch problems := provider.ResultProblems(n.schema.Block, planned, resp.NewState); {
		case len(problems) == 0:
		case resp.LegacyTypeSystem:
			// Let off as Terraform lets it off, with a warning in the log.
			logging.Core().Warn("tolerating an inconsistent result from a provider on the legacy plugin SDK; these problems may explain confusing errors later",
				"provider", displayProvider(n, in), "address", in.addr, "problems", strings.Join(problems, "; "))
		default:
			// Recorded as the provider returned it, but nothing that
			// depends on it goes on from a result the plan did not promise.
			diags = append(diags, errorDiag(in.addr, n.cfg, "Provider produced inconsistent result after apply",
				fmt.Sprintf("When applying changes to %s, provider %s produced an unexpected new value:\n  %s\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
					in.addr, displayProvider(n, in), strings.Join(problems, "\n  "))))
			return false
		}
		// Held for the rest of the run: one type map for all.
		newState = n.schema.Block.SharedType(newState)
		in.value = in.res.remark(withMarks(n.schema.Block, newState, sens))
		in.prior = newState
		if !in.res.empty() {
			in.providerPrior = resp.NewState
		}
		return true
	}
	forget := func() bool {
		if err := e.Store.Commit(ctx, state.Changes{Delete: []string{in.addr}}); err != nil {
			diags = append(diags, errorDiag(in.addr, n.cfg, "Cannot record deletion", diagnostic.Failed("recording that the object was deleted", err)))
			return false
		}
		in.prior = cty.NullVal(ty)
		return true
	}

	ok := false
	switch action {
	case plan.Create:
		ok = create(cty.NullVal(ty))
	case plan.Update:
		ok = create(in.providerPriorOr())
	case plan.Delete:
		ok = destroy(in.providerPriorOr(), in.priorPrivate) && forget()
	case plan.DeleteThenCreate:
		// The deletion is applied with the replacement's planned private
		// data, as Terraform applies it (its destroy node reads the
		// replace change, whose Private that is).
		ok = e.step(n, in, action, plan.Delete, func() bool { return destroy(in.providerPriorOr(), priv) && forget() }) &&
			e.step(n, in, action, plan.Create, func() bool { return create(cty.NullVal(ty)) })
	case plan.CreateThenDelete:
		old, oldPriv, oldID := in.providerPriorOr(), in.priorPrivate, in.shownID(n, in.prior)
		ok = e.step(n, in, action, plan.Create, func() bool { return create(cty.NullVal(ty)) }) &&
			e.stepWithID(n, in, action, plan.Delete, oldID, func() bool { return destroy(old, oldPriv) })
	}
	if !ok {
		e.failed(in.addr, action, start, diags)
		return diags
	}
	// Done with what planning needed; at 100,000 instances these copies
	// are most of the memory an apply holds. (The validated
	// configuration is the same value as configVal: kept, it kept that.)
	in.planned, in.configVal, in.validated = cty.NilVal, cty.NilVal, nil
	if h.queued() {
		h.action, h.start, h.shownID, h.succeeded = action, start, in.shownID(n, in.prior), true
		return diags
	}
	e.event(plan.Event{Addr: in.addr, Action: action, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: in.shownID(n, in.prior)})
	return diags
}

// step runs one part of a replacement, reporting it as such.
func (e *Engine) step(n *node, in *instance, action, step plan.Action, do func() bool) bool {
	id := ""
	if step == plan.Delete {
		id = in.shownID(n, in.prior)
	}
	return e.stepWithID(n, in, action, step, id, do)
}

func (e *Engine) stepWithID(n *node, in *instance, action, step plan.Action, id string, do func() bool) bool {
	start := time.Now()
	e.event(plan.Event{Addr: in.addr, Action: action, Step: step, Phase: plan.Started, ID: id})
	if !do() {
		e.event(plan.Event{Addr: in.addr, Action: action, Step: step, Phase: plan.Failed, Elapsed: time.Since(start)})
		return false
	}
	if step == plan.Create {
		id = in.shownID(n, in.prior)
	}
	e.event(plan.Event{Addr: in.addr, Action: action, Step: step, Phase: plan.Succeeded, Elapsed: time.Since(start), ID: id})
	return true
}

func (e *Engine) put(ctx context.Context, n *node, in *instance, v cty.Value, priv []byte, sens []cty.Path, records []refRecord, status state.Status) hcl.Diagnostics {
	return e.record(ctx, nil, n, in, v, priv, sens, records, status)
}

// record is put, handing the commit over to h when h is not nil.
func (e *Engine) record(ctx context.Context, h *handover, n *node, in *instance, v cty.Value, priv []byte, sens []cty.Path, records []refRecord, status state.Status) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	raw, err := statejson.Marshal(withoutWriteOnly(n.schema.Block, v), ty)
	if err != nil {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot record object", fmt.Sprintf("The provider returned an object that cannot be stored: %s.", err))}
	}
	// An object with anything sensitive in it is sealed as a whole, so
	// the state file holds no secret in clear text.
	sensitive := len(sens) > 0 || len(n.schema.Block.SensitivePaths(v, nil)) > 0
	priv, privRefs := e.sealPrivate(in, in.provider(n), priv, sensitive)
	meta := objectMeta{Sensitive: sens, Refs: records, PrivateRefs: privRefs}
	metaJSON, err := encodeMeta(meta)
	if err != nil {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot record object", diagnostic.Failed("recording the object", err))}
	}
	// The object and the list of one that holds it, made together, in
	// the handover when there is one: it is made for the visit anyway.
	var one *oneObject
	if h != nil {
		one = &h.one
	} else {
		one = new(oneObject)
	}
	one.obj = state.Object{
		Address: in.addr, Mode: state.Managed, Type: typeOf(n, in), Provider: providerOf(n, in),
		SchemaVersion: n.schema.Version, Value: seal(e.Keys, raw, sensitive), Private: priv, Sensitive: metaJSON,
		Dependencies: in.resourceDeps, Status: status, CreateBeforeDestroy: n.cbd,
	}
	obj := &one.obj
	one.puts[0] = obj
	changes := state.Changes{Put: one.puts[:], Erase: resealed(in.recorded, obj)}
	if h != nil {
		h.changes, h.meta, h.in, h.n = changes, meta, in, n
		return nil
	}
	if err := e.Store.Commit(ctx, changes); err != nil {
		return hcl.Diagnostics{errorDiag(in.addr, n.cfg, "Cannot record object", diagnostic.Failed("recording the object", err))}
	}
	in.meta = meta
	return nil
}

// resealed reports whether obj seals what recorded, the object it
// replaces in state, held in clear: then the store must leave no copy of
// the old bytes (state.Changes.Erase).
func resealed(recorded, obj *state.Object) bool {
	if recorded == nil {
		return false
	}
	newly := func(was, now []byte) bool { return len(was) > 0 && !secrets.IsSealed(was) && secrets.IsSealed(now) }
	return newly(recorded.Value, obj.Value) || newly(recorded.Private, obj.Private)
}

// providerPriorOr is the prior object as the provider last saw it:
// referenced values resolved where they are unchanged.
func (in *instance) providerPriorOr() cty.Value {
	if in.providerPrior != cty.NilVal {
		return in.providerPrior
	}
	return in.prior
}

func (e *Engine) event(ev plan.Event) {
	if e.Events != nil {
		e.Events(ev)
	}
}

func (e *Engine) failed(address string, action plan.Action, start time.Time, diags hcl.Diagnostics) {
	e.event(plan.Event{Addr: address, Action: action, Phase: plan.Failed, Elapsed: time.Since(start), Err: diags.Errs()[0]})
}

// commitOutputs records the root outputs whose values are known after the
// apply, and forgets those no longer declared.
func (e *Engine) commitOutputs(ctx context.Context, p *Planned, res *Result) hcl.Diagnostics {
	var ch state.Changes
	declared := map[string]bool{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Output || n.cfg.Module != "" {
			continue
		}
		declared[n.cfg.Name] = true
		if n.held {
			// It keeps what state records, which the run's result lists
			// too, as Terraform prints every output after an apply.
			if o, ok := p.outputs[n.cfg.Name]; ok && !p.opts.Destroy {
				if v, err := decodeOutput(e.Keys, o.Value); err == nil {
					if o.Sensitive {
						v = v.Mark(marks.Sensitive)
					}
					res.Outputs[n.cfg.Name] = v
				}
			}
			continue
		}
		if p.opts.Destroy {
			ch.DeleteOutputs = append(ch.DeleteOutputs, n.cfg.Name)
			continue
		}
		ni := n.per[0]
		if ni.deferred || ni.value == cty.NilVal || !unmarked(ni.value).IsWhollyKnown() {
			continue
		}
		if unmarked(ni.value).IsNull() {
			// As in Terraform, a null output is not recorded: `output`
			// lists it nowhere, and an earlier value is dropped.
			if _, ok := p.outputs[n.cfg.Name]; ok {
				ch.DeleteOutputs = append(ch.DeleteOutputs, n.cfg.Name)
			}
			continue
		}
		raw, err := encodeOutput(unmarked(ni.value))
		if err != nil {
			continue
		}
		res.Outputs[n.cfg.Name] = ni.value
		ch.PutOutputs = append(ch.PutOutputs, &state.Output{Name: n.cfg.Name, Value: seal(e.Keys, raw, n.cfg.Sensitive), Sensitive: n.cfg.Sensitive})
	}
	for name := range p.outputs {
		if !declared[name] {
			ch.DeleteOutputs = append(ch.DeleteOutputs, name)
		}
	}
	// The check results of the apply replace those recorded, when they
	// differ: a run that changes nothing writes nothing.
	results, err := checks.Encode(p.checks.results())
	if err != nil {
		return hcl.Diagnostics{diagnostic.Wrap("Cannot record check results", "encoding the check results", err)}
	}
	if !bytes.Equal(results, p.recordedChecks) {
		ch.Checks = results
		if ch.Checks == nil {
			ch.Checks = []byte{}
		}
	}
	if ch.Empty() {
		return nil
	}
	if err := e.Store.Commit(ctx, ch); err != nil {
		return hcl.Diagnostics{diagnostic.Wrap("Cannot record outputs", "recording the outputs", err)}
	}
	return nil
}

func typeOf(n *node, in *instance) string {
	if n.cfg != nil {
		return n.cfg.Type
	}
	return in.recorded.Type
}

func providerOf(n *node, in *instance) string {
	if n.cfg != nil {
		return n.cfg.Provider + in.provKey
	}
	return in.recorded.Provider
}

// staticOf is the declaration address of an instance address.
func staticOf(a string) string {
	ia, err := addr.ParseInstance(a)
	if err != nil {
		return a
	}
	return ia.Static()
}

// RecordImports records the objects a plan imports, and nothing else of
// it: what `tether import` does. It returns how many it recorded.
func (e *Engine) RecordImports(ctx context.Context, p *Planned) (int, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	n := 0
	for _, nd := range p.nodes {
		for _, ni := range nd.per {
			for _, in := range ni.insts {
				if in.importID == "" {
					continue
				}
				_, sens := marks.Unmark(in.value)
				d := e.put(ctx, nd, in, in.prior, in.priorPrivate, sens, nil, state.Ready)
				diags = append(diags, d...)
				if !d.HasErrors() {
					n++
				}
			}
		}
	}
	return n, diags
}
