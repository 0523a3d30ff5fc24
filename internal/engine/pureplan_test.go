package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// planCounting counts the PlanResourceChange calls of tether_value
// configurations by their delay_ms, as validating counts validations, and
// warns when validating delay_ms = warnAt. It stands for a provider
// reached through the plugin protocol: it does not say its plans are pure.
type planCounting struct {
	provider.Provider
	mu     *sync.Mutex
	calls  map[int64]int
	warnAt int64
}

func delayOf(c cty.Value) (int64, bool) {
	if c.IsNull() || !c.IsKnown() {
		return 0, false
	}
	ms := c.GetAttr("delay_ms")
	if ms.IsNull() || !ms.IsKnown() {
		return 0, false
	}
	key, _ := ms.AsBigFloat().Int64()
	return key, true
}

func (p *planCounting) ValidateResourceConfig(typeName string, c cty.Value) hcl.Diagnostics {
	d := p.Provider.ValidateResourceConfig(typeName, c)
	if key, ok := delayOf(c); ok && key == p.warnAt {
		d = append(d, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Slow value", Detail: "delay_ms is set."})
	}
	return d
}

func (p *planCounting) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	if key, ok := delayOf(req.Config); ok && req.TypeName == "tether_value" {
		p.mu.Lock()
		p.calls[key]++
		p.mu.Unlock()
	}
	return p.Provider.PlanResourceChange(ctx, req)
}

// purePlanCounting is planCounting for the built-in provider in process,
// which says which of its types plan purely.
type purePlanCounting struct{ planCounting }

func (p *purePlanCounting) PurePlan(typeName string) bool {
	return p.Provider.(provider.PurePlanner).PurePlan(typeName)
}

// TestApplyPlansAgainOnlyWhatMayDiffer plans and applies in one run, as
// `tether up` does, and counts how often each resource's plan is asked
// for. Terraform plans an instance again during apply; the built-in
// provider, whose tether_value plan depends on the request alone, is not
// asked a second time when the request would be the first one again. A
// provider that does not say so (any plugin) is always asked again.
func TestApplyPlansAgainOnlyWhatMayDiffer(t *testing.T) {
	const main = `
# Known at plan, created: planned once.
resource "tether_value" "known" {
  input    = "a"
  delay_ms = 1
}

# Its input is known only after apply: planned at plan and at apply.
resource "tether_value" "later" {
  input    = tether_value.known.id
  delay_ms = 2
}

# Its provider is configured again during apply, once runtime_dir is known.
provider "tether" {
  alias       = "late"
  runtime_dir = "${path.module}/runtime${substr(tether_value.known.id, 0, 0)}"
}

resource "tether_value" "reconfigured" {
  provider = tether.late
  input    = "c"
  delay_ms = 3
}

# The provider warned when validating it: planned (and validated) again.
resource "tether_value" "warned" {
  input    = "d"
  delay_ms = 4
}

variable "secret" {
  type      = string
  default   = "e"
  sensitive = true
}

# A sensitive input, the same at plan and apply: planned once.
resource "tether_value" "sensitive" {
  input    = var.secret
  delay_ms = 5
}
`
	for _, c := range []struct {
		name string
		pure bool
		want map[int64]int // delay_ms: plans
	}{
		{"built-in", true, map[int64]int{1: 1, 2: 2, 3: 2, 4: 2, 5: 1}},
		{"plugin", false, map[int64]int{1: 2, 2: 2, 3: 2, 4: 2, 5: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"main.tf": main})
			var mu sync.Mutex
			calls := map[int64]int{}
			eng := builtinEngine(t, dir, func(tp provider.Provider) provider.Provider {
				p := planCounting{Provider: tp, mu: &mu, calls: calls, warnAt: 4}
				if c.pure {
					return &purePlanCounting{p}
				}
				return &p
			})
			cfg := loadBuiltin(t, dir)
			if res := up(t, eng, cfg); res.Added != 5 {
				t.Fatalf("apply added %d objects, want 5", res.Added)
			}
			for delay, want := range c.want {
				if got := calls[delay]; got != want {
					t.Errorf("the tether_value with delay_ms = %d was planned %d times, want %d", delay, got, want)
				}
			}
			// What was recorded is what planning again would have given.
			snap, err := eng.Store.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			obj := snap.Objects["tether_value.known"]
			if obj == nil {
				t.Fatal("tether_value.known was not recorded")
			}
			for _, want := range []string{`"input":{"value":"a","type":"string"}`, `"output":{"value":"a","type":"string"}`, `"delay_ms":1`} {
				if !strings.Contains(string(obj.Value), want) {
					t.Errorf("tether_value.known recorded %s, want %s in it", obj.Value, want)
				}
			}
		})
	}
}
