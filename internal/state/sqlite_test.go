package state

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func testObject(addr string) *Object {
	return &Object{
		Address:       addr,
		Mode:          Managed,
		Type:          "tether_file",
		Provider:      `provider["registry.terraform.io/tetherhq/tether"]`,
		SchemaVersion: 2,
		Value:         []byte(`{"id":"` + addr + `","content":"hello","path":"/tmp/x"}`),
		Private:       []byte{0, 1, 2, 0xff},
		Sensitive:     []byte(`[["content"]]`),
		Dependencies:  []string{"tether_file.base", `module.net.tether_file.conf["a"]`},
		Status:        Ready,
	}
}

func openTest(t testing.TB, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func load(t testing.TB, s *SQLite) *Snapshot {
	t.Helper()
	snap, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func commit(t testing.TB, s *SQLite, c Changes) {
	t.Helper()
	if err := s.Commit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".tether", "state.db") // parent is created
	s := openTest(t, path)
	ctx := context.Background()

	first := load(t, s)
	if len(first.Objects) != 0 || len(first.Outputs) != 0 {
		t.Fatalf("new store not empty: %+v", first)
	}
	if len(first.Lineage) != 36 || first.Serial != 1 {
		t.Fatalf("new store has lineage %q and serial %d, want a UUID and 1", first.Lineage, first.Serial)
	}
	serial := first.Serial

	a := testObject(`module.net.tether_file.conf["a"]`)
	b := testObject("data.tether_thing.b")
	b.Mode = Data
	b.Status = Tainted
	b.CreateBeforeDestroy = true
	b.Dependencies = nil
	b.Private = nil
	b.SchemaVersion = 1 << 40
	outs := []*Output{
		{Name: "ip", Value: []byte(`{"value":"10.0.0.1","type":"string"}`)},
		{Name: "secret", Value: []byte(`{"value":"x","type":"string"}`), Sensitive: true},
	}
	commit(t, s, Changes{Put: []*Object{a, b}, PutOutputs: outs})

	check := func(s *SQLite, objs []*Object, outs []*Output) {
		t.Helper()
		snap := load(t, s)
		if snap.Lineage != first.Lineage || snap.Serial <= serial {
			t.Errorf("after a commit: lineage %q, serial %d; want lineage %q, serial above %d", snap.Lineage, snap.Serial, first.Lineage, serial)
		}
		serial = snap.Serial
		want := &Snapshot{Objects: map[string]*Object{}, Outputs: map[string]*Output{}, Lineage: snap.Lineage, Serial: snap.Serial}
		for _, o := range objs {
			want.Objects[o.Address] = o
		}
		for _, o := range outs {
			want.Outputs[o.Name] = o
		}
		if !reflect.DeepEqual(snap, want) {
			t.Fatalf("Load:\n got %s\nwant %s", dump(snap), dump(want))
		}
	}
	check(s, []*Object{a, b}, outs)

	// Survives reopening.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, path)
	serial--
	check(s, []*Object{a, b}, outs)

	// Update, delete, delete outputs.
	a2 := testObject(a.Address)
	a2.Value = []byte(`{"id":"new"}`)
	commit(t, s, Changes{Put: []*Object{a2}, Delete: []string{b.Address}, DeleteOutputs: []string{"ip"}})
	check(s, []*Object{a2}, outs[1:])

	// Deleting what is not there is not an error.
	commit(t, s, Changes{Delete: []string{"nope"}, DeleteOutputs: []string{"nope"}})

	// In one batch, deletes happen before puts: a replacement keeps the new object.
	a3 := testObject(a.Address)
	a3.Value = []byte(`{"id":"replacement"}`)
	commit(t, s, Changes{Delete: []string{a.Address}, Put: []*Object{a3}})
	check(s, []*Object{a3}, outs[1:])

	if err := s.Commit(ctx, Changes{Put: []*Object{{}}}); err == nil {
		t.Fatal("commit of an object without address succeeded")
	}

	// A pushed state brings its lineage and serial.
	commit(t, s, Changes{Lineage: "00000000-0000-4000-8000-000000000001", Serial: 42})
	if snap := load(t, s); snap.Lineage != "00000000-0000-4000-8000-000000000001" || snap.Serial != 42 {
		t.Errorf("after setting lineage and serial: %q, %d", snap.Lineage, snap.Serial)
	}
}

// TestMigrateFormat1 opens a file of format 1 (no lineage or serial): it
// keeps its objects and gets a lineage.
func TestMigrateFormat1(t *testing.T) {
	path := createStore(t, 3)
	rawExec(t, path, "DROP TABLE meta", "DROP TABLE checks", "PRAGMA user_version = 1")
	s := openTest(t, path)
	snap := load(t, s)
	if len(snap.Objects) != 3 || len(snap.Lineage) != 36 || snap.Serial != 1 {
		t.Fatalf("migrated: %d objects, lineage %q, serial %d", len(snap.Objects), snap.Lineage, snap.Serial)
	}
	commit(t, s, Changes{Checks: []byte(`[]`)})
}

// TestMigrateFormat2 opens a file of format 2 (no check results): it keeps
// its objects, lineage and serial, and records check results from then on.
func TestMigrateFormat2(t *testing.T) {
	path := createStore(t, 3)
	s := openTest(t, path)
	before := load(t, s)
	s.Close()
	rawExec(t, path, "DROP TABLE checks", "PRAGMA user_version = 2")
	s = openTest(t, path)
	snap := load(t, s)
	if len(snap.Objects) != 3 || snap.Lineage != before.Lineage || snap.Serial != before.Serial || snap.Checks != nil {
		t.Fatalf("migrated: %d objects, lineage %q, serial %d, checks %q", len(snap.Objects), snap.Lineage, snap.Serial, snap.Checks)
	}
	commit(t, s, Changes{Checks: []byte(`[{"object_kind":"check"}]`)})
	if got := string(load(t, s).Checks); got != `[{"object_kind":"check"}]` {
		t.Errorf("check results after migration: %q", got)
	}
}

// TestCheckResults: check results are replaced whole by a commit that
// carries them, kept by one that does not, and removed by an empty one.
func TestCheckResults(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	if got := load(t, s).Checks; got != nil {
		t.Fatalf("a new state has check results %q", got)
	}
	for _, step := range []struct {
		commit []byte
		want   string
	}{
		{[]byte(`[1]`), `[1]`},
		{nil, `[1]`}, // another commit keeps them
		{[]byte(`[2]`), `[2]`},
		{[]byte{}, ``},
	} {
		serial := load(t, s).Serial
		commit(t, s, Changes{Checks: step.commit, Put: []*Object{testObject("tether_file.a")}})
		snap := load(t, s)
		if string(snap.Checks) != step.want {
			t.Errorf("after committing %q: check results %q, want %q", step.commit, snap.Checks, step.want)
		}
		if snap.Serial != serial+1 {
			t.Errorf("after committing %q: serial %d, want %d", step.commit, snap.Serial, serial+1)
		}
	}
	if (Changes{Checks: []byte{}}).Empty() {
		t.Error("changes that remove the check results are empty")
	}
}

func dump(s *Snapshot) string {
	var b strings.Builder
	for _, o := range s.Objects {
		fmt.Fprintf(&b, "\n  %+v", *o)
	}
	for _, o := range s.Outputs {
		fmt.Fprintf(&b, "\n  %+v", *o)
	}
	return b.String()
}

func TestFilePermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", ".tether")
	path := filepath.Join(dir, "state.db")
	openTest(t, path)
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s: mode %v, want at most %v", p, got, want)
		}
	}
}

