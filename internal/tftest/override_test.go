package tftest

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func TestOverrideFor(t *testing.T) {
	run := &Override{Target: "tether_file.f[1]"}
	file := &Override{Target: "tether_file.f"}
	inModule := &Override{Target: `module.m["a"].tether_file.f`}
	data := &Override{Target: "data.tether_file.d", Data: true}
	all := []*Override{run, file, inModule, data}
	for _, c := range []struct {
		addr string
		data bool
		want *Override
	}{
		{"tether_file.f[1]", false, run},
		{"tether_file.f[0]", false, file},
		{"tether_file.f", false, file},
		{"tether_file.g", false, nil},
		{`module.m["a"].tether_file.f[0]`, false, inModule},
		{`module.m["b"].tether_file.f[0]`, false, nil},
		{"data.tether_file.d", true, data},
		{"data.tether_file.d", false, nil},
	} {
		if got := overrideFor(all, c.addr, c.data); got != c.want {
			t.Errorf("overrideFor(%s, data=%v) = %v, want %v", c.addr, c.data, got, c.want)
		}
	}
}

func TestParseOverrideRefused(t *testing.T) {
	for _, c := range []struct{ name, src, summary string }{
		{"data as resource", "override_resource {\n  target = data.x_y.z\n}\n", "Invalid override target"},
		{"resource as data", "override_data {\n  target = x_y.z\n}\n", "Invalid override target"},
		{"module", "override_resource {\n  target = module.m\n}\n", "Invalid override target"},
		{"resource as module", "override_module {\n  target = x_y.z\n}\n", "Invalid override target"},
		{"outputs not object", "override_module {\n  target = module.m\n  outputs = \"x\"\n}\n", "Invalid outputs attribute"},
		{"module values", "override_module {\n  target = module.m\n  values = {}\n}\n", "Unsupported argument"},
		{"no target", "override_resource {\n}\n", "Missing target attribute"},
		{"values not object", "override_resource {\n  target = x_y.z\n  values = 1\n}\n", "Invalid values attribute"},
		{"override_during", "override_resource {\n  target = x_y.z\n  override_during = baz\n}\n", "Invalid override_during value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(c.src), "t.tftest.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			content, _ := f.Body.Content(fileSchema)
			_, diags = parseOverride(content.Blocks[0], false)
			if !diags.HasErrors() || diags[0].Summary != c.summary || diags[0].Subject == nil {
				t.Fatalf("diagnostics %v, want an error %q with a subject", diags, c.summary)
			}
		})
	}
}
