package providercheck

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// Harness drives one configured provider for one test.
type Harness struct {
	T        testing.TB
	Provider provider.Provider
	Schema   *provider.Schema
	// Ctx is the context of every call; New sets it to the test's.
	Ctx context.Context
	// Process is the provider's plugin process, for FailureScenarios;
	// nil for a provider in process or behind the protocol server.
	Process *Process
	// SignalsApplies says the provider is, or serves, one that
	// SignalApplies made, for the scenarios that interrupt an apply.
	SignalsApplies bool
}

// Object is a resource instance as the engine records it: the state the
// provider returned and its private bytes, which go back with the next
// call about the object.
type Object struct {
	Type    string
	State   cty.Value
	Private []byte
}

// New reads p's schema, then validates and configures p with attrs, the
// provider block's arguments (those not given are null, as when absent
// from a configuration; nil configures it as an implied provider block
// does). It fails the test on any error. The caller keeps p: New does not
// close it.
func New(t testing.TB, p provider.Provider, attrs map[string]cty.Value) *Harness {
	t.Helper()
	s, diags := p.GetSchema()
	NoErrors(t, "GetSchema", diags)
	h := &Harness{T: t, Provider: p, Schema: s, Ctx: t.Context()}
	cfg := ConfigOf(s.Provider, attrs)
	NoErrors(t, "ValidateProviderConfig", p.ValidateProviderConfig(cfg))
	NoErrors(t, "ConfigureProvider", p.ConfigureProvider(h.Ctx, cfg))
	return h
}

// For is a copy of h reporting to t, for a subtest: a test may only be
// failed at once from its own goroutine.
func (h *Harness) For(t testing.TB) *Harness {
	c := *h
	c.T = t
	c.Ctx = t.Context()
	return &c
}

// ConfigOf is the configuration of block b whose body sets attrs: every
// other attribute is null and every nested block type has no blocks, as
// the engine passes a configuration to a provider. A value in attrs may
// also stand for a nested block type's blocks.
func ConfigOf(b *provider.Block, attrs map[string]cty.Value) cty.Value {
	vals := b.EmptyValue().AsValueMap()
	if vals == nil {
		vals = map[string]cty.Value{}
	}
	for name, v := range attrs {
		vals[name] = v
	}
	return cty.ObjectVal(vals)
}

// Config is the configuration of resource type typ setting attrs (see
// ConfigOf).
func (h *Harness) Config(typ string, attrs map[string]cty.Value) cty.Value {
	return ConfigOf(h.Resource(typ).Block, attrs)
}

// DataConfig is the configuration of data source typ setting attrs.
func (h *Harness) DataConfig(typ string, attrs map[string]cty.Value) cty.Value {
	h.T.Helper()
	ds, ok, err := h.Schema.DataSources.Get(typ)
	if err != nil || !ok {
		h.T.Fatalf("the provider has no data source %s (%v)", typ, err)
	}
	return ConfigOf(ds.Block, attrs)
}

// Resource is the schema of resource type typ; the test fails without
// one.
func (h *Harness) Resource(typ string) *provider.ResourceSchema {
	h.T.Helper()
	rs, ok, err := h.Schema.Resources.Get(typ)
	if err != nil || !ok {
		h.T.Fatalf("the provider has no resource type %s (%v)", typ, err)
	}
	return rs
}

// prior is the state and private bytes of o, or a null state for a create
// (o nil).
func (h *Harness) prior(typ string, o *Object) (cty.Value, []byte) {
	if o == nil {
		return cty.NullVal(h.Resource(typ).Block.ImpliedType()), nil
	}
	return o.State, o.Private
}

