package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/canary"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// echoing is the built-in provider with a provider setting its schema
// does not mark sensitive, token, and a data source, tether_echoed, whose
// result repeats it hex-encoded: a careless provider.
type echoing struct {
	provider.Provider
	token string
}

func (p *echoing) GetSchema() (*provider.Schema, hcl.Diagnostics) {
	s, d := p.Provider.GetSchema()
	out := *s
	out.Provider = &provider.Block{Attributes: map[string]*provider.Attribute{
		"token": {Type: cty.String, Optional: true},
	}}
	out.DataSources = provider.NewTypes(map[string]*provider.ResourceSchema{
		"tether_echoed": {Block: &provider.Block{Attributes: map[string]*provider.Attribute{
			"echo": {Type: cty.String, Computed: true},
		}}},
	})
	return &out, d
}

func (p *echoing) ValidateProviderConfig(cty.Value) hcl.Diagnostics           { return nil }
func (p *echoing) ValidateDataSourceConfig(string, cty.Value) hcl.Diagnostics { return nil }

func (p *echoing) ConfigureProvider(_ context.Context, c cty.Value) hcl.Diagnostics {
	if t := c.GetAttr("token"); !t.IsNull() {
		p.token = t.AsString()
	}
	return nil
}

func (p *echoing) ReadDataSource(_ context.Context, _ provider.ReadDataRequest) provider.ReadDataResponse {
	return provider.ReadDataResponse{State: cty.ObjectVal(map[string]cty.Value{
		"echo": cty.StringVal("token " + hexOf(p.token)),
	})}
}

func hexOf(s string) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(s))
	for _, c := range []byte(s) {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestDataSourceEchoOfProviderSecret reads a data source whose result
// encodes a secret of its provider's configuration, from a sensitive
// variable or an ephemeral one: by the rule for derived values the
// result is sensitive, so state seals it and nothing in the state folder
// holds the secret in any form.
func TestDataSourceEchoOfProviderSecret(t *testing.T) {
	const secret = "CANARY-echoed-0b7d2e95c1"
	for _, kind := range []string{"sensitive", "ephemeral"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"main.tf": `
variable "tok" {
  type    = string
  default = "` + secret + `"
  ` + kind + ` = true
}

provider "tether" {
  token = var.tok
}

data "tether_echoed" "e" {}
`})
			store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			p := &echoing{Provider: tetherprovider.New()}
			schema, _ := p.GetSchema()
			keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
			if err != nil {
				t.Fatal(err)
			}
			eng := &engine.Engine{
				Providers: provider.Only(config.BuiltinSource.String(), func() provider.Provider { return p }),
				Store:     store,
				Keys:      keys,
			}
			cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			planned, diags := eng.Plan(context.Background(), cfg, engine.PlanOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if v := planned.RootScope().Value("data.tether_echoed.e"); !marks.ContainsSensitive(v) {
				t.Errorf("the data source's result is not sensitive: %#v", v)
			}
			if _, diags := eng.Apply(context.Background(), planned); diags.HasErrors() {
				t.Fatal(diags)
			}
			store.Close()
			leaks, err := canary.ScanDir(filepath.Join(dir, ".tether"), []string{secret})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range leaks {
				t.Error(l)
			}
		})
	}
}

// TestSensitiveLaterIsSealed applies a file whose content comes from a
// variable, then marks the variable sensitive: nothing changes, yet what
// state recorded in clear (the content and the provider's SHA-256 of it)
// is sealed by the next apply, as Terraform records the new sensitivity:
// the rule for derived values marks the SHA-256 now.
func TestSensitiveLaterIsSealed(t *testing.T) {
	const secret = "CANARY-later-8d13f06a2e"
	out := filepath.Join(t.TempDir(), "f.txt")
	config := func(sensitive bool) string {
		return fmt.Sprintf(`
variable "pw" {
  default   = %q
  sensitive = %v
}

resource "tether_file" "f" {
  path    = %q
  content = var.pw
}
`, secret, sensitive, out)
	}
	f := newFixture(t, config(false))
	keys, err := secrets.New(bytes.Repeat([]byte{7}, 32), "test")
	if err != nil {
		t.Fatal(err)
	}
	f.engine.Keys = keys
	f.run(false)
	writeFiles(t, f.dir, map[string]string{"main.tf": config(true)})
	// As in Terraform, an update of state alone: a plan of no change
	// would not be applied by up, and the clear record would stay.
	planned, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if c := planned.Plan.Changes; len(c) != 1 || c[0].Action != plan.Update {
		t.Errorf("the plan once the variable is sensitive: %+v, want an update of tether_file.f", c)
	}
	f.run(false)
	// No byte of the clear record is left: not in the file's freed
	// space, not in the write-ahead log, with the store still open as a
	// killed run leaves it.
	leaks, err := canary.ScanDir(filepath.Join(f.dir, ".tether"), []string{secret})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Error(l)
	}
	snap, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	obj := snap.Objects["tether_file.f"]
	if obj == nil || !secrets.IsSealed(obj.Value) {
		t.Fatalf("tether_file.f is not sealed: %s", obj.Value)
	}
	// Sealed once: the next apply has nothing to record.
	f.run(false)
	again, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again.Serial != snap.Serial {
		t.Errorf("an apply with nothing to do wrote state (serial %d, then %d)", snap.Serial, again.Serial)
	}
}