// TestNewFileWhole checks what createIfMissing builds without syncs of its
// own: once closed, the new state file alone is a whole state (no
// write-ahead log or temporary file beside it), in WAL mode, ours, at
// the current format, with its lineage.
func TestNewFileWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	if err := createIfMissing(path); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "state.db" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %q, want only state.db", names)
	}
	checkNewFile(t, path)
}

// A file's content built ahead makes a file as whole as one built at once,
// and is used once: the next file gets a lineage of its own.
func TestNewFileBuiltAhead(t *testing.T) {
	dir := t.TempDir()
	BuildNewFileAhead()
	BuildNewFileAhead() // one waits already: nothing more
	first, second := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	for _, path := range []string{first, second} {
		if err := createIfMissing(path); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := checkNewFile(t, first), checkNewFile(t, second); a == b {
		t.Errorf("two new files share the lineage %q", a)
	}
	s := openTest(t, first)
	if err := s.quickCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// checkNewFile checks that the file at path is a new state file, whole by
// itself, and returns its lineage.
func checkNewFile(t *testing.T, path string) string {
	t.Helper()
	hdr := readFile(t, path)[:100]
	if hdr[18] != 2 || hdr[19] != 2 {
		t.Errorf("file format bytes %d/%d, want 2/2 (WAL)", hdr[18], hdr[19])
	}
	// Read by a plain connection, which sees the file alone.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var appID, version, metas int64
	var lineage string
	for q, dst := range map[string]any{
		"PRAGMA application_id":                  &appID,
		"PRAGMA user_version":                    &version,
		"SELECT count(*) FROM meta":              &metas,
		"SELECT lineage FROM meta WHERE one = 1": &lineage,
	} {
		if err := db.QueryRow(q).Scan(dst); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if appID != applicationID || version != formatVersion || metas != 1 || lineage == "" {
		t.Errorf("application_id %#x, user_version %d, %d meta rows, lineage %q; want %#x, %d, 1, a lineage",
			appID, version, metas, lineage, applicationID, formatVersion)
	}
	return lineage
}

// expectRefused opens path, expects it refused with an error of type E that
// names the path, and checks the file was not modified.
func expectRefused[E error](t *testing.T, path string) E {
	t.Helper()
	before := readFile(t, path)
	s, err := OpenSQLite(path)
	if err == nil {
		// Taking the lock comes first in every command, and must not
		// write to a file that is then found damaged.
		var u Unlocker
		if u, err = s.Lock(context.Background(), LockInfo{Operation: "up"}); err == nil {
			u.Unlock()
			_, err = s.Load(context.Background())
		}
		s.Close()
	}
	var target E
	if !errors.As(err, &target) {
		t.Fatalf("open %s: got error %v (%T), want %T", path, err, err, target)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error does not name the file: %v", err)
	}
	if after := readFile(t, path); !bytes.Equal(before, after) {
		t.Errorf("refused file %s was modified", path)
	}
	t.Logf("refused with: %v", err)
	return target
}

func TestRefuseGarbage(t *testing.T) {
	for _, size := range []int{0, 10, 4096, 100000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			garbage := make([]byte, size)
			rand.NewChaCha8([32]byte{byte(size)}).Read(garbage)
			if err := os.WriteFile(path, garbage, 0o600); err != nil {
				t.Fatal(err)
			}
			expectRefused[*CorruptError](t, path)
		})
	}
}

// createStore makes a closed state file holding n objects.
func createStore(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	var c Changes
	for i := range n {
		c.Put = append(c.Put, testObject(fmt.Sprintf("tether_file.f[%d]", i)))
	}
	commit(t, s, c)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawExec runs SQL on path behind the store's back, as a user with the
// sqlite3 shell (or a newer Tether) would.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefuseNewerFormat(t *testing.T) {
	path := createStore(t, 3)
	rawExec(t, path, fmt.Sprintf("PRAGMA user_version = %d", formatVersion+1))
	e := expectRefused[*NewerFormatError](t, path)
	want := fmt.Sprintf("state file %s was written by a newer Tether (format %d; this build reads up to %d); upgrade Tether",
		path, formatVersion+1, formatVersion)
	if e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
}

func TestRefuseForeignSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	rawExec(t, path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, jpeg BLOB)", "INSERT INTO photos (jpeg) VALUES (x'ffd8')")
	expectRefused[*CorruptError](t, path)
}

func TestRefuseCorruptPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   func(size int) int // offset of the damage
	}{
		{"schema page", func(int) int { return 100 }}, // page 1, just past the header
		{"data pages", func(size int) int { return size / 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := createStore(t, 500)
			b := readFile(t, path)
			off := tc.at(len(b))
			junk := make([]byte, 8192)
			rand.NewChaCha8([32]byte{1}).Read(junk)
			copy(b[off:], junk)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			expectRefused[*CorruptError](t, path)
		})
	}
}

func TestClosed(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	ctx := context.Background()
	commit(t, s, Changes{Put: []*Object{testObject("a")}})
	u, err := s.Lock(ctx, LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for name, err := range map[string]error{
		"Commit": s.Commit(ctx, Changes{Put: []*Object{testObject("b")}}),
		"Load":   func() error { _, err := s.Load(ctx); return err }(),
		"Lock":   func() error { _, err := s.Lock(ctx, LockInfo{}); return err }(),
		"Unlock": u.Unlock(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: got %v, want ErrClosed", name, err)
		}
	}
}

// TestCloseDuringCommits checks that Close racing many Commits never panics
// and that every Commit that returned nil is in the file.
func TestCloseDuringCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		committed []string
	)
	for i := range 300 {
		wg.Go(func() {
			addr := fmt.Sprintf("tether_file.f[%d]", i)
			err := s.Commit(context.Background(), Changes{Put: []*Object{testObject(addr)}})
			switch {
			case err == nil:
				mu.Lock()
				committed = append(committed, addr)
				mu.Unlock()
			case !errors.Is(err, ErrClosed):
				t.Error(err)
			}
		})
		if i == 150 {
			go s.Close()
		}
	}
	wg.Wait()
	s.Close()
	s = openTest(t, path)
	snap := load(t, s)
	for _, a := range committed {
		if snap.Objects[a] == nil {
			t.Errorf("committed %s is missing", a)
		}
	}
	t.Logf("%d of 300 committed before Close", len(committed))
}

