package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// mover is the built-in provider with one move across types it does not
// have: a tether_random becomes a tether_value with the same id and no
// input. It records the requests it gets.
type mover struct {
	provider.Provider
	mu   sync.Mutex
	reqs []provider.MoveRequest
}

func (m *mover) MoveResourceState(ctx context.Context, req provider.MoveRequest) provider.MoveResponse {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if req.SourceTypeName != "tether_random" || req.TargetTypeName != "tether_value" {
		return m.Provider.MoveResourceState(ctx, req)
	}
	var src struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(req.SourceStateJSON, &src); err != nil {
		return provider.MoveResponse{Diagnostics: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad source", Detail: err.Error()}}}
	}
	return provider.MoveResponse{
		TargetState: cty.ObjectVal(map[string]cty.Value{
			"input":    cty.NullVal(cty.DynamicPseudoType),
			"output":   cty.NullVal(cty.DynamicPseudoType),
			"delay_ms": cty.NullVal(cty.Number),
			"id":       cty.StringVal(src.ID),
		}),
		TargetPrivate: []byte("moved"),
	}
}

// TestMoveAcrossTypes applies a tether_random, then a configuration that
// moves it to a tether_value: the target's provider converts the recorded
// object, the plan shows the move and no other change, and state records
// the converted object under the new address and type. A move the
// provider does not support fails at the moved block.
func TestMoveAcrossTypes(t *testing.T) {
	const before = `resource "tether_random" "r" {
  length = 8
}
`
	const moved = `resource "tether_value" "v" {
}

moved {
  from = tether_random.r
  to   = tether_value.v
}
`
	for _, tc := range []struct {
		name string
		// after is the configuration of the move.
		after string
		// wantErr is the start of the error's detail, "" for success.
		wantErr string
	}{
		{name: "supported", after: moved},
		{
			name: "unsupported",
			after: `resource "tether_file" "f" {
  path    = "f.txt"
  content = "x"
}

moved {
  from = tether_random.r
  to   = tether_file.f
}
`,
			wantErr: "The tether provider does not support moving resources of type tether_random (of registry.terraform.io/tetherhq/tether) to tether_file",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, before)
			m := &mover{Provider: tetherprovider.New()}
			f.engine.Providers = provider.Only(config.BuiltinSource.String(), func() provider.Provider { return m })
			f.run(false)
			ctx := context.Background()
			snap, err := f.store.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			src := *snap.Objects["tether_random.r"]
			var srcVal struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(src.Value, &srcVal); err != nil {
				t.Fatal(err)
			}

			if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte(tc.after), 0o644); err != nil {
				t.Fatal(err)
			}
			p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
			if len(m.reqs) != 1 {
				t.Fatalf("MoveResourceState was called %d times, want once", len(m.reqs))
			}
			req := m.reqs[0]
			if req.SourceProviderAddress != "registry.terraform.io/tetherhq/tether" || req.SourceTypeName != "tether_random" ||
				req.SourceSchemaVersion != src.SchemaVersion || string(req.SourceStateJSON) != string(src.Value) {
				t.Errorf("MoveResourceState got %+v, want the object recorded for tether_random.r", req)
			}
			if tc.wantErr != "" {
				if !diags.HasErrors() {
					t.Fatal("the plan succeeded, want an error")
				}
				d := diags.Errs()[0].(*hcl.Diagnostic)
				if !strings.HasPrefix(d.Detail, tc.wantErr) {
					t.Errorf("error detail %q, want it to start %q", d.Detail, tc.wantErr)
				}
				if !strings.Contains(d.Detail, "tether_random.r to tether_file.f") {
					t.Errorf("error detail %q names not both addresses", d.Detail)
				}
				if d.Subject == nil || filepath.Base(d.Subject.Filename) != "main.tf" || d.Subject.Start.Line != 6 {
					t.Errorf("error at %v, want main.tf line 6 (the moved block)", d.Subject)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if len(p.Plan.Moved) != 1 || *p.Plan.Moved[0] != (plan.Move{From: "tether_random.r", To: "tether_value.v"}) {
				t.Errorf("plan moves %v, want tether_random.r to tether_value.v", p.Plan.Moved)
			}
			for _, c := range p.Plan.Changes {
				if c.Action != plan.NoOp {
					t.Errorf("plan has %v for %s, want no change", c.Action, c.Addr)
				}
			}
			if _, diags := f.engine.Apply(ctx, p); diags.HasErrors() {
				t.Fatal(diags)
			}
			snap, err = f.store.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := snap.Objects["tether_random.r"]; ok {
				t.Error("tether_random.r is still recorded after the move")
			}
			got := snap.Objects["tether_value.v"]
			if got == nil {
				t.Fatal("tether_value.v is not recorded after the move")
			}
			want := `{"delay_ms":null,"id":"` + srcVal.ID + `","input":null,"output":null}`
			if got.Type != "tether_value" || got.Provider != src.Provider || got.SchemaVersion != 0 ||
				string(got.Private) != "moved" || string(got.Value) != want {
				t.Errorf("recorded %+v (value %s), want a tether_value of %s with value %s and private data \"moved\"", got, got.Value, src.Provider, want)
			}

			// The move is done: the next plan is clean and asks nothing.
			p, diags = f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if len(m.reqs) != 1 || len(p.Plan.Moved) != 0 || p.Plan.HasChanges() {
				t.Errorf("second plan: %d moves asked, plan moves %v, changes %v; want none", len(m.reqs)-1, p.Plan.Moved, p.Plan.Changes)
			}
		})
	}
}
