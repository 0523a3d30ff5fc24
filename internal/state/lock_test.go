package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func expectLocked(t *testing.T, s *SQLite) *LockedError {
	t.Helper()
	u, err := s.Lock(context.Background(), LockInfo{Operation: "destroy"})
	var le *LockedError
	if !errors.As(err, &le) {
		if u != nil {
			u.Unlock()
		}
		t.Fatalf("Lock: got %v, want *LockedError", err)
	}
	msg := err.Error()
	for _, want := range []string{s.path, le.Holder.Operation, strconv.Itoa(le.Holder.PID), le.Holder.Host, le.Holder.Who, "tether state unlock"} {
		if !strings.Contains(msg, want) {
			t.Errorf("lock error does not mention %q: %s", want, msg)
		}
	}
	return le
}

func TestLockInProcess(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	ctx := context.Background()

	if info, err := s.ForceUnlock(ctx, ""); info != nil || err != nil {
		t.Fatalf("ForceUnlock with no lock: %v, %v", info, err)
	}

	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	a, err := s.Lock(ctx, LockInfo{Operation: "up", Created: start})
	if err != nil {
		t.Fatal(err)
	}
	le := expectLocked(t, s)
	host, _ := os.Hostname()
	h := le.Holder
	if h.Operation != "up" || h.PID != os.Getpid() || h.Host != host || !h.Created.Equal(start) ||
		h.ID == "" || !strings.HasSuffix(h.Who, "@"+host) {
		t.Errorf("holder recorded wrongly: %+v", h)
	}
	if le.HolderGone {
		t.Error("our own live process reported as gone")
	}
	if !strings.Contains(le.Error(), start.UTC().Format(time.RFC3339)) {
		t.Errorf("lock error does not give the start time: %v", le)
	}

	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(); err != nil {
		t.Fatalf("second Unlock: %v", err)
	}

	// Unlock removes only our own lock: once ours was broken and someone
	// else locked, our Unlock must leave theirs alone.
	b, err := s.Lock(ctx, LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	broken, err := s.ForceUnlock(ctx, "")
	if err != nil || broken == nil || broken.Operation != "up" {
		t.Fatalf("ForceUnlock: %+v, %v", broken, err)
	}
	c, err := s.Lock(ctx, LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Unlock(); err == nil || !strings.Contains(err.Error(), "no longer held") {
		t.Errorf("Unlock of a broken lock: %v", err)
	}
	if le := expectLocked(t, s); le.Holder.Operation != "plan" {
		t.Errorf("holder is %q, want the plan lock to survive", le.Holder.Operation)
	}
	if err := c.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// TestLockTwoProcesses: a child process holds the lock; our Lock must fail at
// once naming the child, and succeed once the child lets go.
func TestLockTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	openTest(t, path).Close() // create the file before two processes race to
	cmd, stdin, out := startChild(t, "lock", path)
	if !out.Scan() {
		t.Fatal("child did not report taking the lock")
	}
	if want := fmt.Sprintf("locked %d", cmd.Process.Pid); out.Text() != want {
		t.Fatalf("child said %q, want %q", out.Text(), want)
	}

	s := openTest(t, path)
	start := time.Now()
	le := expectLocked(t, s)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Lock took %v; it must fail at once", d)
	}
	if le.Holder.PID != cmd.Process.Pid || le.Holder.Operation != "up" {
		t.Errorf("holder %+v, want the child (pid %d)", le.Holder, cmd.Process.Pid)
	}
	if le.HolderGone || strings.Contains(le.Error(), "no longer running") {
		t.Errorf("live holder reported as gone: %v", le)
	}
	if !strings.Contains(le.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("error does not name the child's pid: %v", le)
	}
	t.Logf("locked error: %v", le)

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	u, err := s.Lock(context.Background(), LockInfo{Operation: "up"})
	if err != nil {
		t.Fatalf("Lock after the child unlocked: %v", err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// TestStaleLock: a child takes the lock and dies without unlocking. The lock
// is still refused (breaking it is the user's decision), but the error says
// its holder is gone; ForceUnlock then clears it.
func TestStaleLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	openTest(t, path).Close()
	cmd, _, out := startChild(t, "lock-and-die", path)
	if !out.Scan() {
		t.Fatal("child did not report taking the lock")
	}
	cmd.Wait()

	s := openTest(t, path)
	le := expectLocked(t, s)
	if le.Holder.PID != cmd.Process.Pid {
		t.Errorf("holder pid %d, want %d", le.Holder.PID, cmd.Process.Pid)
	}
	if !le.HolderGone || !strings.Contains(le.Error(), "no longer running") {
		t.Errorf("dead holder not reported as gone: %v", le)
	}
	t.Logf("stale lock error: %v", le)

	info, err := s.ForceUnlock(context.Background(), "")
	if err != nil || info == nil || info.PID != cmd.Process.Pid {
		t.Fatalf("ForceUnlock: %+v, %v", info, err)
	}
	u, err := s.Lock(context.Background(), LockInfo{Operation: "up"})
	if err != nil {
		t.Fatalf("Lock after ForceUnlock: %v", err)
	}
	u.Unlock()
}
