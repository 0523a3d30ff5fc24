package tether

import (
	"context"
	"path/filepath"
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

// TestFailures runs the failure scenarios in process: concurrent calls
// and a cancelled apply (those about a plugin's process skip);
// internal/protocol and internal/plugin run the same ones over the plugin
// protocol.
func TestFailures(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness {
		runtimeDir := filepath.Join(t.TempDir(), "runtime")
		h := providercheck.New(t, providercheck.SignalApplies(New()), map[string]cty.Value{"runtime_dir": cty.StringVal(runtimeDir)})
		h.SignalsApplies = true
		return h
	}, providercheck.FailureScenarios...)
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

// TestValueUnchangedPlanIsPrior checks that planning a tether_value whose
// configuration changes nothing gives back the prior object itself, with
// no copy: a no-op plan of many values is mostly this call.
func TestValueUnchangedPlanIsPrior(t *testing.T) {
	p := New()
	prior := valueObject(cty.StringVal("a"), cty.StringVal("a"), cty.NullVal(cty.Number), cty.StringVal("id-1"))
	config := valueObject(cty.StringVal("a"), cty.NullVal(cty.DynamicPseudoType), cty.NullVal(cty.Number), cty.NullVal(cty.String))
	req := provider.PlanRequest{TypeName: "tether_value", PriorState: prior, ProposedNewState: prior, Config: config}
	if got := p.PlanResourceChange(context.Background(), req).PlannedState; !got.RawEquals(prior) {
		t.Fatalf("planned %#v, want the prior object %#v", got, prior)
	}
	if n := testing.AllocsPerRun(20, func() { p.PlanResourceChange(context.Background(), req) }); n > 0 {
		t.Errorf("planning an unchanged tether_value allocated %v times, want none", n)
	}
}