// Plan plans the configuration setting attrs over prior (nil for a
// create), proposing the engine's merge of the two. A plan without errors
// that breaks the configuration fails the test, as the engine refuses it,
// unless the provider says it uses the legacy type system.
func (h *Harness) Plan(typ string, prior *Object, attrs map[string]cty.Value) provider.PlanResponse {
	h.T.Helper()
	b := h.Resource(typ).Block
	cfg := ConfigOf(b, attrs)
	state, private := h.prior(typ, prior)
	pr := h.Provider.PlanResourceChange(h.Ctx, provider.PlanRequest{
		TypeName:         typ,
		PriorState:       state,
		ProposedNewState: provider.ProposedNew(b, state, cfg),
		Config:           cfg,
		PriorPrivate:     private,
	})
	if !pr.Diagnostics.HasErrors() && !pr.LegacyTypeSystem {
		if problems := provider.PlanProblems(b, state, cfg, pr.PlannedState); len(problems) > 0 {
			h.T.Errorf("%s: the provider produced an invalid plan:\n  %s", typ, strings.Join(problems, "\n  "))
		}
	}
	return pr
}

// Apply applies plan, made by Plan from prior and attrs. A result without
// errors that leaves a value unknown, or breaks the plan, fails the test,
// as the engine refuses it (the latter unless the provider says it uses
// the legacy type system).
func (h *Harness) Apply(typ string, prior *Object, plan provider.PlanResponse, attrs map[string]cty.Value) provider.ApplyResponse {
	h.T.Helper()
	b := h.Resource(typ).Block
	state, _ := h.prior(typ, prior)
	ar := h.Provider.ApplyResourceChange(h.Ctx, provider.ApplyRequest{
		TypeName:       typ,
		PriorState:     state,
		PlannedState:   plan.PlannedState,
		Config:         ConfigOf(b, attrs),
		PlannedPrivate: plan.PlannedPrivate,
	})
	if ar.Diagnostics.HasErrors() {
		return ar
	}
	if !ar.NewState.IsWhollyKnown() {
		h.T.Errorf("%s: apply left unknown values: %#v", typ, ar.NewState)
	}
	if !ar.LegacyTypeSystem {
		if problems := provider.ResultProblems(b, plan.PlannedState, ar.NewState); len(problems) > 0 {
			h.T.Errorf("%s: the provider produced an inconsistent result after apply:\n  %s", typ, strings.Join(problems, "\n  "))
		}
	}
	return ar
}

// Try validates, plans and applies the configuration setting attrs over
// prior (nil for a create), and returns the object recorded afterwards
// with the errors of the step that failed: prior when validation or the
// plan failed, nil when a failed apply left no object.
func (h *Harness) Try(typ string, prior *Object, attrs map[string]cty.Value) (*Object, hcl.Diagnostics) {
	h.T.Helper()
	if d := h.Provider.ValidateResourceConfig(typ, h.Config(typ, attrs)); d.HasErrors() {
		return prior, d
	}
	pr := h.Plan(typ, prior, attrs)
	if pr.Diagnostics.HasErrors() {
		return prior, pr.Diagnostics
	}
	ar := h.Apply(typ, prior, pr, attrs)
	if ar.NewState.IsNull() {
		if ar.Diagnostics.HasErrors() {
			return nil, ar.Diagnostics
		}
		h.T.Fatalf("%s: apply returned no object and no error", typ)
	}
	o := &Object{Type: typ, State: ar.NewState, Private: ar.Private}
	if ar.Diagnostics.HasErrors() {
		return o, ar.Diagnostics
	}
	return o, nil
}

// Up is Try failing the test on any error.
func (h *Harness) Up(typ string, prior *Object, attrs map[string]cty.Value) *Object {
	h.T.Helper()
	o, diags := h.Try(typ, prior, attrs)
	NoErrors(h.T, typ, diags)
	return o
}

