package engine

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

func TestWriteOnlyAttributes(t *testing.T) {
	block := &provider.Block{Attributes: map[string]*provider.Attribute{
		"name":        {Type: cty.String, Required: true},
		"password_wo": {Type: cty.String, Optional: true, WriteOnly: true},
	}}
	obj := func(pw cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("db"), "password_wo": pw})
	}
	secret, null := cty.StringVal("hunter2"), cty.NullVal(cty.String)
	if got := provider.PlanProblems(block, cty.NullVal(block.ImpliedType()), obj(secret), obj(null)); len(got) != 0 {
		t.Errorf("a plan with null for the write-only attribute: %q", got)
	}
	if got := provider.PlanProblems(block, cty.NullVal(block.ImpliedType()), obj(secret), obj(secret)); len(got) != 1 {
		t.Errorf("a plan that returns the write-only value must be refused; got %q", got)
	}
	if got := provider.ResultProblems(block, obj(null), obj(secret)); len(got) != 1 {
		t.Errorf("a result that returns the write-only value must be refused; got %q", got)
	}
	if got := withoutWriteOnly(block, obj(secret)); !got.RawEquals(obj(null)) {
		t.Errorf("withoutWriteOnly kept %#v", got)
	}
}

func TestMarkDerived(t *testing.T) {
	secret := "hunter22"
	sum := sha256.Sum256([]byte(secret))
	for _, tc := range []struct {
		name string
		v    cty.Value
		want bool
	}{
		{"the secret", cty.StringVal(secret), true},
		{"containing it", cty.StringVal("user:" + secret + "@host"), true},
		{"its sha256", cty.StringVal(hex.EncodeToString(sum[:])), true},
		{"its sha256 in base64", cty.StringVal(base64.StdEncoding.EncodeToString(sum[:])), true},
		{"unrelated", cty.StringVal("out/key.txt"), false},
		{"a number", cty.NumberIntVal(8), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := markDerived(cty.ObjectVal(map[string]cty.Value{"a": tc.v}), []string{secret})
			if marked := got.GetAttr("a").HasMark(marks.Sensitive); marked != tc.want {
				t.Errorf("marked %v, want %v", marked, tc.want)
			}
		})
	}
}

// keepsPrior is the built-in provider with a broken plan: it answers
// every update with the prior object itself, whatever the configuration.
type keepsPrior struct{ provider.Provider }

func (p keepsPrior) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	if !req.PriorState.IsNull() {
		return provider.PlanResponse{PlannedState: req.PriorState}
	}
	return p.Provider.PlanResourceChange(ctx, req)
}

// TestBrokenBuiltinPlanIsRefused: the check of every plan still catches
// an in-process provider that keeps its prior object where the
// configuration removed a value it set, now that a plan which is the
// prior object itself, proposed so, is let through without the walk.
func TestBrokenBuiltinPlanIsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) *config.Config {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte("resource \"tether_value\" \"r\" {\n"+body+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		schema, _ := tetherprovider.New().GetSchema()
		cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return cfg
	}
	store, err := state.OpenSQLite(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	engineWith := func(start func() provider.Provider) *Engine {
		return &Engine{Store: store, Providers: provider.Only(config.BuiltinSource.String(), start)}
	}
	ctx := context.Background()
	good := engineWith(func() provider.Provider { return tetherprovider.New() })
	broken := engineWith(func() provider.Provider { return keepsPrior{tetherprovider.New()} })
	p, diags := good.Plan(ctx, write("  input = \"a\"\n  delay_ms = 1\n"), PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if _, diags := good.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}
	// Nothing changed: the broken plan is the right one.
	if _, diags := broken.Plan(ctx, write("  input = \"a\"\n  delay_ms = 1\n"), PlanOptions{}); diags.HasErrors() {
		t.Fatalf("a no-op plan kept as the prior object: %s", diags.Error())
	}
	removed := write("  input = \"a\"\n")
	if _, diags := good.Plan(ctx, removed, PlanOptions{}); diags.HasErrors() {
		t.Fatalf("the built-in provider's own plan: %s", diags.Error())
	}
	_, diags = broken.Plan(ctx, removed, PlanOptions{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Provider produced invalid plan") || !strings.Contains(diags.Error(), ".delay_ms: planned a value where the configuration sets none") {
		t.Errorf("a plan keeping delay_ms the configuration removed: %v, want it refused", diags)
	}
}
