package tether

import (
	"context"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

// TestValue runs the expectations of tether_value in process;
// internal/protocol and internal/plugin run the same ones over the plugin
// protocol.
func TestValue(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness { return newHarness(t) }, providercheck.ValueScenarios...)
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
