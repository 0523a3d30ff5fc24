package tether

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/synth"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

var tfValueType = &Type{Provider: "tether", Name: "tether_value", Func: "test.NewValue"}

// TestApplyUnderTerraform runs a program as provider::tether::apply does:
// the program builds its configuration again, finds the Apply by the id
// synth wrote and computes its result from the inputs on stdin.
func TestApplyUnderTerraform(t *testing.T) {
	build := func(st *Stack) error {
		var v Resource
		Declare(st, &v, tfValueType, "v", struct{}{})
		id := Attr[string](&v, "id")
		Apply(id, func(s string) int { return len(strings.Fields(s)) }) // line 19
		for i := 0; i < 2; i++ {
			Apply2(id, Val(i), func(s string, n int) string { return strings.Repeat(s, n+1) }) // line 21
		}
		All(id, id)
		return nil
	}
	for _, c := range []struct {
		id, stdin string
		code      int
		stdout    string
		stderr    string
	}{
		{id: "synth_apply_test.go:19", stdin: `[{"value":"a b c","type":"string"}]`, stdout: `{"value":3,"type":"number"}`},
		{id: "synth_apply_test.go:21", stdin: `[{"value":"ab","type":"string"},{"value":0,"type":"number"}]`, stdout: `{"value":"ab","type":"string"}`},
		{id: "synth_apply_test.go:21#2", stdin: `[{"value":"ab","type":"string"},{"value":1,"type":"number"}]`, stdout: `{"value":"abab","type":"string"}`},
		{id: "synth_apply_test.go:23", stdin: `[{"value":"x","type":"string"},{"value":"y","type":"string"}]`, stdout: `{"value":["x","y"],"type":["list","string"]}`},
		{id: "synth_apply_test.go:99", stdin: `[]`, code: 2, stderr: "makes no tether.Apply call synth_apply_test.go:99; it makes [synth_apply_test.go:19 synth_apply_test.go:21 synth_apply_test.go:21#2 synth_apply_test.go:23]"},
		{id: "synth_apply_test.go:19", stdin: `{}`, code: 2, stderr: "are not a JSON array"},
		{id: "synth_apply_test.go:19", stdin: `[{"value":{"a":1},"type":["object",{"a":"number"}]}]`, code: 1, stderr: "does not fit string"},
	} {
		t.Run(c.id+" "+c.stdin, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runApply(c.id, build, strings.NewReader(c.stdin), &out, &errOut)
			if code != c.code || out.String() != c.stdout || !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
		})
	}
}

// TestSynthKeepsBindingsVersion: the version a provider's bindings were
// generated from, which the program installs, is the version constraint
// synth writes in required_providers, as an HCL root's constraint is.
func TestSynthKeepsBindingsVersion(t *testing.T) {
	schema, _ := tetherprovider.New().GetSchema()
	st := newStack(cli.LoadInput{Schema: func(config.ProviderRequirement) (*provider.Schema, error) { return schema, nil }})
	versioned := &Type{Provider: "tether", Source: "registry.terraform.io/tetherhq/tether", Version: "0.1.0", Name: "tether_value", Func: "test.NewValue"}
	if diags := st.build(func(s *Stack) error {
		var v Resource
		Declare(s, &v, versioned, "v", struct{}{})
		return nil
	}); len(diags) > 0 {
		t.Fatal(diags)
	}
	cfg, diags := st.seal()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	files, diags := synth.Files(cfg, "out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var doc struct {
		Terraform struct {
			RequiredProviders map[string]map[string]string `json:"required_providers"`
		} `json:"terraform"`
	}
	if err := json.Unmarshal(files[synth.FileName], &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"source": "tetherhq/tether", "version": "0.1.0"}
	if got := doc.Terraform.RequiredProviders["tether"]; !reflect.DeepEqual(got, want) {
		t.Errorf("required_providers.tether is %v, want %v:\n%s", got, want, files[synth.FileName])
	}
}
