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
	cfg := h.config("tether_random", map[string]cty.Value{
		"length":  cty.NumberIntVal(16),
		"keepers": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("v")}),
	})
	prior := h.converge("tether_random", cty.NilVal, cfg)
	req := provider.PlanRequest{TypeName: "tether_random", PriorState: prior, ProposedNewState: prior, Config: cfg}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.p.PlanResourceChange(ctx, req)
	}
}

func BenchmarkApplyValueCreate(b *testing.B) {
	h := newHarness(b)
	cfg := h.config("tether_value", map[string]cty.Value{"input": cty.StringVal("x")})
	planned := h.plan("tether_value", cty.NilVal, cfg).PlannedState
	req := provider.ApplyRequest{TypeName: "tether_value", PriorState: cty.NullVal(planned.Type()), PlannedState: planned, Config: cfg}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.p.ApplyResourceChange(ctx, req)
	}
}
