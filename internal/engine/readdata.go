package engine

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

// planData plans data source instance in: read now when its
// configuration is known (planDataRead), at apply otherwise. Left out by
// -target, it keeps its recorded result; a check block's data source
// turns its errors into warnings and is read again at apply.
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
	in.setSecrets(append(sensitiveStrings(uv, cfgMarks), providerSecrets(in.provider(n))...))
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
