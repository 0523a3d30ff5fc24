package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// fixture is a configuration folder with its state and an engine that
// records what it reports while applying.
type fixture struct {
	t      *testing.T
	dir    string
	store  *state.SQLite
	engine *engine.Engine
	mu     sync.Mutex
	events []plan.Event
}

func newFixture(t *testing.T, tf string) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p := tetherprovider.New()
	f := &fixture{t: t, dir: dir, store: store}
	f.engine = &engine.Engine{
		Providers: provider.Only(config.BuiltinSource.String(), func() provider.Provider { return p }),
		Store:     store,
		Events: func(e plan.Event) {
			f.mu.Lock()
			f.events = append(f.events, e)
			f.mu.Unlock()
		},
	}
	return f
}

func (f *fixture) config() *config.Config {
	f.t.Helper()
	schema, _ := f.engine.Providers.Schema(config.BuiltinSource.String())
	cfg, diags := hclconfig.Load(f.dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		f.t.Fatal(diags)
	}
	return cfg
}

func (f *fixture) run(destroy bool) *engine.Result {
	f.t.Helper()
	ctx := context.Background()
	p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{Destroy: destroy})
	if diags.HasErrors() {
		f.t.Fatal(diags)
	}
	res, diags := f.engine.Apply(ctx, p)
	if diags.HasErrors() {
		f.t.Fatal(diags)
	}
	return res
}

// position returns the index in the event log of an address's event of a
// phase, or -1. The plan's refreshes (no-op events) are not operations
// whose order the tests check.
func (f *fixture) position(addr string, phase plan.Phase) int {
	for i, e := range f.events {
		if e.Addr == addr && e.Phase == phase && e.Action != plan.NoOp {
			return i
		}
	}
	return -1
}

func (f *fixture) before(a string, aPhase plan.Phase, b string, bPhase plan.Phase) {
	f.t.Helper()
	i, j := f.position(a, aPhase), f.position(b, bPhase)
	if i < 0 || j < 0 || i > j {
		f.t.Errorf("%s (%v) did not come before %s (%v): events %+v", a, aPhase, b, bPhase, f.events)
	}
}

// TestPlanReportsRefreshes: a plan reads each recorded object back and says
// so, with the object's id, as Terraform's "Refreshing state..." does; a
// plan with -refresh=false reads nothing.
func TestPlanReportsRefreshes(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "a" {
  input = "a"
}
`)
	f.run(false)
	id := ""
	for _, e := range f.events {
		if e.Action == plan.Create && e.Phase == plan.Succeeded {
			id = e.ID
		}
	}
	if id == "" {
		t.Fatalf("no id in the create's events %+v", f.events)
	}
	for _, skip := range []bool{false, true} {
		f.events = nil
		if _, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{SkipRefresh: skip}); diags.HasErrors() {
			t.Fatal(diags)
		}
		var got []string
		for _, e := range f.events {
			got = append(got, fmt.Sprintf("%s %v %v %s", e.Addr, e.Action, e.Phase, e.ID))
		}
		want := []string{
			fmt.Sprintf("tether_value.a %v %v %s", plan.NoOp, plan.Started, id),
			fmt.Sprintf("tether_value.a %v %v %s", plan.NoOp, plan.Succeeded, id),
		}
		if skip {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("refresh=%v: events %q, want %q", !skip, got, want)
		}
	}
}

func TestDependsOnOrdersWorkTheValuesDoNotShow(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "slow" {
  input    = "first"
  delay_ms = 100
}

resource "tether_value" "after" {
  input      = "second"
  depends_on = [tether_value.slow]
}
`)
	f.run(false)
	f.before("tether_value.slow", plan.Succeeded, "tether_value.after", plan.Started)
}

func TestDestroyRemovesDependentsFirst(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "base" {
  input = "base"
}

resource "tether_value" "middle" {
  input = tether_value.base.output
}

locals {
  through = tether_value.middle.id
}

resource "tether_value" "top" {
  input = local.through
}
`)
	f.run(false)
	f.events = nil
	res := f.run(true)
	if res.Destroyed != 3 {
		t.Fatalf("destroyed %d objects, want 3", res.Destroyed)
	}
	// The dependency through a local value counts too.
	f.before("tether_value.top", plan.Succeeded, "tether_value.middle", plan.Started)
	f.before("tether_value.middle", plan.Succeeded, "tether_value.base", plan.Started)
	snap, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 0 {
		t.Fatalf("state still holds %d objects after destroy", len(snap.Objects))
	}
}

func TestIndependentWorkOverlaps(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "v" {
  count    = 8
  input    = count.index
  delay_ms = 50
}
`)
	f.engine.Parallelism = 8
	f.run(false)
	// Some operation must start before another one finishes: with eight
	// independent 50 ms operations and room for eight at once, a serial
	// engine would show every Started right after the previous Succeeded.
	inFlight, most := 0, 0
	for _, e := range f.events {
		switch e.Phase {
		case plan.Started:
			inFlight++
			most = max(most, inFlight)
		case plan.Succeeded, plan.Failed:
			inFlight--
		}
	}
	if most < 2 {
		t.Fatalf("at most %d operations ran at once, want overlap: %+v", most, f.events)
	}
}

func TestPlanWritesNothing(t *testing.T) {
	f := newFixture(t, `
resource "tether_file" "f" {
  path    = "out.txt"
  content = "x"
}
`)
	t.Chdir(f.dir)
	if _, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{}); diags.HasErrors() {
		t.Fatal(diags)
	}
	snap, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 0 || len(snap.Outputs) != 0 {
		t.Fatalf("plan recorded %d objects", len(snap.Objects))
	}
	if _, err := os.Stat(filepath.Join(f.dir, "out.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan created the file: %v", err)
	}
}

func TestCancelledApplyKeepsCompletedWork(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "first" {
  input = "done before the interrupt"
}

resource "tether_value" "second" {
  input      = tether_value.first.output
  delay_ms   = 10
}

resource "tether_value" "third" {
  input = tether_value.second.output
}
`)
	ctx, cancel := context.WithCancel(context.Background())
	p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f.engine.Events = func(e plan.Event) {
		if e.Addr == "tether_value.first" && e.Phase == plan.Succeeded {
			cancel()
		}
	}
	_, diags = f.engine.Apply(ctx, p)
	if !diags.HasErrors() {
		t.Fatal("an interrupted apply reported success")
	}
	snap, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Objects["tether_value.first"]; !ok {
		t.Fatal("the operation completed before the interrupt was not recorded")
	}
	if _, ok := snap.Objects["tether_value.third"]; ok {
		t.Fatal("work after the interrupt ran")
	}
}
