package engine_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
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
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	schema, _ := tetherprovider.New().GetSchema()
	var mu sync.Mutex
	calls := map[int64]int{}
	eng := &engine.Engine{
		Store: store,
		Providers: provider.Factory{
			Schema: func(string) (*provider.Schema, error) { return schema, nil },
			Start: func(string) (provider.Provider, error) {
				return &validating{Provider: tetherprovider.New(), mu: &mu, calls: calls, warnAt: 4}, nil
			},
		},
	}
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
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
