package sdk

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/synth"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// TestSynthKeepsBindingsVersion: the version a provider's bindings were
// generated from, which the program installs, is the version constraint
// synth writes in required_providers, as an HCL root's constraint is.
func TestSynthKeepsBindingsVersion(t *testing.T) {
	schema, _ := tetherprovider.New().GetSchema()
	st := newStack(cli.LoadInput{Schema: func(config.ProviderRequirement) (*provider.Schema, error) { return schema, nil }})
	versioned := &Type{Provider: "tether", Source: "registry.terraform.io/tetherhq/tether", Version: "0.1.0", Name: "tether_value", Func: "test.NewValue"}
	if diags := st.build(ProgramOf(func(s *Stack) error {
		var v Resource
		Declare(s, &v, versioned, "v", struct{}{})
		return nil
	})); len(diags) > 0 {
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
