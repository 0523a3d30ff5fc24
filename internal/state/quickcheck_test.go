package state

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"
)

// TestQuickCheckOncePerProcess: a state file opened again unchanged (the
// platform lookup's open of a file it would write, then the run's) is not
// read whole again; one changed since, even to the same size and
// modification time, or written too recently to tell, is checked, and a
// damaged one refused.
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

// TestPeekLeavesTheCheckToTheOpen: the platform lookup's peek at a state
// file written a moment ago (as the command before it leaves it) reads it
// without the quick check, and the command's own open checks it: once in
// all, where two opens checked it twice. A damaged file peeked at is not
// written, and the open still refuses it.
func TestPeekLeavesTheCheckToTheOpen(t *testing.T) {
	ctx := context.Background()
	path := createStore(t, 50)
	before := checkedFiles.checks.Load()
	p, err := PeekSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := p.ScanObjects(ctx, func(Mode, string) bool { return true }, func(*Object) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n != 50 {
		t.Errorf("the peek read %d objects, want 50", n)
	}
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := checkedFiles.checks.Load() - before; got != 1 {
		t.Errorf("the peek and the open made %d quick checks, want 1", got)
	}

	b := readFile(t, path)
	copy(b[len(b)/2:], make([]byte, 4096))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := PeekSQLite(path); err == nil {
		p.ScanObjects(ctx, func(Mode, string) bool { return true }, func(*Object) bool { return true })
		p.Close()
	}
	if !bytes.Equal(b, readFile(t, path)) {
		t.Error("the peek wrote to a damaged file")
	}
	expectRefused[*CorruptError](t, path)
}

// TestPeekChecksWhatItWouldWrite: a file the peek's open would write (a
// write-ahead log beside it, whose frames its close copies in) is checked
// as OpenSQLite checks it.
func TestPeekChecksWhatItWouldWrite(t *testing.T) {
	path := createStore(t, 5)
	s := openTest(t, path)
	defer s.Close()
	commit(t, s, Changes{Put: []*Object{testObject("tether_file.new")}})
	if !walBeside(path) {
		t.Skip("no write-ahead log beside an open state")
	}
	before := checkedFiles.checks.Load()
	p, err := PeekSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if got := checkedFiles.checks.Load() - before; got != 1 {
		t.Errorf("the peek made %d quick checks, want 1", got)
	}
}
