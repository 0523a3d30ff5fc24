package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/engine"
)

// TestModuleOverrides: a test's override_module stands in for the module
// instances it targets: nothing in them is planned, and their outputs are
// the override's (null where it sets none); the other instances are
// planned as written.
func TestModuleOverrides(t *testing.T) {
	f := newFixture(t, `
module "m" {
  source   = "./m"
  for_each = toset(["a", "b"])
}

output "o" {
  value = { for k, m in module.m : k => m.o }
}
`)
	if err := os.MkdirAll(filepath.Join(f.dir, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "m", "main.tf"), []byte(`
resource "tether_value" "v" {
  input = "real"
}

output "o" {
  value = tether_value.v.input
}

output "unset" {
  value = 1
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(f.dir)
	p, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{ModuleOverrides: map[string]cty.Value{
		`module.m["a"]`: cty.ObjectVal(map[string]cty.Value{"o": cty.StringVal("given")}),
	}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var planned []string
	for _, c := range p.Plan.Changes {
		planned = append(planned, c.Addr)
	}
	if len(planned) != 1 || planned[0] != `module.m["b"].tether_value.v` {
		t.Errorf("planned %q, want only module.m[\"b\"].tether_value.v", planned)
	}
	want := cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("given"), "b": cty.StringVal("real")})
	if got := p.RootScope().Value("output.o"); !got.RawEquals(want) {
		t.Errorf("output.o = %#v, want %#v", got, want)
	}
}
