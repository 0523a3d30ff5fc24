package backend

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/state"
)

// TestNewAsideDirSameSecond: migrations there and back within one second
// each get a folder of their own, so the second's renames do not land on
// the first's files.
func TestNewAsideDirSameSecond(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 26, 3, 12, 31, 0, time.UTC)
	first, err := newAsideDir(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newAsideDir(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatalf("both migrations set aside into %s", first)
	}
	if want := filepath.Join(dir, "migrated-20261126T031231Z-2"); second != want {
		t.Errorf("second folder %s, want %s", second, want)
	}
}

// TestSetAsideWithLog: a state file whose committed transactions are still
// in its write-ahead log, as a killed run leaves it, is set aside whole:
// the file moved holds them by itself, without the log beside it, so a
// kill between the renames of the file and of its log loses nothing.
func TestSetAsideWithLog(t *testing.T) {
	ctx := context.Background()
	live, dir := t.TempDir(), t.TempDir()
	s, err := state.OpenSQLite(filepath.Join(live, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	obj := &state.Object{Address: "tether_value.a", Mode: state.Managed, Type: "tether_value", Provider: "p", Value: []byte(`{}`), Status: state.Ready}
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{obj}}); err != nil {
		t.Fatal(err)
	}
	// The files as a run killed now leaves them: the commit is in the log.
	for _, name := range []string{"state.db", "state.db-wal"} {
		b, err := os.ReadFile(filepath.Join(live, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "state.db-wal" && len(b) == 0 {
			t.Fatal("the commit is not in the write-ahead log: the test sets nothing up")
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Open(ctx, dir, Local)
	if err != nil {
		t.Fatal(err)
	}
	aside, err := b.SetAside()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.db")); !os.IsNotExist(err) {
		t.Errorf("state.db is still in %s: %v", dir, err)
	}
	// The file alone, as a kill right after its rename would leave it.
	os.Remove(filepath.Join(aside, "state.db-wal"))
	os.Remove(filepath.Join(aside, "state.db-shm"))
	moved, err := state.OpenSQLite(filepath.Join(aside, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer moved.Close()
	snap, err := moved.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Objects["tether_value.a"] == nil {
		t.Errorf("the state set aside lost the commit that was in its log: %v", snap.Objects)
	}
}
