package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// instance is a provider instance that records which values of
// tether_value it created, so a test can see which configuration served
// which resource.
type instance struct {
	provider.Provider
	id      int
	mu      sync.Mutex
	created []string
}

func (i *instance) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if req.PriorState.IsNull() && req.TypeName == "tether_value" && req.Config.GetAttr("input").Type() == cty.String {
		i.mu.Lock()
		i.created = append(i.created, req.Config.GetAttr("input").AsString())
		i.mu.Unlock()
	}
	return i.Provider.ApplyResourceChange(ctx, req)
}

// recording is an engine over a configuration folder whose built-in
// provider instances record what they create.
type recording struct {
	t       *testing.T
	dir     string
	store   *state.SQLite
	schema  *provider.Schema
	engine  *engine.Engine
	mu      sync.Mutex
	started []*instance
}

func newRecording(t *testing.T, dir string) *recording {
	t.Helper()
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r := &recording{t: t, dir: dir, store: store}
	r.schema, _ = tetherprovider.New().GetSchema()
	r.engine = &engine.Engine{
		Store: store,
		Providers: provider.Factory{
			Schema: func(string) (*provider.Schema, error) { return r.schema, nil },
			Start: func(string) (provider.Provider, error) {
				r.mu.Lock()
				defer r.mu.Unlock()
				i := &instance{Provider: tetherprovider.New(), id: len(r.started)}
				r.started = append(r.started, i)
				return i, nil
			},
		},
	}
	return r
}

// load reads the folder's configuration.
func (r *recording) load() (*config.Config, hcl.Diagnostics) {
	return hclconfig.Load(r.dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): r.schema}})
}

// servedBy maps each created tether_value's input to the instance that
// created it.
func (r *recording) servedBy() map[string]int {
	out := map[string]int{}
	for _, i := range r.started {
		for _, v := range i.created {
			out[v] = i.id
		}
	}
	return out
}