// Destroy plans the destruction of o and applies it the way Terraform
// does: the apply gets the private bytes the destroy plan returned, not
// the prior ones. A destroy plan with errors, or one that is not null,
// fails the test.
func (h *Harness) Destroy(o *Object) provider.ApplyResponse {
	h.T.Helper()
	pr := h.planDestroy(o)
	NoErrors(h.T, "plan to destroy "+o.Type, pr.Diagnostics)
	if !pr.PlannedState.IsNull() {
		h.T.Fatalf("%s: the destroy plan is not null: %#v", o.Type, pr.PlannedState)
	}
	return h.applyDestroy(o, pr)
}

func (h *Harness) planDestroy(o *Object) provider.PlanResponse {
	null := cty.NullVal(o.State.Type())
	return h.Provider.PlanResourceChange(h.Ctx, provider.PlanRequest{
		TypeName:         o.Type,
		PriorState:       o.State,
		ProposedNewState: null,
		Config:           null,
		PriorPrivate:     o.Private,
	})
}

func (h *Harness) applyDestroy(o *Object, pr provider.PlanResponse) provider.ApplyResponse {
	null := cty.NullVal(o.State.Type())
	return h.Provider.ApplyResourceChange(h.Ctx, provider.ApplyRequest{
		TypeName:       o.Type,
		PriorState:     o.State,
		PlannedState:   null,
		Config:         null,
		PlannedPrivate: pr.PlannedPrivate,
	})
}

// CleanUp destroys o if the test has failed by then, reporting nothing,
// so that a scenario that stops half way leaves no object behind (a
// process, for the runtime's resources). Defer it after each Up.
func (h *Harness) CleanUp(o *Object) {
	if !h.T.Failed() {
		return
	}
	if pr := h.planDestroy(o); !pr.Diagnostics.HasErrors() {
		h.applyDestroy(o, pr)
	}
}

// Down is Destroy failing the test on any error or on a state left behind.
func (h *Harness) Down(o *Object) {
	h.T.Helper()
	ar := h.Destroy(o)
	NoErrors(h.T, "destroy "+o.Type, ar.Diagnostics)
	if !ar.NewState.IsNull() {
		h.T.Fatalf("destroying %s left %#v", o.Type, ar.NewState)
	}
}

// Refresh reads o again: the object as it is now, nil when it is gone,
// and what the provider reported.
func (h *Harness) Refresh(o *Object) (*Object, hcl.Diagnostics) {
	h.T.Helper()
	rr := h.Provider.ReadResource(h.Ctx, provider.ReadRequest{TypeName: o.Type, PriorState: o.State, Private: o.Private})
	if rr.NewState.IsNull() {
		return nil, rr.Diagnostics
	}
	return &Object{Type: o.Type, State: rr.NewState, Private: rr.Private}, rr.Diagnostics
}

// Import asks the provider for the objects of resource type typ that id
// names.
func (h *Harness) Import(typ, id string) provider.ImportResponse {
	h.T.Helper()
	return h.Provider.ImportResourceState(h.Ctx, provider.ImportRequest{TypeName: typ, ID: id})
}

// Upgrade asks the provider to upgrade a state of resource type typ
// recorded as JSON under schema version version.
func (h *Harness) Upgrade(typ string, version int64, rawJSON []byte) provider.UpgradeResponse {
	h.T.Helper()
	return h.Provider.UpgradeResourceState(h.Ctx, provider.UpgradeRequest{TypeName: typ, Version: version, RawStateJSON: rawJSON})
}

// ReadData validates the configuration of data source typ setting attrs
// and reads it; a validation error is returned without reading.
func (h *Harness) ReadData(typ string, attrs map[string]cty.Value) provider.ReadDataResponse {
	h.T.Helper()
	cfg := h.DataConfig(typ, attrs)
	if d := h.Provider.ValidateDataSourceConfig(typ, cfg); d.HasErrors() {
		return provider.ReadDataResponse{State: cty.NullVal(cfg.Type()), Diagnostics: d}
	}
	return h.Provider.ReadDataSource(h.Ctx, provider.ReadDataRequest{TypeName: typ, Config: cfg})
}
