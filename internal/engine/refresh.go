package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

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
