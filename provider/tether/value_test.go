package tether

import (
	"path/filepath"
	"testing"
	"time"

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
