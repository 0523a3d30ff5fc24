package state

import (
	"os"
	"testing"
	"time"
)

// TestQuickCheckOncePerProcess: a state file opened again unchanged (the
// platform lookup's open, then the run's) is not read whole again; one
// changed since, even to the same size and modification time, or written
// too recently to tell, is checked, and a damaged one refused.
func TestQuickCheckOncePerProcess(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	reopen := func(t *testing.T, path string) (skipped bool) {
		t.Helper()
		before := checkedFiles.skipped.Load()
		s, err := OpenSQLite(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return checkedFiles.skipped.Load() > before
	}

	path := createStore(t, 50)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if reopen(t, path) {
		t.Fatal("the first open skipped the quick check")
	}
	if !reopen(t, path) {
		t.Error("an unchanged file was checked again")
	}

	// Written by a commit: its modification time is now, too recent to
	// remember, so every open checks it.
	s := openTest(t, path)
	commit(t, s, Changes{Put: []*Object{testObject("tether_file.new")}})
	s.Close()
	if reopen(t, path) || reopen(t, path) {
		t.Error("a file written a moment ago was not checked")
	}

	// Damaged in place, its modification time set back to the one
	// remembered: another file now (a copy put in its place), checked and
	// refused.
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	reopen(t, path)
	if !reopen(t, path) {
		t.Fatal("an unchanged file was checked again")
	}
	b := readFile(t, path)
	copy(b[len(b)/2:], make([]byte, 4096))
	tmp := path + ".copy"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	expectRefused[*CorruptError](t, path)
}
