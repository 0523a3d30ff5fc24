package backend_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/state"
)

func localAt(t *testing.T, dir string) *backend.Backend {
	t.Helper()
	b, err := backend.Open(context.Background(), dir, backend.Settings{Type: "local", Config: map[string]string{
		"path": filepath.Join(dir, "state.db"), "workspace_dir": filepath.Join(dir, "ws"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func put(t *testing.T, b *backend.Backend, ws string, addrs ...string) {
	t.Helper()
	ctx := context.Background()
	if ws != backend.DefaultWorkspace {
		b.NewWorkspace(ctx, ws)
	}
	s, err := b.State(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var c state.Changes
	for _, a := range addrs {
		c.Put = append(c.Put, &state.Object{Address: a, Mode: state.Managed, Type: "tether_value", Provider: "p", Value: []byte(`{}`), Status: state.Ready})
	}
	if err := s.Commit(ctx, c); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, b *backend.Backend, ws string) *state.Snapshot {
	t.Helper()
	s, err := b.State(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestMigrate moves two workspaces, keeping the id, lineage and serial;
// a second run after an interrupted one (the destination already holds
// the same state) goes through; a destination with other state is refused
// and left as it was.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	from, to := localAt(t, t.TempDir()), localAt(t, t.TempDir())
	put(t, from, "default", "tether_value.a", "tether_value.b")
	put(t, from, "staging", "tether_value.s")
	src := load(t, from, "default")
	for range 2 {
		moved, err := backend.Migrate(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(moved, ",") != "default,staging" {
			t.Errorf("moved %v", moved)
		}
	}
	got := load(t, to, "default")
	if len(got.Objects) != 2 || got.Lineage != src.Lineage || got.Serial != src.Serial {
		t.Errorf("default after the move: %d objects, lineage %q serial %d; want 2, %q, %d", len(got.Objects), got.Lineage, got.Serial, src.Lineage, src.Serial)
	}
	if n := len(load(t, to, "staging").Objects); n != 1 {
		t.Errorf("staging after the move: %d objects", n)
	}
	fromID, _ := from.ID()
	toID, _ := to.ID()
	if fromID != toID {
		t.Errorf("the id changed: %s to %s", fromID, toID)
	}

	other := localAt(t, t.TempDir())
	put(t, other, "default", "tether_value.other")
	if _, err := backend.Migrate(ctx, from, other); err == nil || !strings.Contains(err.Error(), "already holds other state") {
		t.Fatalf("migrating onto other state: %v", err)
	}
	if snap := load(t, other, "default"); len(snap.Objects) != 1 || snap.Objects["tether_value.other"] == nil {
		t.Errorf("the refused destination changed: %v", snap.Objects)
	}
	if names, _ := other.Workspaces(ctx); len(names) != 1 {
		t.Errorf("the refused destination got workspaces: %v", names)
	}
}

// TestCopied tells a copy left behind by an interrupted migration (the
// destination holds all of it) from state that exists only where it is.
func TestCopied(t *testing.T) {
	ctx := context.Background()
	from, to := localAt(t, t.TempDir()), localAt(t, t.TempDir())
	if ok, err := backend.Copied(ctx, from, to); err != nil || ok {
		t.Fatalf("an empty source: %v, %v; want false", ok, err)
	}
	put(t, from, "default", "tether_value.a")
	put(t, from, "staging", "tether_value.s")
	if ok, err := backend.Copied(ctx, from, to); err != nil || ok {
		t.Fatalf("before the copy: %v, %v; want false", ok, err)
	}
	if _, err := backend.Migrate(ctx, from, to); err != nil {
		t.Fatal(err)
	}
	if ok, err := backend.Copied(ctx, from, to); err != nil || !ok {
		t.Fatalf("after the copy: %v, %v; want true", ok, err)
	}
	put(t, to, "staging", "tether_value.more")
	if ok, err := backend.Copied(ctx, from, to); err != nil || ok {
		t.Fatalf("after the destination changed: %v, %v; want false", ok, err)
	}
}
