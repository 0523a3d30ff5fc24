package pgstate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/pgtest"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/pgstate"
)

func object(addr string) *state.Object {
	return &state.Object{
		Address: addr, Mode: state.Managed, Type: "tether_file", Provider: "provider[\"tether\"]",
		SchemaVersion: 1, Value: []byte(`{"id":"` + addr + `"}`), Private: []byte{0, 1, 2},
		Status: state.Ready,
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := open(t, connect(t, config(t)), "default")
	a := object("tether_file.a")
	a.Dependencies = []string{"tether_file.b", `module.m["x"].tether_file.c`}
	a.Sensitive = []byte(`[["content"]]`)
	a.CreateBeforeDestroy = true
	b := object("tether_file.b")
	b.Value, b.Private = nil, nil
	if err := s.Commit(ctx, state.Changes{
		Put:        []*state.Object{a, b, object("tether_file.gone")},
		PutOutputs: []*state.Output{{Name: "x", Value: []byte(`{"value":1,"type":"number"}`), Sensitive: true}, {Name: "y"}},
	}); err != nil {
		t.Fatal(err)
	}
	// A replacement: delete and put of one address in one Changes.
	a2 := *a
	a2.Status = state.Tainted
	if err := s.Commit(ctx, state.Changes{
		Delete: []string{"tether_file.a", "tether_file.gone"}, Put: []*state.Object{&a2},
		DeleteOutputs: []string{"y"},
	}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*state.Object{"tether_file.a": &a2, "tether_file.b": b}
	if !reflect.DeepEqual(snap.Objects, want) {
		t.Errorf("objects:\n got %+v\nwant %+v", snap.Objects, want)
	}
	if len(snap.Outputs) != 1 || !snap.Outputs["x"].Sensitive || string(snap.Outputs["x"].Value) != `{"value":1,"type":"number"}` {
		t.Errorf("outputs: %+v", snap.Outputs)
	}
	// Each commit adds to the serial and keeps the lineage; a commit that
	// brings its own (state push, migration) sets both.
	if snap.Lineage == "" || snap.Serial != 3 {
		t.Errorf("lineage %q serial %d after two commits, want a lineage and 3", snap.Lineage, snap.Serial)
	}
	if err := s.Commit(ctx, state.Changes{Lineage: "11111111-2222-4333-8444-555555555555", Serial: 42}); err != nil {
		t.Fatal(err)
	}
	if snap, _ = s.Load(ctx); snap.Lineage != "11111111-2222-4333-8444-555555555555" || snap.Serial != 42 {
		t.Errorf("after setting them: lineage %q serial %d", snap.Lineage, snap.Serial)
	}
}

// TestGroupCommit commits from many goroutines at once, with deletes and
// puts of the same addresses racing, and checks that every returned commit
// is there and that they were grouped.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	s := open(t, connect(t, config(t)), "default")
	const n = 2000
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n / 20 {
				addr := fmt.Sprintf("tether_file.g%d[%d]", g, i)
				if err := s.Commit(ctx, state.Changes{Put: []*state.Object{object(addr)}}); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 1 {
					if err := s.Commit(ctx, state.Changes{Delete: []string{addr}}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != n/2 {
		t.Fatalf("%d objects recorded, want %d", len(snap.Objects), n/2)
	}
	for addr := range snap.Objects {
		var g, i int
		fmt.Sscanf(addr, "tether_file.g%d[%d]", &g, &i)
		if i%2 == 1 {
			t.Errorf("%s was deleted after it was put, but is recorded", addr)
		}
	}
}

// TestFailingRequestAlone checks that a request the server refuses fails
// alone, not with the requests grouped with it.
func TestFailingRequestAlone(t *testing.T) {
	ctx := context.Background()
	s := open(t, connect(t, config(t)), "default")
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := fmt.Sprintf("tether_file.a[%d]", i)
			if i == 7 {
				addr = "tether_file.bad\x00" // text cannot hold NUL
			}
			errs[i] = s.Commit(ctx, state.Changes{Put: []*state.Object{object(addr)}})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i == 7) {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 49 {
		t.Errorf("%d objects recorded, want 49", len(snap.Objects))
	}
}

func TestWorkspacesAreSeparate(t *testing.T) {
	ctx := context.Background()
	b := connect(t, config(t))
	if err := b.NewWorkspace(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	if err := b.NewWorkspace(ctx, "staging"); !errors.Is(err, pgstate.ErrWorkspaceExists) {
		t.Errorf("second new: %v", err)
	}
	if _, err := b.Open(ctx, "prod"); !errors.Is(err, pgstate.ErrNoWorkspace) {
		t.Errorf("open of a missing workspace: %v", err)
	}
	def, stg := open(t, b, "default"), open(t, b, "staging")
	if err := stg.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.s")}}); err != nil {
		t.Fatal(err)
	}
	if snap, _ := def.Load(ctx); len(snap.Objects) != 0 {
		t.Errorf("default sees staging's objects: %v", snap.Objects)
	}
	// Both hold their locks at once.
	u1, err := def.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	defer u1.Unlock()
	u2, err := stg.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatalf("a lock on default blocked staging: %v", err)
	}
	u2.Unlock()
	names, err := b.Workspaces(ctx)
	if err != nil || !reflect.DeepEqual(names, []string{"default", "staging"}) {
		t.Errorf("workspaces: %v, %v", names, err)
	}
	if err := b.DeleteWorkspace(ctx, "default", true); err == nil {
		t.Error("default was deleted")
	}
	if err := b.DeleteWorkspace(ctx, "staging", false); !errors.Is(err, pgstate.ErrWorkspaceNotEmpty) {
		t.Errorf("delete of a non-empty workspace: %v", err)
	}
	// A workspace in use is not deleted, even forced.
	u3, err := stg.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	var locked *state.LockedError
	if err := b.DeleteWorkspace(ctx, "staging", true); !errors.As(err, &locked) {
		t.Errorf("delete of a locked workspace: %v", err)
	}
	u3.Unlock()
	if err := b.DeleteWorkspace(ctx, "staging", true); err != nil {
		t.Fatal(err)
	}
	if names, _ := b.Workspaces(ctx); !reflect.DeepEqual(names, []string{"default"}) {
		t.Errorf("after delete: %v", names)
	}
}

func TestLock(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	first := open(t, connect(t, cfg), "default")
	second := open(t, connect(t, cfg), "default")
	u, err := first.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = second.Lock(ctx, state.LockInfo{Operation: "plan"})
	var locked *state.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second lock: %v", err)
	}
	host, _ := os.Hostname()
	if h := locked.Holder; h.Operation != "up" || h.PID != os.Getpid() || h.Host != host || h.Created.IsZero() {
		t.Errorf("holder: %+v", h)
	}
	if !strings.Contains(err.Error(), `workspace "default"`) || !strings.Contains(err.Error(), `operation "up"`) {
		t.Errorf("message: %v", err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	u2, err := second.Lock(ctx, state.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	// A holder that ends without unlocking (a crash) releases the lock,
	// as soon as the server has seen its session end.
	second.Close()
	_ = u2
	deadline := time.Now().Add(10 * time.Second)
	for {
		u3, err := first.Lock(ctx, state.LockInfo{Operation: "up"})
		if err == nil {
			u3.Unlock()
			break
		}
		if !errors.As(err, &locked) || time.Now().After(deadline) {
			t.Fatalf("after the holder's session ended: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestForceUnlock breaks a live holder's lock: the holder's next commit
// fails, and so does every one after it, while the breaker proceeds.
func TestForceUnlock(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	holder := open(t, connect(t, cfg), "default")
	other := open(t, connect(t, cfg), "default")
	if _, err := holder.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	if err := holder.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	// force-unlock with another lock's ID leaves this one alone.
	var wrongID *state.LockIDError
	if _, err := other.ForceUnlock(ctx, "not-the-id"); !errors.As(err, &wrongID) || wrongID.Holder.Operation != "up" {
		t.Fatalf("ForceUnlock of another ID: %v", err)
	}
	if err := holder.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.a")}}); err != nil {
		t.Fatalf("holder's commit after a refused force-unlock: %v", err)
	}
	broken, err := other.ForceUnlock(ctx, wrongID.Holder.ID)
	if err != nil {
		t.Fatal(err)
	}
	if broken == nil || broken.Operation != "up" {
		t.Fatalf("ForceUnlock returned %+v", broken)
	}
	for range 2 {
		err = holder.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.b")}})
		if err == nil || !strings.Contains(err.Error(), "lost the connection that held the state lock") {
			t.Fatalf("holder's commit after its lock was broken: %v", err)
		}
	}
	if _, err := other.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	snap, err := other.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Objects["tether_file.b"]; ok || len(snap.Objects) != 1 {
		t.Errorf("objects after the break: %v", snap.Objects)
	}
	if again, err := open(t, connect(t, cfg), "default").ForceUnlock(ctx, ""); err != nil || again == nil {
		t.Errorf("ForceUnlock of other's lock: %v, %v", again, err)
	}
}

func TestRefuseNewerFormat(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	b := connect(t, cfg)
	s := open(t, b, "default")
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, cfg.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE `+pgx.Identifier{cfg.Schema}.Sanitize()+`.tether_meta SET value = '99' WHERE key = 'format_version'`); err != nil {
		t.Fatal(err)
	}
	_, err = pgstate.Connect(ctx, cfg)
	var newer *pgstate.NewerFormatError
	if !errors.As(err, &newer) || newer.Format != 99 {
		t.Fatalf("Connect: %v", err)
	}
	if !strings.Contains(err.Error(), "upgrade Tether") {
		t.Errorf("message: %v", err)
	}
}

func TestBadConnection(t *testing.T) {
	cfg := config(t)
	ctx := context.Background()
	for _, tc := range []struct{ name, conn, want string }{
		{"password", strings.Replace(cfg.ConnStr, "tether-test-password", "wrong-secret", 1), "password authentication failed"},
		{"syntax", "postgres://[::1", "invalid conn_str"},
		{"port", "postgres://tether:wrong-secret@127.0.0.1:1/postgres?sslmode=disable", "cannot connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pgstate.Connect(ctx, pgstate.Config{ConnStr: tc.conn, Schema: cfg.Schema})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "wrong-secret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestServerDown stops a server under a runner holding the lock: its next
// commit fails and so does every later one, what it committed before is
// kept, and a new run after the restart proceeds.
func TestServerDown(t *testing.T) {
	config(t) // skips without PostgreSQL
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	cfg := pgstate.Config{ConnStr: srv.ConnString("")}
	s := open(t, connect(t, cfg), "default")
	if _, err := s.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.before")}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Halt(); err != nil {
		t.Fatal(err)
	}
	if _, err := pgstate.Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("connect to a stopped server: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		err := s.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.after")}})
		if err == nil || !strings.Contains(err.Error(), "lost the connection that held the state lock") {
			t.Fatalf("commit after the server restarted: %v", err)
		}
	}
	s2 := open(t, connect(t, cfg), "default")
	if _, err := s2.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	snap, err := s2.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 1 || snap.Objects["tether_file.before"] == nil {
		t.Errorf("after the restart: %v", snap.Objects)
	}
}

// TestCheckResults: each workspace has its own check results, replaced
// whole by a commit that carries them, kept by one that does not, and
// gone with a deleted workspace.
func TestCheckResults(t *testing.T) {
	ctx := context.Background()
	b := connect(t, config(t))
	if err := b.NewWorkspace(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	def, stg := open(t, b, "default"), open(t, b, "staging")
	checks := func(s *pgstate.Store) string {
		t.Helper()
		snap, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Checks == nil {
			return "<nil>"
		}
		return string(snap.Checks)
	}
	for _, step := range []struct {
		commit []byte
		want   string
	}{
		{[]byte(`[1]`), `[1]`},
		{nil, `[1]`},
		{[]byte(`[2]`), `[2]`},
		{[]byte{}, `<nil>`},
		{[]byte(`[3]`), `[3]`},
	} {
		if err := def.Commit(ctx, state.Changes{Checks: step.commit, Put: []*state.Object{object("tether_file.a")}}); err != nil {
			t.Fatal(err)
		}
		if got := checks(def); got != step.want {
			t.Errorf("after committing %q: %s, want %s", step.commit, got, step.want)
		}
	}
	if got := checks(stg); got != "<nil>" {
		t.Errorf("staging sees default's check results: %s", got)
	}
	if err := stg.Commit(ctx, state.Changes{Checks: []byte(`[4]`)}); err != nil {
		t.Fatal(err)
	}
	stg.Close()
	if err := b.DeleteWorkspace(ctx, "staging", true); err != nil {
		t.Fatalf("deleting a workspace with check results: %v", err)
	}
	if got := checks(def); got != `[3]` {
		t.Errorf("default after deleting staging: %s", got)
	}
}

// TestMigrateFormat1: a schema of format 1 (no check results) keeps its
// state and records check results once a newer Tether connects.
func TestMigrateFormat1(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	s := open(t, connect(t, cfg), "default")
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, cfg.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	q := pgx.Identifier{cfg.Schema}.Sanitize()
	for _, stmt := range []string{`DROP TABLE ` + q + `.tether_checks`, `UPDATE ` + q + `.tether_meta SET value = '1' WHERE key = 'format_version'`} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	s = open(t, connect(t, cfg), "default")
	if err := s.Commit(ctx, state.Changes{Checks: []byte(`[1]`)}); err != nil {
		t.Fatalf("commit after migration: %v", err)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 1 || string(snap.Checks) != `[1]` {
		t.Errorf("after migration: %d objects, check results %q", len(snap.Objects), snap.Checks)
	}
	var v string
	if err := conn.QueryRow(ctx, `SELECT value FROM `+q+`.tether_meta WHERE key = 'format_version'`).Scan(&v); err != nil || v != "2" {
		t.Errorf("format version after migration: %q, %v", v, err)
	}
}
