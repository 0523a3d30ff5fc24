package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

// An ephemeral resource is opened each time a command walks the
// configuration (once while planning, again while applying), because its
// value is never kept from one to the other: that is what makes it safe
// for a short-lived credential. Everything opened during a walk is closed
// when the walk ends, whatever happened in it.

// opened is one ephemeral resource instance the provider opened, until
// it is closed.
type opened struct {
	addr     string
	typeName string
	prov     provider.Provider

	mu      sync.Mutex
	private []byte
	// stop ends the renewal loop; done is closed when it has ended.
	stop chan struct{}
	done chan struct{}
}

// ephemerals are the instances opened during one walk.
type ephemerals struct {
	mu   sync.Mutex
	list []*opened
}

// openEphemeral opens one instance of an ephemeral resource and makes its
// result the instance's value, marked ephemeral so that evaluation can
// tell where it flows. A configuration not wholly known leaves the value
// unknown: the provider is not asked until it is.
func (e *Engine) openEphemeral(ctx context.Context, p *Planned, n *node, ni *nodeInst, in *instance, validate bool) hcl.Diagnostics {
	ty := n.schema.Block.ImpliedType()
	inst, cfgVal, diags := p.readConfig(n, ni, in)
	if diags.HasErrors() {
		return diags
	}
	uv, cfgMarks := marks.Unmark(cfgVal)
	in.setSecrets(append(sensitiveStrings(uv, cfgMarks), providerSecrets(in.provider(n))...))
	in.judgeBy(n, uv, cfgMarks)
	if validate {
		diags = append(diags, attribute(in.addr, n.cfg, in.scrubDiags(in.provider(n).ValidateEphemeralConfig(n.cfg.Type, uv)))...)
		if diags.HasErrors() {
			return diags
		}
	}
	if !uv.IsWhollyKnown() {
		in.value = cty.UnknownVal(ty).Mark(marks.Ephemeral)
		return diags
	}
	start := time.Now()
	e.event(plan.Event{Addr: in.addr, Action: plan.Open, Phase: plan.Started})
	resp := in.provider(n).OpenEphemeral(ctx, provider.OpenEphemeralRequest{TypeName: n.cfg.Type, Config: uv})
	// What the provider says may quote the result's sensitive values as
	// well as the configuration's.
	var result cty.Value
	if resp.Result != cty.NilVal {
		result = in.returned(n, resp.Result, cfgMarks)
		u, paths := marks.Unmark(result)
		in.setSecrets(append(in.secrets(), sensitiveStrings(u, paths)...))
	}
	d := attribute(in.addr, n.cfg, in.scrubDiags(resp.Diagnostics))
	diags = append(diags, d...)
	if resp.Diagnostics.HasErrors() {
		e.failed(in.addr, plan.Open, start, d)
		return diags
	}
	if resp.Deferred != "" {
		in.deferredBy = resp.Deferred
		in.value = cty.UnknownVal(ty).Mark(marks.Ephemeral)
		return diags
	}
	p.ephemerals.add(e, &opened{addr: in.addr, typeName: n.cfg.Type, prov: in.provider(n), private: resp.Private}, resp.RenewAt)
	e.event(plan.Event{Addr: in.addr, Action: plan.Open, Phase: plan.Succeeded, Elapsed: time.Since(start)})
	in.value = result.Mark(marks.Ephemeral)
	return append(diags, attribute(in.addr, n.cfg, in.scrubDiags(p.conditions(n, ni.mi, inst, n.cfg.Postconditions, in.value, "Resource postcondition failed")))...)
}

// add records an opened instance and, when the provider asked for it,
// renews it until it is closed.
func (es *ephemerals) add(e *Engine, o *opened, renewAt time.Time) {
	o.stop, o.done = make(chan struct{}), make(chan struct{})
	es.mu.Lock()
	es.list = append(es.list, o)
	es.mu.Unlock()
	if renewAt.IsZero() {
		close(o.done)
		return
	}
	go e.renew(o, renewAt)
}

