package tether

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

func TestValueOutputFollowsInput(t *testing.T) {
	h := newHarness(t)
	input := cty.ObjectVal(map[string]cty.Value{
		"name":  cty.StringVal("app"),
		"ports": cty.TupleVal([]cty.Value{cty.NumberIntVal(80), cty.NumberIntVal(443)}),
	})
	cfg := map[string]cty.Value{"input": input}

	pr := h.Plan("tether_value", nil, cfg)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !pr.PlannedState.GetAttr("output").RawEquals(input) {
		t.Fatalf("planned output = %#v, want the known input", pr.PlannedState.GetAttr("output"))
	}
	state := h.Up("tether_value", nil, cfg)
	if !state.State.GetAttr("output").RawEquals(input) {
		t.Fatalf("output = %#v", state.State.GetAttr("output"))
	}
	id := providercheck.String(t, state.State, "id")
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(id) {
		t.Fatalf("id %q is not 16 hex digits", id)
	}

	// A new input updates in place and keeps the id.
	cfg2 := map[string]cty.Value{"input": cty.StringVal("now a string")}
	pr = h.Plan("tether_value", state, cfg2)
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("input change forces replacement: %#v", pr.RequiresReplace)
	}
	state = h.Up("tether_value", state, cfg2)
	if providercheck.String(t, state.State, "id") != id || providercheck.String(t, state.State, "output") != "now a string" {
		t.Fatalf("after update: %#v", state.State)
	}

	// Partly unknown input: nothing about output is known yet.
	cfg3 := map[string]cty.Value{"input": cty.ObjectVal(map[string]cty.Value{
		"a": cty.StringVal("known"),
		"b": cty.UnknownVal(cty.String),
	})}
	pr = h.Plan("tether_value", state, cfg3)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if pr.PlannedState.GetAttr("output").IsKnown() {
		t.Fatalf("planned output %#v is known although input is not", pr.PlannedState.GetAttr("output"))
	}
	if providercheck.String(t, pr.PlannedState, "id") != id {
		t.Fatal("id is not kept across updates")
	}
}

func TestValueDelay(t *testing.T) {
	h := newHarness(t)
	cfg := map[string]cty.Value{
		"input":    cty.StringVal("slow"),
		"delay_ms": cty.NumberIntVal(50),
	}
	start := time.Now()
	h.Up("tether_value", nil, cfg)
	if elapsed := time.Since(start); elapsed < 50*time.Millisecond {
		t.Fatalf("create with delay_ms = 50 took only %s", elapsed)
	}
}

func TestValueDelayHonoursCancellation(t *testing.T) {
	h := newHarness(t)
	cfg := map[string]cty.Value{
		"input":    cty.StringVal("slow"),
		"delay_ms": cty.NumberIntVal(600_000),
	}
	pr := h.Plan("tether_value", nil, cfg)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	ar := h.Provider.ApplyResourceChange(ctx, provider.ApplyRequest{
		TypeName:     "tether_value",
		PriorState:   cty.NullVal(pr.PlannedState.Type()),
		PlannedState: pr.PlannedState,
		Config:       h.Config("tether_value", cfg),
	})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("apply ignored cancellation for %s", elapsed)
	}
	if !ar.Diagnostics.HasErrors() {
		t.Fatal("cancelled create reports success")
	}
	if !ar.NewState.IsNull() {
		t.Fatalf("cancelled create left state %#v", ar.NewState)
	}
}
