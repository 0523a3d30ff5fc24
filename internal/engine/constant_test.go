package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// TestApplyEvaluatesLiteralBodiesOnce plans and applies in one run, as
// `tether up` does, and counts each resource's evaluations. A body of
// literals evaluates the same in every scope, so apply takes the value
// evaluated at plan; a body that refers to anything or calls a function
// is evaluated again with the values known at apply, as Terraform does,
// and what is recorded comes from that second evaluation.
func TestApplyEvaluatesLiteralBodiesOnce(t *testing.T) {
	const main = `
resource "tether_value" "literal" {
  input    = "a"
  delay_ms = 1
}

resource "tether_value" "template" {
  input = "b-${tether_value.literal.id}"
}

resource "tether_value" "call" {
  input = upper("c")
}

variable "v" {
  default = "d"
}

resource "tether_value" "variable" {
  input = var.v
}
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": main})
	eng := builtinEngine(t, dir, func(p provider.Provider) provider.Provider { return p })
	cfg := loadBuiltin(t, dir)
	var mu sync.Mutex
	evals := map[string]int{}
	constant := map[string]bool{}
	for _, n := range cfg.Nodes {
		if n.Kind != config.Resource {
			continue
		}
		n, eval := n, n.Eval
		constant[n.Addr] = n.Constant
		n.Eval = config.EvalFunc(func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
			mu.Lock()
			evals[n.Addr]++
			mu.Unlock()
			return eval.Evaluate(scope, inst)
		})
	}
	if res := up(t, eng, cfg); res.Added != 4 {
		t.Fatalf("apply added %d objects, want 4", res.Added)
	}
	for addr, want := range map[string]int{
		"tether_value.literal":  1,
		"tether_value.template": 2,
		"tether_value.call":     2,
		"tether_value.variable": 2,
	} {
		if constant[addr] != (want == 1) {
			t.Errorf("%s: Constant is %v", addr, constant[addr])
		}
		if evals[addr] != want {
			t.Errorf("%s was evaluated %d times, want %d", addr, evals[addr], want)
		}
	}
	snap, err := eng.Store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{
		"tether_value.literal":  `"input":{"value":"a","type":"string"}`,
		"tether_value.call":     `"input":{"value":"C","type":"string"}`,
		"tether_value.variable": `"input":{"value":"d","type":"string"}`,
	} {
		obj := snap.Objects[addr]
		if obj == nil || !strings.Contains(string(obj.Value), want) {
			t.Errorf("%s recorded %v, want %s in it", addr, obj, want)
		}
	}
	if obj := snap.Objects["tether_value.template"]; obj == nil || !strings.Contains(string(obj.Value), `"input":{"value":"b-`) {
		t.Errorf("tether_value.template recorded %v, want its input from the literal's id", obj)
	}
}
