package hclconfig_test

import (
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/hclconfig"
)

// TestRefKeys checks which references name instances by a constant key
// (config.Node.RefKeys), as Terraform's apply graph tells them apart for
// -target: every reference with one, or the resource as a whole.
func TestRefKeys(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.tf": `
resource "tether_value" "x" {
  for_each = { a = 1, b = 2 }
  input    = each.key
}
resource "tether_value" "c" {
  count = 2
  input = "c"
}
locals {
  one   = tether_value.x["a"].output
  two   = [tether_value.x["a"].output, tether_value.x["b"].output, tether_value.c[1].output]
  mixed = [tether_value.x["a"].output, tether_value.x]
  whole = [for k, v in tether_value.x : v.output]
  dyn   = tether_value.x[local.one].output
}
`})
	cfg, diags := hclconfig.Load(dir, builtinOptions(t))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	keys := func(vs []cty.Value) []string {
		var out []string
		for _, v := range vs {
			out = append(out, addr.KeyString(v))
		}
		return out
	}
	want := map[string]map[string][]string{
		"local.one":   {"tether_value.x": {`["a"]`}},
		"local.two":   {"tether_value.x": {`["a"]`, `["b"]`}, "tether_value.c": {"[1]"}},
		"local.mixed": {},
		"local.whole": {},
		"local.dyn":   {},
	}
	for _, n := range cfg.Nodes {
		w, ok := want[n.Addr]
		if !ok {
			continue
		}
		t.Run(n.Addr, func(t *testing.T) {
			if len(n.RefKeys) != len(w) {
				t.Errorf("RefKeys = %v, want %v", n.RefKeys, w)
			}
			for a, ks := range w {
				if got := keys(n.RefKeys[a]); !slices.Equal(got, ks) {
					t.Errorf("RefKeys[%s] = %v, want %v", a, got, ks)
				}
			}
		})
	}
}
