package tether

import (
	"context"
	"testing"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

// The engine plans every resource on every run; these keep an eye on what
// one call costs.

func BenchmarkPlanRandomUnchanged(b *testing.B) {
	h := newHarness(b)
	attrs := map[string]cty.Value{
		"length":  cty.NumberIntVal(16),
		"keepers": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
	}
	prior := h.Up("tether_random", nil, attrs).State
	req := provider.PlanRequest{TypeName: "tether_random", PriorState: prior, ProposedNewState: prior, Config: h.Config("tether_random", attrs)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.Provider.PlanResourceChange(ctx, req)
	}
}

func BenchmarkApplyValueCreate(b *testing.B) {
	h := newHarness(b)
	attrs := map[string]cty.Value{"input": cty.StringVal("x")}
	planned := h.Plan("tether_value", nil, attrs).PlannedState
	req := provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(planned.Type()), PlannedState: planned, Config: h.Config("tether_value", attrs)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.Provider.ApplyResourceChange(ctx, req)
	}
}