// renew calls the provider whenever it asked to be called, until the
// instance is closed. A failed renewal is not retried: the object may
// have lapsed, and the call that uses it will say so.
func (e *Engine) renew(o *opened, at time.Time) {
	defer close(o.done)
	for {
		t := time.NewTimer(time.Until(at))
		select {
		case <-o.stop:
			t.Stop()
			return
		case <-t.C:
		}
		o.mu.Lock()
		priv := o.private
		o.mu.Unlock()
		resp := o.prov.RenewEphemeral(context.Background(), provider.RenewEphemeralRequest{TypeName: o.typeName, Private: priv})
		if resp.Diagnostics.HasErrors() || resp.RenewAt.IsZero() {
			return
		}
		o.mu.Lock()
		o.private = resp.Private
		o.mu.Unlock()
		at = resp.RenewAt
	}
}

// closeAll closes every instance opened during the walk, the last opened
// first (one may have been opened with the value of another), and forgets
// them. It runs on every way out of a walk; ctx may already be cancelled,
// so closing does not depend on it.
func (e *Engine) closeAll(es *ephemerals) hcl.Diagnostics {
	es.mu.Lock()
	list := es.list
	es.list = nil
	es.mu.Unlock()
	var diags hcl.Diagnostics
	for i := len(list) - 1; i >= 0; i-- {
		o := list[i]
		close(o.stop)
		<-o.done
		start := time.Now()
		e.event(plan.Event{Addr: o.addr, Action: plan.Close, Phase: plan.Started})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		d := o.prov.CloseEphemeral(ctx, provider.CloseEphemeralRequest{TypeName: o.typeName, Private: o.private})
		cancel()
		d = attribute(o.addr, nil, d)
		if d.HasErrors() {
			e.failed(o.addr, plan.Close, start, d)
		} else {
			e.event(plan.Event{Addr: o.addr, Action: plan.Close, Phase: plan.Succeeded, Elapsed: time.Since(start)})
		}
		diags = append(diags, d...)
	}
	return diags
}

// ephemeralArguments reports each ephemeral value in a resource's or data
// source's configuration that is not in a write-only attribute: the rest
// of a configuration is recorded in plans and state, and an ephemeral
// value never may be. Terraform refuses the same, with the same words.
func ephemeralArguments(addr string, cn *config.Node, block *provider.Block, cfgVal cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, path := range marks.EphemeralPaths(cfgVal) {
		attr, attrPath := attributeAt(block, path)
		if attr != nil && attr.WriteOnly {
			continue
		}
		detail := fmt.Sprintf("Ephemeral values are not valid for %q, because it is not a write-only attribute and must be persisted to state.", strings.TrimPrefix(diagnostic.PathString(attrPath), "."))
		if attr == nil {
			detail = fmt.Sprintf("Ephemeral values are not valid for %q, because it is not an assignable attribute.", strings.TrimPrefix(diagnostic.PathString(path), "."))
		}
		d := diagnostic.Error("Invalid use of ephemeral value", detail)
		if cn.Attrs != nil {
			if rng, ok := cn.Attrs.AttrRange(attrPath); ok {
				d.Subject = rng.Ptr()
			}
		}
		diags = append(diags, diagnostic.About(addr, declOf(cn), hcl.Diagnostics{d})...)
	}
	return diags
}

// attributeAt is the attribute of block that holds the value at path, and
// the path to that attribute; nil when the path names a block or nothing.
func attributeAt(block *provider.Block, path cty.Path) (*provider.Attribute, cty.Path) {
	for i := 0; i < len(path); i++ {
		step, ok := path[i].(cty.GetAttrStep)
		if !ok {
			continue // an index into a nested block's collection
		}
		if a, ok := block.Attributes[step.Name]; ok {
			return a, path[:i+1]
		}
		nb, ok := block.BlockTypes[step.Name]
		if !ok {
			return nil, path
		}
		block = &nb.Block
	}
	return nil, path
}
