package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUnlockOnFullDisk fills the file system the state is on (a 1 MiB
// tmpfs, as small as a disk that filled during an up) and then releases
// the lock: the release must not need free space, or every later command
// would find the state locked by an operation that has ended.
func TestUnlockOnFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	for name, release := range map[string]func(*SQLite, Unlocker) error{
		"the holder unlocks": func(_ *SQLite, u Unlocker) error { return u.Unlock() },
		// tether state unlock, after the holder was killed.
		"another store breaks it": func(s *SQLite, _ Unlocker) error {
			other, err := openFile(s.path, nil, false)
			if err != nil {
				return err
			}
			defer other.Close()
			_, err = other.ForceUnlock(context.Background(), "")
			return err
		},
	} {
		t.Run(name, func(t *testing.T) { unlockOnFullDisk(t, release) })
	}
}

func unlockOnFullDisk(t *testing.T, release func(*SQLite, Unlocker) error) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	ctx := context.Background()
	path := filepath.Join(dir, "state.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	unlock, err := s.Lock(ctx, LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	// The apply records objects (the write-ahead log grows with them),
	// then something else fills the disk: the files it writes, say.
	value := []byte(`{"input":"` + string(bytes.Repeat([]byte("x"), 3000)) + `"}`)
	for i := 0; i < 20; i++ {
		if err := s.Commit(ctx, Changes{Put: []*Object{{
			Address: fmt.Sprintf("tether_value.v[%d]", i), Mode: Managed, Type: "tether_value",
			Provider: `provider["tether"]`, Value: value, Status: Ready,
		}}}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 512)); err != nil {
			break
		}
	}
	f.Close()
	if err := release(s, unlock); err != nil {
		t.Fatalf("the lock was not released on a full disk: %v", err)
	}
	if holder, err := s.ForceUnlock(ctx, ""); err != nil || holder != nil {
		t.Errorf("the state is still locked (%v, %v)", holder, err)
	}
}

// The room is the lock holder's: it is there, whole, once Lock returns,
// and a Lock that finds the lock held leaves the holder's room alone.
func TestRoomIsTheHolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTest(t, path)
	u, err := s.Lock(context.Background(), LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	room := func() int64 {
		t.Helper()
		fi, err := os.Stat(s.reservePath())
		if err != nil {
			t.Fatalf("the holder's room: %v", err)
		}
		return fi.Size()
	}
	if got := room(); got != reserveSize {
		t.Fatalf("room held when Lock returned: %d bytes, want %d", got, reserveSize)
	}
	expectLocked(t, openTest(t, path))
	if got := room(); got != reserveSize {
		t.Fatalf("room after another store found the lock held: %d bytes, want %d", got, reserveSize)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.reservePath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("room after Unlock: %v, want it gone", err)
	}
}
