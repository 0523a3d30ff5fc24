package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/state"
)

// laterStore is a state file whose handed-over commits (CommitLater) are
// slow, or fail for one address.
type laterStore struct {
	*state.SQLite
	fail  string
	delay time.Duration
}

func (s *laterStore) CommitLater(c state.Changes, then state.Then) {
	if len(c.Put) == 1 && c.Put[0].Address == s.fail {
		then.Recorded(errors.New("disk full"))
		return
	}
	go func() {
		time.Sleep(s.delay)
		s.SQLite.CommitLater(c, then)
	}()
}

const handoverConfig = `
resource "tether_value" "first" {
  input = "one"
}

resource "tether_value" "second" {
  input = tether_value.first.output
}

resource "tether_value" "other" {
  input = "independent"
}
`

// TestHandedOverCommitIsRecordedBeforeDependentsStart: an apply hands
// each object's commit to the store's writer without waiting, yet nothing
// that depends on the object starts, and its completion is not reported,
// before the object is in state.
func TestHandedOverCommitIsRecordedBeforeDependentsStart(t *testing.T) {
	f := newFixture(t, handoverConfig)
	f.engine.Store = &laterStore{SQLite: f.store, delay: 20 * time.Millisecond}
	ctx := context.Background()
	p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	recorded := func(addr string) bool {
		snap, err := f.store.Load(ctx)
		if err != nil {
			t.Error(err)
			return false
		}
		_, ok := snap.Objects[addr]
		return ok
	}
	f.engine.Events = func(e plan.Event) {
		switch {
		case e.Addr == "tether_value.second" && e.Phase == plan.Started && !recorded("tether_value.first"):
			t.Error("tether_value.second started before tether_value.first was recorded")
		case e.Phase == plan.Succeeded && !recorded(e.Addr):
			t.Errorf("%s reported complete before it was recorded", e.Addr)
		}
	}
	res, diags := f.engine.Apply(ctx, p)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if res.Added != 3 {
		t.Errorf("added %d, want 3", res.Added)
	}
}

// TestHandedOverCommitFailureFailsTheApply: an object whose handed-over
// commit fails is reported failed, not complete or counted, fails the
// apply, and what depends on it does not start; independent work finishes.
func TestHandedOverCommitFailureFailsTheApply(t *testing.T) {
	f := newFixture(t, handoverConfig)
	f.engine.Store = &laterStore{SQLite: f.store, fail: "tether_value.first"}
	ctx := context.Background()
	p, diags := f.engine.Plan(ctx, f.config(), engine.PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f.events = nil
	res, diags := f.engine.Apply(ctx, p)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Cannot record object") || !strings.Contains(diags.Error(), "disk full") {
		t.Fatalf("apply with a failed commit: %v, want Cannot record object (disk full)", diags)
	}
	if f.position("tether_value.first", plan.Failed) < 0 || f.position("tether_value.first", plan.Succeeded) >= 0 {
		t.Errorf("tether_value.first not reported failed alone: %+v", f.events)
	}
	if f.position("tether_value.second", plan.Started) >= 0 {
		t.Error("tether_value.second started after what it depends on failed to be recorded")
	}
	if res.Added != 1 || f.position("tether_value.other", plan.Succeeded) < 0 {
		t.Errorf("added %d (want 1, tether_value.other); events %+v", res.Added, f.events)
	}
}
