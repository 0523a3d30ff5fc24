package tether

import (
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

func TestRandomStableUntilReplaced(t *testing.T) {
	h := newHarness(t)
	cfg := map[string]cty.Value{
		"length":  cty.NumberIntVal(24),
		"keepers": cty.MapVal(map[string]cty.Value{"env": cty.StringVal("prod")}),
	}
	pr := h.Plan("tether_random", nil, cfg)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if pr.PlannedState.GetAttr("result").IsKnown() {
		t.Fatal("result is known before it is generated")
	}
	state := h.Up("tether_random", nil, cfg)
	result := providercheck.String(t, state.State, "result")
	if len(result) != 24 {
		t.Fatalf("result %q has length %d", result, len(result))
	}
	for _, r := range result {
		if !strings.ContainsRune(defaultCharacters, r) {
			t.Fatalf("result %q has %q, not alphanumeric", result, r)
		}
	}
	if providercheck.String(t, state.State, "characters") != defaultCharacters {
		t.Errorf("characters default not recorded: %q", providercheck.String(t, state.State, "characters"))
	}

	// Same configuration: same result, no replacement, already at plan.
	pr = h.Plan("tether_random", state, cfg)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("unchanged config forces replacement: %#v", pr.RequiresReplace)
	}
	if !pr.PlannedState.RawEquals(state.State) {
		t.Fatalf("unchanged config plans a change:\n got %#v\nwant %#v", pr.PlannedState, state.State)
	}
	if again := h.Up("tether_random", state, cfg); providercheck.String(t, again.State, "result") != result {
		t.Fatalf("result changed from %q to %q without cause", result, providercheck.String(t, again.State, "result"))
	}

	for _, tc := range []struct {
		attr string
		cfg  map[string]cty.Value
	}{
		{"length", map[string]cty.Value{
			"length":  cty.NumberIntVal(25),
			"keepers": cty.MapVal(map[string]cty.Value{"env": cty.StringVal("prod")}),
		}},
		{"keepers", map[string]cty.Value{
			"length":  cty.NumberIntVal(24),
			"keepers": cty.MapVal(map[string]cty.Value{"env": cty.StringVal("staging")}),
		}},
		{"keepers", map[string]cty.Value{
			"length": cty.NumberIntVal(24),
		}},
		{"characters", map[string]cty.Value{
			"length":     cty.NumberIntVal(24),
			"characters": cty.StringVal("xyz"),
			"keepers":    cty.MapVal(map[string]cty.Value{"env": cty.StringVal("prod")}),
		}},
		{"keepers", map[string]cty.Value{
			"length":  cty.NumberIntVal(24),
			"keepers": cty.MapVal(map[string]cty.Value{"env": cty.UnknownVal(cty.String)}),
		}},
	} {
		pr := h.Plan("tether_random", state, tc.cfg)
		providercheck.NoErrors(t, "plan", pr.Diagnostics)
		if !providercheck.HasReplace(pr.RequiresReplace, tc.attr) {
			t.Errorf("changing %s (%#v) does not force replacement: %#v", tc.attr, tc.cfg, pr.RequiresReplace)
		}
		if pr.PlannedState.GetAttr("result").IsKnown() {
			t.Errorf("changing %s keeps result known in the plan", tc.attr)
		}
	}
}

func TestRandomEmptyKeepersIsNoChange(t *testing.T) {
	h := newHarness(t)
	state := h.Up("tether_random", nil, map[string]cty.Value{
		"length": cty.NumberIntVal(8),
	})
	pr := h.Plan("tether_random", state, map[string]cty.Value{
		"length":  cty.NumberIntVal(8),
		"keepers": cty.MapValEmpty(cty.String),
	})
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("keepers null -> {} forces replacement: %#v", pr.RequiresReplace)
	}
}

func TestRandomDrawsFromCharacters(t *testing.T) {
	h := newHarness(t)
	state := h.Up("tether_random", nil, map[string]cty.Value{
		"length":     cty.NumberIntVal(maxRandomLength),
		"characters": cty.StringVal("aé"),
	})
	result := providercheck.String(t, state.State, "result")
	if n := len([]rune(result)); n != maxRandomLength {
		t.Fatalf("result has %d characters, want %d", n, maxRandomLength)
	}
	if strings.Trim(result, "aé") != "" {
		t.Fatalf("result has characters outside the set")
	}
	// Each of 4096 draws picks either with probability 1/2: both must show up.
	if !strings.Contains(result, "a") || !strings.Contains(result, "é") {
		t.Fatalf("a 4096-character result uses only one of two characters")
	}

	other := h.Up("tether_random", nil, map[string]cty.Value{
		"length": cty.NumberIntVal(32),
	})
	another := h.Up("tether_random", nil, map[string]cty.Value{
		"length": cty.NumberIntVal(32),
	})
	if providercheck.String(t, other.State, "result") == providercheck.String(t, another.State, "result") || providercheck.String(t, other.State, "id") == providercheck.String(t, another.State, "id") {
		t.Fatal("two creates produced the same result or id")
	}
}
