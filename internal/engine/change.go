package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// planInstance plans one managed resource instance: its configuration
// evaluated (preconditions first), its recorded object refreshed, an
// import read, and the change the provider plans from them (planChange),
// checked against what the configuration allows.
func (e *Engine) planInstance(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance) hcl.Diagnostics {
	// Made once for every provider call of the instance (refresh, plan).
	ctx = provider.WithObject(ctx, in.addr)
	var diags hcl.Diagnostics
	block := n.schema.Block
	ty := block.ImpliedType()
	in.prior = cty.NullVal(ty)
	in.recordedVal = cty.NullVal(ty)
	inst := config.Instance{Key: in.key(), Each: in.each()}
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
		in.setInputs(append(p.sensitiveInputs(n, ni.mi), providerSecrets(in.provider(n))...))
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
// returns are judged by (see judgeBy). Its inputs must be set.
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
	in.setSecrets(append(sensitiveStrings(uv, m), in.inputs()...))
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