// holdWriter makes the writer wait, after taking its first request, until n
// requests in all are queued, so they are sure to form one group.
func holdWriter(s *SQLite, n int) {
	var once sync.Once
	s.w.afterFirst = func() {
		once.Do(func() {
			for len(s.w.reqs) < n-1 {
				time.Sleep(time.Millisecond)
			}
		})
	}
}

func TestGroupCommit(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	const n = 200
	holdWriter(s, n)
	before := s.groups.Load()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := s.Commit(context.Background(), Changes{Put: []*Object{testObject(fmt.Sprint(i))}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := s.groups.Load() - before; got != 1 {
		t.Errorf("%d concurrent commits took %d transactions, want 1", n, got)
	}
	if got := len(load(t, s).Objects); got != n {
		t.Errorf("%d objects, want %d", got, n)
	}
}

func TestGroupCommitIsolatesFailure(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	const n = 50
	holdWriter(s, n)
	s.applyHook = func(r *commitReq) error {
		if len(r.Changes.Put) > 0 && r.Changes.Put[0].Address == "bad" {
			return errors.New("injected failure")
		}
		return nil
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			addr := fmt.Sprint(i)
			if i == n/2 {
				addr = "bad"
			}
			errs[i] = s.Commit(context.Background(), Changes{
				Put:        []*Object{testObject(addr)},
				PutOutputs: []*Output{{Name: addr}},
			})
		})
	}
	wg.Wait()
	snap := load(t, s)
	for i, err := range errs {
		if i == n/2 {
			if err == nil || !strings.Contains(err.Error(), "injected failure") {
				t.Errorf("failing commit returned %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	if len(snap.Objects) != n-1 || snap.Objects["bad"] != nil || snap.Outputs["bad"] != nil {
		t.Errorf("failed commit was partly applied or others lost: %d objects", len(snap.Objects))
	}
	if g := s.groups.Load(); g != 1 {
		t.Errorf("%d transactions, want 1", g)
	}
}

func TestConcurrentCommits(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	const workers, each = 500, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				// Every commit writes an object and its twin, and drops
				// the pair written two steps earlier, so Loads can check
				// they only ever see whole commits.
				a := fmt.Sprintf("w%d_%d", w, i)
				c := Changes{Put: []*Object{testObject(a), testObject(a + "_twin")}}
				if i >= 2 {
					old := fmt.Sprintf("w%d_%d", w, i-2)
					c.Delete = []string{old, old + "_twin"}
				}
				if err := s.Commit(context.Background(), c); err != nil {
					t.Error(err)
				}
			}
		})
	}
	stop := make(chan struct{})
	loadsDone := make(chan struct{})
	loads := 0
	go func() {
		defer close(loadsDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			snap, err := s.Load(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			loads++
			for addr := range snap.Objects {
				twin, ok := strings.CutSuffix(addr, "_twin")
				if !ok {
					twin = addr + "_twin"
				}
				if snap.Objects[twin] == nil {
					t.Errorf("Load saw %s without %s: a commit was seen half applied", addr, twin)
					return
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-loadsDone
	snap := load(t, s)
	if len(snap.Objects) != workers*2*2 {
		t.Errorf("%d objects, want %d", len(snap.Objects), workers*2*2)
	}
	t.Logf("%d commits in %d transactions, %d concurrent loads", workers*each, s.groups.Load(), loads)
}

// TestCrashDurability kills a real process right after commits returned and
// checks that every one of them is in the file.
func TestCrashDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	cmd, _, out := startChild(t, "crash", path)
	var reported []string
	for out.Scan() {
		reported = append(reported, out.Text())
	}
	err := cmd.Wait()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("child did not exit 1 as planned: %v", err)
	}
	if len(reported) == 0 {
		t.Fatal("child reported no commits")
	}
	s := openTest(t, path)
	snap := load(t, s)
	for _, a := range reported {
		o := snap.Objects[a]
		if o == nil {
			t.Errorf("committed object %s lost in crash", a)
			continue
		}
		if !reflect.DeepEqual(o, testObject(a)) {
			t.Errorf("object %s damaged: %+v", a, o)
		}
	}
	t.Logf("child reported %d commits; file holds %d objects", len(reported), len(snap.Objects))
}

// TestOddPath: characters that mean something in a URI must reach SQLite as
// part of the file name.
func TestOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c=d#e%20f&g")
	path := filepath.Join(dir, ".tether", "state.db")
	s := openTest(t, path)
	commit(t, s, Changes{Put: []*Object{testObject("x")}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("state not written at %s: %v", path, err)
	}
	if got := load(t, openTest(t, path)).Objects["x"]; got == nil {
		t.Fatal("object lost")
	}
}

// TestLockLost: once another process broke this store's lock and took its
// own, a commit writes nothing and says so.
func TestLockLost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	a, b := openTest(t, path), openTest(t, path)
	ctx := context.Background()
	if _, err := a.Lock(ctx, LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	commit(t, a, Changes{Put: []*Object{testObject("tether_file.first")}})
	if _, err := b.ForceUnlock(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, LockInfo{Operation: "destroy"}); err != nil {
		t.Fatal(err)
	}
	err := a.Commit(ctx, Changes{Put: []*Object{testObject("tether_file.second")}})
	var lost *LockLostError
	if !errors.As(err, &lost) || lost.Holder == nil || lost.Holder.Operation != "destroy" {
		t.Fatalf("commit after the lock was taken over: got %v, want a *LockLostError naming the destroy", err)
	}
	if _, ok := load(t, b).Objects["tether_file.second"]; ok {
		t.Error("the commit of a store that lost its lock was written")
	}
	commit(t, b, Changes{Put: []*Object{testObject("tether_file.third")}})
}

// TestSerialOfGroupWithFailedLineage: a commit that would set the lineage
// and serial (state push) and fails alone leaves the rest of its group
// committed, and that transaction counts in the serial like any other.
func TestSerialOfGroupWithFailedLineage(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	before := load(t, s).Serial
	holdWriter(s, 2)
	s.applyHook = func(r *commitReq) error {
		if r.Changes.Lineage != "" {
			return errors.New("injected failure")
		}
		return nil
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		errs[0] = s.Commit(context.Background(), Changes{Lineage: "00000000-0000-4000-8000-000000000001", Serial: before})
	})
	wg.Go(func() {
		errs[1] = s.Commit(context.Background(), Changes{Put: []*Object{testObject("tether_file.a")}})
	})
	wg.Wait()
	if errs[0] == nil || errs[1] != nil {
		t.Fatalf("commits returned %v and %v; want the lineage's to fail alone", errs[0], errs[1])
	}
	snap := load(t, s)
	if snap.Objects["tether_file.a"] == nil {
		t.Fatal("the object committed beside the failed lineage is missing")
	}
	if snap.Serial <= before {
		t.Errorf("serial %d after a committed transaction, want above %d", snap.Serial, before)
	}
}

// TestLoadReadsEachColumn checks that every object loads as it was put,
// whichever of its mode, type, provider and status it shares with the
// object read first (Load reads those it shares without a string each),
// and what loading costs an object of the common kind: where the driver
// made a string and an interface value of each column, it makes them of
// its address and value only.
func TestLoadReadsEachColumn(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	var put []*Object
	for i := range 16 {
		o := testObject(fmt.Sprintf("tether_file.o%d", i))
		if i&1 != 0 {
			o.Mode = Data
		}
		if i&2 != 0 {
			o.Type = "tether_value"
		}
		if i&4 != 0 {
			o.Provider = `provider["registry.terraform.io/hashicorp/aws"].west`
		}
		if i&8 != 0 {
			o.Status = Tainted
		}
		put = append(put, o)
	}
	empty := testObject("tether_file.empty")
	empty.Mode, empty.Type, empty.Provider, empty.Status = "", "", "", ""
	put = append(put, empty)
	commit(t, s, Changes{Put: put})
	got := load(t, s).Objects
	if len(got) != len(put) {
		t.Fatalf("loaded %d objects, want %d", len(got), len(put))
	}
	for _, o := range put {
		if !reflect.DeepEqual(got[o.Address], o) {
			t.Errorf("loaded %s as\n%s\nwant\n%s", o.Address, fmt.Sprintf("%+v", got[o.Address]), fmt.Sprintf("%+v", o))
		}
	}

	allocs := func(n int) float64 {
		s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
		var put []*Object
		for i := range n {
			o := testObject(fmt.Sprintf("tether_file.r%d", i))
			o.Private, o.Sensitive, o.Dependencies = nil, nil, nil
			put = append(put, o)
		}
		commit(t, s, Changes{Put: put})
		return testing.AllocsPerRun(3, func() { load(t, s) })
	}
	small, large := allocs(10), allocs(1010)
	if per := (large - small) / 1000; per > 5 {
		t.Errorf("%.1f allocations per object loaded (%v for 10, %v for 1,010)", per, small, large)
	}
}

// TestInt64Col checks that int64Col scans what database/sql scans into an
// int64, and refuses what it refuses with the same error.
func TestInt64Col(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seven int64Col
	if err := db.QueryRow("SELECT 7").Scan(&seven); err != nil || seven != 7 {
		t.Fatalf("SELECT 7 scans as %d, %v", seven, err)
	}
	for _, arg := range []any{int64(7), int64(-1 << 40), "12", []byte("13"), float64(3), nil, "x", 2.5} {
		var want int64
		wantErr := db.QueryRow("SELECT ?", arg).Scan(&want)
		var got int64Col
		err := db.QueryRow("SELECT ?", arg).Scan(&got)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || int64(got) != want {
			t.Errorf("scanning %#v: %d, %v; into an int64: %d, %v", arg, got, err, want, wantErr)
		}
	}
}