// TestProviderConfigurations runs a configuration with an aliased provider
// configuration passed into modules explicitly, implicitly and through
// configuration_aliases: each configuration gets an instance of its own,
// each resource is served by the one it names, and state records the
// configuration's address as Terraform does.
func TestProviderConfigurations(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.tf": `
provider "tether" {
  alias = "b"
}

resource "tether_value" "a" {
  input = "a"
}

resource "tether_value" "b" {
  provider = tether.b
  input    = "b"
}

module "passed" {
  source    = "./mod"
  providers = { tether = tether.b }
  name      = "passed"
}

module "inherited" {
  source = "./mod"
  name   = "inherited"
}

module "aliased" {
  source = "./aliased"
  providers = {
    tether       = tether
    tether.extra = tether.b
  }
}
`,
		"mod/main.tf": `
variable "name" {}

resource "tether_value" "x" {
  input = var.name
}
`,
		"aliased/main.tf": `
terraform {
  required_providers {
    tether = {
      source                = "tetherhq/tether"
      configuration_aliases = [tether.extra]
    }
  }
}

resource "tether_value" "y" {
  provider = tether.extra
  input    = "aliased-extra"
}

resource "tether_value" "z" {
  input = "aliased-default"
}
`,
	}
	writeFiles(t, dir, files)
	r := newRecording(t, dir)
	eng, store := r.engine, r.store
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := context.Background()
	p, diags := eng.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := eng.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}

	if len(r.started) != 2 {
		t.Fatalf("started %d provider instances, want 2 (the default configuration and alias b)", len(r.started))
	}
	servedBy := r.servedBy()
	dflt, b := servedBy["a"], servedBy["b"]
	if dflt == b {
		t.Fatalf("tether_value.a and tether_value.b were created by the same instance")
	}
	for value, want := range map[string]int{"passed": b, "inherited": dflt, "aliased-extra": b, "aliased-default": dflt} {
		if got, ok := servedBy[value]; !ok || got != want {
			t.Errorf("the resource with input %q was created by instance %d, want %d", value, got, want)
		}
	}

	snap, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	def := `provider["registry.terraform.io/tetherhq/tether"]`
	for a, want := range map[string]string{
		"tether_value.a":                  def,
		"tether_value.b":                  def + ".b",
		"module.passed.tether_value.x":    def + ".b",
		"module.inherited.tether_value.x": def,
		"module.aliased.tether_value.y":   def + ".b",
		"module.aliased.tether_value.z":   def,
	} {
		obj, ok := snap.Objects[a]
		if !ok {
			t.Errorf("%s is not in state", a)
			continue
		}
		if obj.Provider != want {
			t.Errorf("%s records provider %s, want %s", a, obj.Provider, want)
		}
	}

	// What only state still names is destroyed through the configuration
	// it records: an aliased one must still be declared.
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`resource "tether_value" "a" { input = "a" }`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags = r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = eng.Plan(ctx, cfg, engine.PlanOptions{})
	said := map[string]bool{}
	for _, d := range diags {
		said[diagnostic.Address(d)+": "+d.Summary] = true
	}
	for _, a := range []string{"tether_value.b", "module.passed.tether_value.x", "module.aliased.tether_value.y"} {
		if !said[a+": Provider configuration not present"] {
			t.Errorf("planning without the aliased configuration: no error that %s's is not present; got %v", a, diags)
		}
	}
	// With nothing declared at all, the default configuration is implied
	// so that destroy can proceed; the alias is still needed.
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("provider \"tether\" {\n  alias = \"b\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags = r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	res := up(t, eng, cfg)
	if res.Destroyed != 6 {
		t.Errorf("destroyed %d objects, want 6", res.Destroyed)
	}
}

// TestProviderForEach runs a provider configuration repeated with
// for_each, beyond Terraform: one provider instance per key, each
// resource instance served by the one its key names, state recording the
// instance's key; and a for_each known only after apply defers the
// configuration and what it serves to the next round.
func TestProviderForEach(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`
resource "tether_random" "r" {
  length = 4
}

provider "tether" {
  alias    = "by_region"
  for_each = toset([for s in ["east", "west"] : "${s}${substr(tether_random.r.result, 0, 0)}"])
}

resource "tether_value" "v" {
  for_each = toset(["east", "west"])
  provider = tether.by_region[each.key]
  input    = each.key
}
`)
	r := newRecording(t, dir)
	eng, store := r.engine, r.store
	ctx := context.Background()
	round := func() *engine.Planned {
		t.Helper()
		cfg, diags := r.load()
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p, diags := eng.Plan(ctx, cfg, engine.PlanOptions{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if _, diags := eng.Apply(ctx, p); diags.HasErrors() {
			t.Fatal(diags)
		}
		return p
	}
	first := round()
	if len(first.Plan.Deferred) != 1 || first.Plan.Deferred[0].Addr != "tether_value.v[*]" {
		t.Fatalf("the first round defers %v, want tether_value.v[*] (its provider's for_each is known only after apply)", first.Plan.Deferred)
	}
	second := round()
	if len(second.Plan.Deferred) != 0 {
		t.Fatalf("the second round still defers %v", second.Plan.Deferred)
	}
	servedBy := r.servedBy()
	if servedBy["east"] == servedBy["west"] {
		t.Errorf("east and west were created by the same provider instance %d", servedBy["east"])
	}
	snap, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		`tether_value.v["east"]`: `provider["registry.terraform.io/tetherhq/tether"].by_region["east"]`,
		`tether_value.v["west"]`: `provider["registry.terraform.io/tetherhq/tether"].by_region["west"]`,
	} {
		if obj := snap.Objects[key]; obj == nil || obj.Provider != want {
			t.Errorf("%s records provider %v, want %s", key, obj, want)
		}
	}

	// A resource naming a key the configuration does not have is an error
	// at plan.
	write(`
resource "tether_random" "r" {
  length = 4
}

provider "tether" {
  alias    = "by_region"
  for_each = toset([for s in ["east", "west"] : "${s}${substr(tether_random.r.result, 0, 0)}"])
}

resource "tether_value" "v" {
  for_each = toset(["east", "west", "north"])
  provider = tether.by_region[each.key]
  input    = each.key
}
`)
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = eng.Plan(ctx, cfg, engine.PlanOptions{})
	if !diags.HasErrors() || diags[0].Summary != "Provider instance not present" || diagnostic.Address(diags[0]) != `tether_value.v["north"]` {
		t.Errorf("a key the provider does not have: got %v", diags)
	}
}

// TestProviderForEachIntoModules passes one instance of a repeated
// provider configuration to each instance of a module called with the
// same for_each: the multi-region module, which Terraform cannot express.
func TestProviderForEachIntoModules(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `
locals {
  regions = toset(["east", "west"])
}

provider "tether" {
  alias    = "by_region"
  for_each = local.regions
}

module "region" {
  source    = "./region"
  for_each  = local.regions
  providers = { tether = tether.by_region[each.key] }
  name      = each.key
}
`,
		"region/main.tf": `
variable "name" {}

resource "tether_value" "v" {
  input = var.name
}
`,
	})
	r := newRecording(t, dir)
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := context.Background()
	p, diags := r.engine.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := r.engine.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}
	served := r.servedBy()
	if served["east"] == served["west"] {
		t.Errorf("both regions were created by provider instance %d", served["east"])
	}
	snap, err := r.store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"east", "west"} {
		a := `module.region["` + k + `"].tether_value.v`
		want := `provider["registry.terraform.io/tetherhq/tether"].by_region["` + k + `"]`
		if obj := snap.Objects[a]; obj == nil || obj.Provider != want {
			t.Errorf("%s records provider %v, want %s", a, obj, want)
		}
	}
}

// up plans cfg and applies the plan, as `tether up --yes` does.
func up(t *testing.T, eng *engine.Engine, cfg *config.Config) *engine.Result {
	t.Helper()
	ctx := context.Background()
	p, diags := eng.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	res, diags := eng.Apply(ctx, p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return res
}

// writeFiles writes a configuration's files, by path relative to dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestProviderForEachThroughModules passes one instance of a repeated
// provider configuration to each instance of a module, which passes it on
// to its own children: explicitly (providers = { tether = tether }), by
// inheritance (no providers argument), and down again to a grandchild
// called with count. Every object is served by its region's instance.
// Terraform has no for_each on providers; passing a configuration on to
// children, explicitly or by inheritance, is its rule, and the
// differential scenario provider_modules compares the results with an
// alias per region.
func TestProviderForEachThroughModules(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.tf": `
locals {
  regions = toset(["east", "west"])
}

provider "tether" {
  alias    = "by_region"
  for_each = local.regions
}

module "region" {
  source    = "./region"
  for_each  = local.regions
  providers = { tether = tether.by_region[each.key] }
  name      = each.key
}
`,
		"region/main.tf": `
variable "name" {}

resource "tether_value" "v" {
  input = var.name
}

module "explicit" {
  source    = "./child"
  providers = { tether = tether }
  name      = "${var.name}-explicit"
}

module "inherited" {
  source = "./child"
  name   = "${var.name}-inherited"
}
`,
		"region/child/main.tf": `
variable "name" {}

resource "tether_value" "v" {
  input = var.name
}

module "grandchild" {
  source = "./grandchild"
  count  = 2
  name   = "${var.name}-${count.index}"
}
`,
		"region/child/grandchild/main.tf": `
variable "name" {}

resource "tether_value" "v" {
  input = var.name
}
`,
	})
	r := newRecording(t, dir)
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := context.Background()
	p, diags := r.engine.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := r.engine.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}
	snap, err := r.store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range []string{"east", "west"} {
		region := `module.region["` + k + `"]`
		want = append(want, region+".tether_value.v")
		for _, child := range []string{"explicit", "inherited"} {
			want = append(want, region+".module."+child+".tether_value.v")
			for i := range 2 {
				want = append(want, fmt.Sprintf("%s.module.%s.module.grandchild[%d].tether_value.v", region, child, i))
			}
		}
	}
	for _, a := range want {
		k := "east"
		if strings.Contains(a, "west") {
			k = "west"
		}
		prov := `provider["registry.terraform.io/tetherhq/tether"].by_region["` + k + `"]`
		if obj := snap.Objects[a]; obj == nil || obj.Provider != prov {
			t.Errorf("%s records provider %v, want %s", a, obj, prov)
		}
	}
	if len(snap.Objects) != len(want) {
		t.Errorf("state holds %d objects, want %d", len(snap.Objects), len(want))
	}
}

// TestSchemaAskedOncePerProvider checks that planning many resources of
// one provider asks for its schema once: asking parses the provider's
// source address each time, once per resource before.
func TestSchemaAskedOncePerProvider(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	for i := range 5 {
		fmt.Fprintf(&body, "resource \"tether_value\" \"r%d\" {\n  input = \"v%d\"\n}\n", i, i)
	}
	writeFiles(t, dir, map[string]string{"main.tf": body.String()})
	r := newRecording(t, dir)
	var mu sync.Mutex
	asked := map[string]int{}
	r.engine.Providers.Schema = func(source string) (*provider.Schema, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[source]++
		return r.schema, nil
	}
	cfg, diags := r.load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := r.engine.Plan(context.Background(), cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if n := len(p.Plan.Changes); n != 5 {
		t.Fatalf("%d changes planned, want 5", n)
	}
	if len(asked) != 1 || asked[config.BuiltinSource.String()] != 1 {
		t.Errorf("schemas asked for: %v, want the built-in provider's once", asked)
	}
}

// builtinEngine is an engine on a new SQLite state in dir whose built-in
// provider instances are made by wrap, each given a new built-in provider
// (a test's counting wrapper around it), with that provider's schema.
func builtinEngine(t *testing.T, dir string, wrap func(provider.Provider) provider.Provider) *engine.Engine {
	t.Helper()
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	schema, _ := tetherprovider.New().GetSchema()
	return &engine.Engine{
		Store: store,
		Providers: provider.Factory{
			Schema: func(string) (*provider.Schema, error) { return schema, nil },
			Start:  func(string) (provider.Provider, error) { return wrap(tetherprovider.New()), nil },
		},
	}
}

// loadBuiltin loads the configuration in dir with the built-in provider's
// schema.
func loadBuiltin(t *testing.T, dir string) *config.Config {
	t.Helper()
	schema, _ := tetherprovider.New().GetSchema()
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return cfg
}
