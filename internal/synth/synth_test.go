package synth

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
)

// body is a node's Terraform form given as JSON text.
func body(text string) config.TerraformFunc {
	return func() (any, hcl.Diagnostics) {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			panic(err)
		}
		return v, nil
	}
}

const tetherSource = "registry.terraform.io/tetherhq/tether"

// TestModulesPassValues checks the plumbing between a Go program's
// components: a value read across modules goes up through outputs and
// down through variables, each module referring to its own.
func TestModulesPassValues(t *testing.T) {
	cfg := &config.Config{Nodes: []*config.Node{
		{Kind: config.Resource, Addr: "tether_random.r", Type: "tether_random", Name: "r", Source: tetherSource,
			Terraform: body(`{"length": 8}`)},
		{Kind: config.Module, Addr: "module.a", Name: "a", Terraform: body(`{}`)},
		{Kind: config.Module, Addr: "module.a.module.b", Module: "module.a", Name: "b", Terraform: body(`{}`)},
		{Kind: config.Resource, Addr: "module.a.module.b.tether_file.f", Module: "module.a.module.b", Type: "tether_file", Name: "f", Source: tetherSource,
			Terraform: body(`{"path": "out/f", "content": "x${tether_random.r.result}"}`)},
		{Kind: config.Resource, Addr: "module.a.tether_file.g", Module: "module.a", Type: "tether_file", Name: "g", Source: tetherSource,
			Terraform: body(`{"path": "out/g", "content": "${module.a.module.b.tether_file.f.sha256}", "depends_on": ["module.a.module.b"]}`)},
		{Kind: config.Output, Addr: "output.f", Name: "f", Terraform: body(`{"value": "${module.a.module.b.tether_file.f.path} $${literal}"}`)},
	}}
	files, diags := Files(cfg, t.TempDir())
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := map[string]string{
		"main.tf.json": `{"module":{"a":{"source":"./modules/a","tether_random_r_result":"${tether_random.r.result}"}},` +
			`"output":{"f":{"value":"${module.a.module_a_module_b_tether_file_f_path} $${literal}"}},` +
			`"resource":{"tether_random":{"r":{"length":8}}},"terraform":{"required_providers":{"tether":{"source":"tetherhq/tether"}}}}`,
		"modules/a/main.tf.json": `{"module":{"b":{"source":"./modules/b","tether_random_r_result":"${var.tether_random_r_result}"}},` +
			`"output":{"module_a_module_b_tether_file_f_path":{"value":"${module.b.module_a_module_b_tether_file_f_path}"}},` +
			`"resource":{"tether_file":{"g":{"content":"${module.b.module_a_module_b_tether_file_f_sha256}","depends_on":["module.b"],"path":"out/g"}}},` +
			`"terraform":{"required_providers":{"tether":{"source":"tetherhq/tether"}}},"variable":{"tether_random_r_result":{}}}`,
		"modules/a/modules/b/main.tf.json": `{"output":{"module_a_module_b_tether_file_f_path":{"value":"${tether_file.f.path}"},` +
			`"module_a_module_b_tether_file_f_sha256":{"value":"${tether_file.f.sha256}"}},` +
			`"resource":{"tether_file":{"f":{"content":"x${var.tether_random_r_result}","path":"out/f"}}},` +
			`"terraform":{"required_providers":{"tether":{"source":"tetherhq/tether"}}},"variable":{"tether_random_r_result":{}}}`,
	}
	for name, w := range want {
		got, ok := files[name]
		if !ok {
			t.Errorf("no %s among %v", name, keys(files))
			continue
		}
		var v any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compact, _ := json.Marshal(v)
		if string(compact) != w {
			t.Errorf("%s:\ngot  %s\nwant %s", name, compact, w)
		}
	}
	if len(files) != len(want) {
		t.Errorf("files %v, want %d", keys(files), len(want))
	}
}

// TestRefusals checks that what cannot be written is an error naming it.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name string
		cfg  *config.Config
		want string
	}{
		{"no form", &config.Config{Nodes: []*config.Node{{Kind: config.Resource, Addr: "tether_file.a", Type: "tether_file", Name: "a"}}},
			"tether_file.a cannot be written as Terraform JSON"},
		{"depends_on across modules", &config.Config{Nodes: []*config.Node{
			{Kind: config.Resource, Addr: "tether_file.a", Type: "tether_file", Name: "a", Terraform: body(`{}`)},
			{Kind: config.Module, Addr: "module.m", Name: "m", Terraform: body(`{}`)},
			{Kind: config.Resource, Addr: "module.m.tether_file.b", Module: "module.m", Type: "tether_file", Name: "b", Terraform: body(`{"depends_on": ["tether_file.a"]}`)},
		}}, "it depends on tether_file.a, in another module"},
		{"import", &config.Config{Imports: []config.Import{{To: "tether_file.a"}}}, "The import into tether_file.a cannot be written"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Files(c.cfg, t.TempDir())
			if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", diags, c.want)
			}
		})
	}
}

func keys(m map[string][]byte) []string { return sortedKeys(m) }
