package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/refs"
	"github.com/tetherhq/tether/internal/state"
)

// Data source results in state.
//
// As in Terraform, state keeps the last result of every data source
// instance (mode "data"). Every apply records the results read during its
// plan and those read during the apply itself; a data source that left the
// configuration loses its result, and a destroy forgets them all. None of
// this is a change: a plan whose only news is a new result has no
// changes, and `up` records it all the same.
//
// Nothing is planned from a recorded result: every plan reads its data
// sources again. A recorded result only stands in for a data source that
// -target leaves out, which is not read.

// untargetedData is the value of a data source instance -target leaves
// out: its recorded result, or an unknown one when state has none.
func (p *Planned) untargetedData(n *node, in *instance) cty.Value {
	if rec := p.recordedData[in.addr]; rec != nil {
		if v, err := RecordedValue(p.keys, rec, n.schema); err == nil {
			return v
		}
	}
	return cty.UnknownVal(n.schema.Block.ImpliedType())
}

// dataRecords lists what applying the plan does to the data source
// results state records (see plan.Plan.Data).
func (p *Planned) dataRecords() []*plan.ResourceChange {
	var out []*plan.ResourceChange
	live := map[string]bool{}
	for _, n := range p.nodes {
		if !isDataNode(n) {
			continue
		}
		ty := n.schema.Block.ImpliedType()
		for _, ni := range n.per {
			for _, in := range ni.insts {
				live[in.addr] = true
				if in.result == cty.NilVal || p.opts.Destroy {
					continue
				}
				c := &plan.ResourceChange{
					Addr: in.addr, Mode: plan.Data, Type: n.cfg.Type, Provider: providerOf(n, in),
					Action: plan.Create, Before: cty.NullVal(ty), After: in.result,
				}
				if rec := p.recordedData[in.addr]; rec != nil {
					c.Action = plan.Update
					if v, err := RecordedValue(p.keys, rec, n.schema); err == nil {
						c.Before = v
						if v.RawEquals(in.result) && rec.SchemaVersion == n.schema.Version {
							c.Action = plan.NoOp
						}
					}
				}
				out = append(out, c)
			}
		}
	}
	gone := make([]string, 0, len(p.recordedData))
	for a := range p.recordedData {
		if (!live[a] || p.opts.Destroy) && p.forgetsData(a) {
			gone = append(gone, a)
		}
	}
	sort.Strings(gone)
	for _, a := range gone {
		rec := p.recordedData[a]
		out = append(out, &plan.ResourceChange{
			Addr: a, Mode: plan.Data, Type: rec.Type, Provider: rec.Provider,
			Action: plan.Delete, Before: cty.NullVal(cty.DynamicPseudoType), After: cty.NullVal(cty.DynamicPseudoType),
		})
	}
	addr.Sort(out, func(c *plan.ResourceChange) string { return c.Addr })
	return out
}

// forgetsData reports whether applying the plan forgets the recorded
// result at a, which no instance of the configuration claims (or which a
// destroy removes): not when -target or -exclude leaves it out, nor when its data
// source's instances are not known in this round.
func (p *Planned) forgetsData(a string) bool {
	if len(p.opts.Targets) > 0 && !coveredBy(p.opts.Targets, a) {
		return false
	}
	if coveredBy(p.opts.Excludes, a) {
		return false
	}
	if p.opts.Destroy {
		return true
	}
	if id, ok := p.byAddr[staticOf(a)]; ok && p.nodes[id].deferredAny {
		return false
	}
	return true
}

// configuredData is what a data source instance's configuration sets,
// with everything else unknown: what a check block's data source whose
// read failed stands for. It is wholly unknown when the configuration
// cannot be evaluated or holds references, whose values are resolved for
// provider calls alone.
func (p *Planned) configuredData(n *node, ni *nodeInst, in *instance) cty.Value {
	ty := n.schema.Block.ImpliedType()
	_, cfgVal, d := p.readConfig(n, ni, in)
	if d.HasErrors() {
		return cty.UnknownVal(ty)
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	if len(refs.Find(uv)) > 0 {
		return cty.UnknownVal(ty)
	}
	return withMarks(n.schema.Block, provider.PlannedDataObject(n.schema.Block, uv), cfgMarks)
}

// withoutUnknowns replaces what is unknown in v with null, as Terraform
// records a planned object it could not read; NilVal when v as a whole is
// unknown, which records nothing.
func withoutUnknowns(v cty.Value) cty.Value {
	if !v.IsKnown() {
		return cty.NilVal
	}
	uv, pvm := v.UnmarkDeepWithPaths()
	out, _ := cty.Transform(uv, func(_ cty.Path, v cty.Value) (cty.Value, error) {
		if !v.IsKnown() {
			return cty.NullVal(v.Type()), nil
		}
		return v, nil
	})
	return out.MarkWithPaths(pvm)
}

func isDataNode(n *node) bool {
	return n.orphan == nil && n.cfg != nil && n.cfg.Kind == config.DataSource && n.schema != nil
}

// commitData records the data source results of an applied plan, and
// forgets those the plan forgets, in one commit.
func (e *Engine) commitData(ctx context.Context, p *Planned) hcl.Diagnostics {
	if p.Plan == nil {
		return nil
	}
	var ch state.Changes
	unchanged := map[string]bool{}
	for _, d := range p.Plan.Data {
		switch d.Action {
		case plan.Delete:
			ch.Delete = append(ch.Delete, d.Addr)
		case plan.NoOp:
			unchanged[d.Addr] = true
		}
	}
	var diags hcl.Diagnostics
	for _, n := range p.nodes {
		if !isDataNode(n) || p.opts.Destroy {
			continue
		}
		for _, ni := range n.per {
			if ni.deferred {
				continue
			}
			for _, in := range ni.insts {
				if in.result == cty.NilVal || unchanged[in.addr] {
					continue
				}
				obj, err := e.dataObject(n, in)
				if err != nil {
					diags = append(diags, errorDiag(in.addr, n.cfg, "Cannot record data source result", diagnostic.Failed("recording the data source's result", err)))
					continue
				}
				ch.Put = append(ch.Put, obj)
			}
		}
	}
	if ch.Empty() {
		return diags
	}
	if err := e.Store.Commit(ctx, ch); err != nil {
		diags = append(diags, diagnostic.Wrap("Cannot record data source results", "recording the data source results", err))
	}
	return diags
}

// dataObject is the state record of a data source instance's result:
// sealed whole when anything in it is sensitive, as a managed object is,
// and with no dependencies, as Terraform records none for data sources.
func (e *Engine) dataObject(n *node, in *instance) (*state.Object, error) {
	v, sens := marks.Unmark(in.result)
	raw, err := ctyjson.Marshal(v, n.schema.Block.ImpliedType())
	if err != nil {
		return nil, fmt.Errorf("the result cannot be stored: %w", err)
	}
	meta, err := encodeMeta(objectMeta{Sensitive: sens})
	if err != nil {
		return nil, err
	}
	sensitive := len(sens) > 0 || len(n.schema.Block.SensitivePaths(v, nil)) > 0
	return &state.Object{
		Address: in.addr, Mode: state.Data, Type: n.cfg.Type, Provider: providerOf(n, in),
		SchemaVersion: n.schema.Version, Value: seal(e.Keys, raw, sensitive), Sensitive: meta,
		Status: state.Ready,
	}, nil
}
