package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// These measure the engine in process, with the built-in provider and a
// real SQLite state in a temporary folder: everything `tether up` does
// except parsing flags and printing. `go run ./bench` measures the command
// itself against Terraform.
//
// The 100,000-resource cases take tens of seconds an iteration; they run
// only with TETHER_BENCH_100K=1, e.g. to profile:
//
//	TETHER_BENCH_100K=1 go test ./internal/engine -run '^$' -bench 'Wide/apply/n=100000' \
//	    -benchtime 1x -cpuprofile cpu.out -memprofile mem.out

// benchEnv is a loaded configuration and an engine on a fresh state.
type benchEnv struct {
	cfg    *config.Config
	eng    *engine.Engine
	store  *state.SQLite
	schema *provider.Schema
	prov   provider.Provider
}

func newBenchEnv(b *testing.B, tf string) *benchEnv {
	b.Helper()
	prov := tetherprovider.New()
	schema, diags := prov.GetSchema()
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	e := &benchEnv{cfg: cfg, schema: schema, prov: prov}
	e.openStore(b)
	return e
}

// openStore gives the engine a new, empty state.
func (e *benchEnv) openStore(b *testing.B) {
	b.Helper()
	if e.store != nil {
		e.store.Close()
	}
	store, err := state.OpenSQLite(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	e.store = store
	e.eng = &engine.Engine{
		Providers: provider.Only(config.BuiltinSource.String(), func() provider.Provider { return e.prov }),
		Store:     store,
	}
}

func (e *benchEnv) plan(b *testing.B, opts engine.PlanOptions) *engine.Planned {
	planned, diags := e.eng.Plan(context.Background(), e.cfg, opts)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	return planned
}

func (e *benchEnv) apply(b *testing.B, n int) {
	planned := e.plan(b, engine.PlanOptions{})
	res, diags := e.eng.Apply(context.Background(), planned)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	if res.Added != n {
		b.Fatalf("added %d, want %d", res.Added, n)
	}
}

func wideConfig(n int) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "resource \"tether_value\" \"r%d\" {\n  input = \"v%d\"\n}\n\n", i, i)
	}
	return sb.String()
}

// BenchmarkPlanOneResource is a no-op plan, with refresh, of one resource
// already applied: load state, build and walk the graph, read the object
// back, evaluate its configuration and ask the provider for the diff.
func BenchmarkPlanOneResource(b *testing.B) {
	e := newBenchEnv(b, wideConfig(1))
	e.apply(b, 1)
	b.ReportAllocs()
	for b.Loop() {
		p := e.plan(b, engine.PlanOptions{})
		if p.Plan.HasChanges() {
			b.Fatal("plan has changes")
		}
	}
}

// BenchmarkApplyOneResource plans and applies one new resource: the
// per-resource cost of a create, including its durable commit.
func BenchmarkApplyOneResource(b *testing.B) {
	e := newBenchEnv(b, wideConfig(1))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		e.openStore(b)
		b.StartTimer()
		e.apply(b, 1)
	}
}

// BenchmarkWide plans and applies N independent resources from an empty
// state ("apply"), and plans them again with refresh when nothing changed
// ("plan").
func BenchmarkWide(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("TETHER_BENCH_100K") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("apply/n=%d", n), func(b *testing.B) {
			e := newBenchEnv(b, wideConfig(n))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				e.openStore(b)
				b.StartTimer()
				e.apply(b, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/resource")
		})
		b.Run(fmt.Sprintf("plan/n=%d", n), func(b *testing.B) {
			e := newBenchEnv(b, wideConfig(n))
			e.apply(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if p := e.plan(b, engine.PlanOptions{}); p.Plan.HasChanges() {
					b.Fatal("plan has changes")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/resource")
		})
	}
}
