package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
)

// validating counts the ValidateResourceConfig calls of tether_value
// configurations by their delay_ms, which each resource of the test sets
// to a number of its own, and warns about delay_ms = warnAt.
type validating struct {
	provider.Provider
	mu     *sync.Mutex
	calls  map[int64]int
	warnAt int64
}

func (v *validating) ValidateResourceConfig(typeName string, c cty.Value) hcl.Diagnostics {
	d := v.Provider.ValidateResourceConfig(typeName, c)
	ms := c.GetAttr("delay_ms")
	if typeName != "tether_value" || ms.IsNull() || !ms.IsKnown() {
		return d
	}
	key, _ := ms.AsBigFloat().Int64()
	v.mu.Lock()
	v.calls[key]++
	v.mu.Unlock()
	if key == v.warnAt {
		d = append(d, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Slow value", Detail: "delay_ms is set."})
	}
	return d
}

// TestApplyValidatesAgainOnlyWhatMayDiffer plans and applies in one run,
// as `tether up` does, and counts how often the provider is asked to
// validate each resource's configuration. Terraform validates when it
// plans an instance and again when it plans it anew during apply; the
// second call is left out only when it would repeat the first exactly:
// the same configuration, found valid without a diagnostic by the same
// provider instance, not configured since.
func TestApplyValidatesAgainOnlyWhatMayDiffer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `
# Known at plan: validated once.
resource "tether_value" "known" {
  input    = "a"
  delay_ms = 1
}

# Its input is known only after apply: validated at plan and at apply.
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

# The provider warned at plan: asked again at apply.
resource "tether_value" "warned" {
  input    = "d"
  delay_ms = 4
}
`})
	var mu sync.Mutex
	calls := map[int64]int{}
	eng := builtinEngine(t, dir, func(p provider.Provider) provider.Provider {
		return &validating{Provider: p, mu: &mu, calls: calls, warnAt: 4}
	})
	cfg := loadBuiltin(t, dir)
	if res := up(t, eng, cfg); res.Added != 4 {
		t.Fatalf("apply added %d objects, want 4", res.Added)
	}
	for _, c := range []struct {
		name  string
		delay int64
		want  int
	}{
		{"known", 1, 1},
		{"later", 2, 2},
		{"reconfigured", 3, 2},
		{"warned", 4, 2},
	} {
		if got := calls[c.delay]; got != c.want {
			t.Errorf("tether_value.%s was validated %d times, want %d", c.name, got, c.want)
		}
	}
}

// validatedInputs records the input of each tether_value configuration
// its provider is asked to validate.
type validatedInputs struct {
	provider.Provider
	mu     *sync.Mutex
	inputs *[]string
}

func (v *validatedInputs) ValidateResourceConfig(typeName string, c cty.Value) hcl.Diagnostics {
	if in := c.GetAttr("input"); typeName == "tether_value" && in.IsKnown() && in.Type() == cty.String && !in.IsNull() {
		v.mu.Lock()
		*v.inputs = append(*v.inputs, in.AsString())
		v.mu.Unlock()
	}
	return v.Provider.ValidateResourceConfig(typeName, c)
}

// TestPlanValidatesConfigBeforeIgnoreChanges checks that the provider
// validates the configuration as written, not with ignore_changes' prior
// values in it, as Terraform validates it: a prior value the provider
// computed can conflict with what the configuration sets (aws_ssm_parameter
// with ignore_changes = [value, insecure_value] failed its second plan with
// "only one of insecure_value,value").
func TestPlanValidatesConfigBeforeIgnoreChanges(t *testing.T) {
	dir := t.TempDir()
	main := `
resource "tether_value" "v" {
  input = %q
  lifecycle {
    ignore_changes = [input]
  }
}
`
	writeFiles(t, dir, map[string]string{"main.tf": fmt.Sprintf(main, "written first")})
	var mu sync.Mutex
	var inputs []string
	eng := builtinEngine(t, dir, func(p provider.Provider) provider.Provider {
		return &validatedInputs{Provider: p, mu: &mu, inputs: &inputs}
	})
	up(t, eng, loadBuiltin(t, dir))
	writeFiles(t, dir, map[string]string{"main.tf": fmt.Sprintf(main, "written second")})
	inputs = nil
	p, diags := eng.Plan(context.Background(), loadBuiltin(t, dir), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if n := len(p.Plan.Changes); n != 1 || p.Plan.Changes[0].Action != plan.NoOp {
		t.Errorf("the plan has changes %v, want tether_value.v unchanged (its input is ignored)", p.Plan.Changes)
	}
	if want := []string{"written second"}; !slices.Equal(inputs, want) {
		t.Errorf("the provider validated inputs %q, want %q: the configuration as written", inputs, want)
	}
}
