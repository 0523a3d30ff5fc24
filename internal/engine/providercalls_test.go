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
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// destroyPlanner records the PlanResourceChange requests that propose
// deleting an object, and refuses them when refuse is set.
type destroyPlanner struct {
	provider.Provider
	*destroyLog
}

type destroyLog struct {
	refuse bool
	mu     sync.Mutex
	seen   []provider.PlanRequest
}

func (d *destroyPlanner) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	if !req.ProposedNewState.IsNull() {
		return d.Provider.PlanResourceChange(ctx, req)
	}
	d.mu.Lock()
	d.seen = append(d.seen, req)
	d.mu.Unlock()
	if d.refuse {
		return provider.PlanResponse{Diagnostics: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Deletion protected"}}}
	}
	return provider.PlanResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}
}

// As Terraform's planDestroy does, each object a plan deletes (in a
// destroy, or an orphan left out of the configuration) is first planned
// with the provider, with null configuration and proposed new state, so
// that the provider can refuse it.
func TestDestroyIsPlannedWithTheProvider(t *testing.T) {
	for _, tc := range []struct {
		name    string
		destroy bool
	}{
		{"destroy", true},
		{"orphan", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, `
resource "tether_value" "a" {
  input = "a"
}
`)
			f.run(false)
			if !tc.destroy {
				if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte("\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := f.config()
			for _, refuse := range []bool{true, false} {
				dp := &destroyLog{refuse: refuse}
				eng := *f.engine
				eng.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider {
					return &destroyPlanner{Provider: tetherprovider.New(), destroyLog: dp}
				})
				p, diags := eng.Plan(context.Background(), cfg, engine.PlanOptions{Destroy: tc.destroy})
				if len(dp.seen) != 1 {
					t.Fatalf("refuse=%v: %d destroy plans asked of the provider, want 1", refuse, len(dp.seen))
				}
				req := dp.seen[0]
				if req.TypeName != "tether_value" || !req.Config.IsNull() || req.PriorState.IsNull() || req.PriorState.GetAttr("input") != cty.StringVal("a") {
					t.Fatalf("destroy plan request: %#v", req)
				}
				if refuse {
					if !diags.HasErrors() || !strings.Contains(diags.Error(), "Deletion protected") {
						t.Fatalf("a refused deletion plans without the provider's error: %v", diags)
					}
					continue
				}
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				if res, diags := eng.Apply(context.Background(), p); diags.HasErrors() || res.Destroyed != 1 {
					t.Fatalf("destroyed %d, %v", res.Destroyed, diags)
				}
			}
		})
	}
}

// dataValidator records the data source configurations a provider is
// asked to validate.
type dataValidator struct {
	provider.Provider
	mu   *sync.Mutex
	seen *[]cty.Value
}

func (d dataValidator) ValidateDataSourceConfig(typeName string, cfg cty.Value) hcl.Diagnostics {
	d.mu.Lock()
	*d.seen = append(*d.seen, cfg)
	d.mu.Unlock()
	return d.Provider.ValidateDataSourceConfig(typeName, cfg)
}

// A data source the plan leaves to apply is validated again before it is
// read, with the configuration known then, as Terraform's readDataSource
// validates before every read.
func TestDataReadDuringApplyIsValidated(t *testing.T) {
	f := newFixture(t, `
resource "tether_file" "f" {
  path    = "out/x"
  content = "x"
}

data "tether_file" "d" {
  path       = "out/x"
  depends_on = [tether_file.f]
}
`)
	// The file goes in the fixture's folder, not the package's.
	main := filepath.Join(f.dir, "main.tf")
	tf, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(f.dir, "out", "x")
	if err := os.WriteFile(main, []byte(strings.ReplaceAll(string(tf), `"out/x"`, fmt.Sprintf("%q", file))), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []cty.Value
	f.engine.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider {
		return dataValidator{Provider: tetherprovider.New(), mu: &mu, seen: &seen}
	})
	ctx := context.Background()
	p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	mu.Lock()
	seen = nil
	mu.Unlock()
	if _, diags := f.engine.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(seen) != 1 || !seen[0].IsWhollyKnown() || seen[0].GetAttr("path") != cty.StringVal(file) {
		t.Fatalf("validated during apply: %#v, want the data source's configuration once", seen)
	}
}

// replacePlanner makes every update of a tether_value a replacement, with
// private data of its own, and records the private data the replacement's
// create plan is sent, which it plans again.
type replacePlanner struct {
	provider.Provider
	mu   *sync.Mutex
	sent *[][]byte
}

func (r replacePlanner) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	resp := r.Provider.PlanResourceChange(ctx, req)
	switch {
	case req.ProposedNewState.IsNull():
	case !req.PriorState.IsNull():
		resp.PlannedPrivate = []byte("from the update's plan")
		resp.RequiresReplace = []cty.Path{cty.GetAttrPath("input")}
	default:
		r.mu.Lock()
		*r.sent = append(*r.sent, req.PriorPrivate)
		r.mu.Unlock()
		// As an SDKv2 provider does, it plans the private data it was
		// sent (its timeouts).
		resp.PlannedPrivate = req.PriorPrivate
	}
	return resp
}

// A replacement's create is planned with the private data the update's
// plan returned, as Terraform plans it (PriorPrivate: plannedPrivate): an
// SDKv2 provider keeps its timeouts there, and the apply is sent them.
func TestReplacePlanKeepsPlannedPrivate(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "a" {
  input = "a"
}
`)
	f.run(false)
	if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte("resource \"tether_value\" \"a\" {\n  input = \"b\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent [][]byte
	eng := *f.engine
	eng.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider {
		return replacePlanner{Provider: tetherprovider.New(), mu: &mu, sent: &sent}
	})
	if _, diags := eng.Plan(context.Background(), f.config(), engine.PlanOptions{}); diags.HasErrors() {
		t.Fatal(diags)
	}
	// The first create, of the fixture's run, was not through the wrapper.
	if len(sent) != 1 || string(sent[0]) != "from the update's plan" {
		t.Fatalf("the replacement's create plan was sent private data %q, want the update plan's", sent)
	}
}

// replaceApplier records the private data each deletion is applied with.
type replaceApplier struct {
	replacePlanner
	deleted *[][]byte
}

func (r replaceApplier) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if req.PlannedState.IsNull() {
		r.mu.Lock()
		*r.deleted = append(*r.deleted, req.PlannedPrivate)
		r.mu.Unlock()
	}
	return r.replacePlanner.ApplyResourceChange(ctx, req)
}

// The deletion half of a replacement is applied with the replacement's
// planned private data, as Terraform's destroy node applies the replace
// change (whose Private that is).
func TestReplaceDeleteGetsPlannedPrivate(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "a" {
  input = "a"
}
`)
	f.run(false)
	if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte("resource \"tether_value\" \"a\" {\n  input = \"b\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent, deleted [][]byte
	eng := *f.engine
	eng.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider {
		return replaceApplier{replacePlanner{Provider: tetherprovider.New(), mu: &mu, sent: &sent}, &deleted}
	})
	p, diags := eng.Plan(context.Background(), f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := eng.Apply(context.Background(), p); diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(deleted) != 1 || string(deleted[0]) != "from the update's plan" {
		t.Fatalf("the replaced object's deletion was applied with private data %q, want the replacement plan's", deleted)
	}
}
