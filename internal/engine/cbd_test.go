package engine_test

import (
	"context"
	"testing"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
)

// A resource that a create_before_destroy resource depends on, directly or
// through a local value, is replaced create-first too and records the
// setting in state, as Terraform's ForcedCBDTransformer makes it; one
// nothing create_before_destroy depends on keeps destroy-first.
func TestCreateBeforeDestroyForcedOnDependencies(t *testing.T) {
	f := newFixture(t, `
resource "tether_value" "base" {
  input = "base"
}

locals {
  through = tether_value.base.output
}

resource "tether_value" "top" {
  input = local.through
  lifecycle {
    create_before_destroy = true
  }
}

resource "tether_value" "alone" {
  input = "alone"
}
`)
	f.run(false)
	snap, err := f.store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"tether_value.base": true, "tether_value.top": true, "tether_value.alone": false}
	for a, cbd := range want {
		if obj := snap.Objects[a]; obj == nil || obj.CreateBeforeDestroy != cbd {
			t.Errorf("%s: state records create_before_destroy %v, want %v", a, obj != nil && obj.CreateBeforeDestroy, cbd)
		}
	}
	p, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{Replace: []string{"tether_value.base", "tether_value.alone"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	actions := map[string]plan.Action{}
	for _, c := range p.Plan.Changes {
		actions[c.Addr] = c.Action
	}
	if actions["tether_value.base"] != plan.CreateThenDelete || actions["tether_value.alone"] != plan.DeleteThenCreate {
		t.Errorf("replacements planned as %v, want base create-first and alone destroy-first", actions)
	}
}
