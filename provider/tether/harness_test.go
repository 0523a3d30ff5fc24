package tether

import (
	"context"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

// harness drives the provider the way the engine does: validate, plan with
// a proposed new state, apply, refresh.
type harness struct {
	t      testing.TB
	p      provider.Provider
	schema *provider.Schema
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	p := New()
	s, diags := p.GetSchema()
	if diags.HasErrors() {
		t.Fatalf("GetSchema: %s", diags.Error())
	}
	if d := p.ConfigureProvider(context.Background(), cty.EmptyObjectVal); d.HasErrors() {
		t.Fatalf("ConfigureProvider: %s", d.Error())
	}
	return &harness{t: t, p: p, schema: s}
}

// config builds a full configuration object: attributes not given are
// null, as they are when absent from the configuration.
func (h *harness) config(typeName string, attrs map[string]cty.Value) cty.Value {
	return objectOf(h.schema.Resources[typeName].Block, attrs)
}

func (h *harness) dataConfig(typeName string, attrs map[string]cty.Value) cty.Value {
	return objectOf(h.schema.DataSources[typeName].Block, attrs)
}

func objectOf(b *provider.Block, attrs map[string]cty.Value) cty.Value {
	vals := make(map[string]cty.Value, len(b.Attributes))
	for name, a := range b.Attributes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = cty.NullVal(a.Type)
		}
	}
	return cty.ObjectVal(vals)
}

// proposedNew is the engine's merge in miniature: configured values win,
// computed attributes left out of the configuration keep their prior value
// (or are unknown for a create).
func (h *harness) proposedNew(typeName string, prior, config cty.Value) cty.Value {
	b := h.schema.Resources[typeName].Block
	vals := map[string]cty.Value{}
	for name, a := range b.Attributes {
		cv := config.GetAttr(name)
		switch {
		case !a.Computed || !cv.IsNull():
			vals[name] = cv
		case prior.IsNull():
			vals[name] = cty.UnknownVal(a.Type)
		default:
			vals[name] = prior.GetAttr(name)
		}
	}
	return cty.ObjectVal(vals)
}

func (h *harness) plan(typeName string, prior, config cty.Value) provider.PlanResponse {
	h.t.Helper()
	if prior == cty.NilVal {
		prior = cty.NullVal(h.schema.Resources[typeName].Block.ImpliedType())
	}
	return h.p.PlanResourceChange(context.Background(), provider.PlanRequest{
		TypeName:         typeName,
		PriorState:       prior,
		ProposedNewState: h.proposedNew(typeName, prior, config),
		Config:           config,
	})
}

func (h *harness) apply(typeName string, prior, planned, config cty.Value) provider.ApplyResponse {
	h.t.Helper()
	if prior == cty.NilVal {
		prior = cty.NullVal(h.schema.Resources[typeName].Block.ImpliedType())
	}
	return h.p.ApplyResourceChange(context.Background(), provider.ApplyRequest{
		TypeName:     typeName,
		PriorState:   prior,
		PlannedState: planned,
		Config:       config,
	})
}

// converge validates, plans and applies config against prior, failing the
// test on any diagnostic, and returns the new state.
func (h *harness) converge(typeName string, prior, config cty.Value) cty.Value {
	h.t.Helper()
	noErrors(h.t, "validate", h.p.ValidateResourceConfig(typeName, config))
	pr := h.plan(typeName, prior, config)
	noErrors(h.t, "plan", pr.Diagnostics)
	ar := h.apply(typeName, prior, pr.PlannedState, config)
	noErrors(h.t, "apply", ar.Diagnostics)
	if !ar.NewState.IsWhollyKnown() {
		h.t.Fatalf("apply left unknown values: %#v", ar.NewState)
	}
	return ar.NewState
}

func (h *harness) destroy(typeName string, prior cty.Value) provider.ApplyResponse {
	h.t.Helper()
	ty := h.schema.Resources[typeName].Block.ImpliedType()
	pr := h.p.PlanResourceChange(context.Background(), provider.PlanRequest{
		TypeName:         typeName,
		PriorState:       prior,
		ProposedNewState: cty.NullVal(ty),
		Config:           cty.NullVal(ty),
	})
	noErrors(h.t, "plan destroy", pr.Diagnostics)
	if !pr.PlannedState.IsNull() {
		h.t.Fatalf("destroy plan is not null: %#v", pr.PlannedState)
	}
	return h.apply(typeName, prior, pr.PlannedState, cty.NullVal(ty))
}

func (h *harness) read(typeName string, state cty.Value) provider.ReadResponse {
	h.t.Helper()
	return h.p.ReadResource(context.Background(), provider.ReadRequest{TypeName: typeName, PriorState: state})
}

func noErrors(t testing.TB, what string, diags hcl.Diagnostics) {
	t.Helper()
	if diags.HasErrors() {
		t.Fatalf("%s: unexpected errors: %s", what, diags.Error())
	}
}

func str(t *testing.T, obj cty.Value, name string) string {
	t.Helper()
	v := obj.GetAttr(name)
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		t.Fatalf("%s is %#v, want a known string", name, v)
	}
	return v.AsString()
}

func hasReplace(paths []cty.Path, name string) bool {
	for _, p := range paths {
		if p.Equals(cty.GetAttrPath(name)) {
			return true
		}
	}
	return false
}

// wantAttrError checks for exactly the diagnostic a user sees for a bad
// attribute value: a fixed summary and the attribute's path, which names it
// and lets the diagnostic point at it.
func wantAttrError(t *testing.T, diags hcl.Diagnostics, name string) {
	t.Helper()
	if !diags.HasErrors() {
		t.Fatalf("no error for invalid %s", name)
	}
	want := "Invalid attribute value"
	for _, d := range diags {
		pe, ok := hcl.DiagnosticExtra[interface{ AttributePath() cty.Path }](d)
		if d.Summary != want || !ok || !pe.AttributePath().Equals(cty.GetAttrPath(name)) {
			continue
		}
		return
	}
	t.Fatalf("no diagnostic %q about %s among: %s", want, name, diags.Error())
}
