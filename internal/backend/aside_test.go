package backend

import (
	"path/filepath"
	"testing"
	"time"
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
