package state

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// group makes the requests the writer would gather from these Commits.
func group(t *testing.T, s *SQLite, cs ...Changes) []*commitReq {
	t.Helper()
	g := make([]*commitReq, len(cs))
	for i, c := range cs {
		deps, err := s.prepareDeps(c)
		if err != nil {
			t.Fatal(err)
		}
		g[i] = &commitReq{Changes: c, Prepared: deps}
	}
	return g
}

// TestBatchedGroupMatchesOneByOne: a group whose objects are written in
// multi-row batches leaves what writing its requests one at a time, in
// order, leaves: deletes between puts, the same address put twice in a
// batch, a request that deletes and puts again the address it replaces.
// And its objects take a few statements, not one each.
func TestBatchedGroupMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	obj := func(addr string, step int) *Object {
		o := testObject(addr)
		o.Value = fmt.Appendf(nil, `{"step":%d}`, step)
		if step%3 == 0 {
			o.Dependencies = nil
		}
		return o
	}
	for round := range 10 {
		batched := openTest(t, filepath.Join(t.TempDir(), "batched.db"))
		single := openTest(t, filepath.Join(t.TempDir(), "single.db"))
		var cs []Changes
		for step := range 1 + rng.IntN(300) {
			var c Changes
			for range rng.IntN(3) {
				c.Delete = append(c.Delete, fmt.Sprintf("a%d", rng.IntN(12)))
			}
			for range rng.IntN(4) {
				c.Put = append(c.Put, obj(fmt.Sprintf("a%d", rng.IntN(12)), step))
			}
			if round%2 == 0 && step%5 != 0 {
				c.Delete = nil // long runs of puts alone
			}
			cs = append(cs, c)
		}
		if err := batched.commitGroup(group(t, batched, cs...)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			commit(t, single, c)
		}
		got, want := load(t, batched).Objects, load(t, single).Objects
		if len(got) != len(want) {
			t.Fatalf("round %d: %d objects, one at a time %d", round, len(got), len(want))
		}
		for addr, w := range want {
			if g := got[addr]; g == nil || string(g.Value) != string(w.Value) || fmt.Sprint(g.Dependencies) != fmt.Sprint(w.Dependencies) {
				t.Fatalf("round %d: %s is %+v, one at a time %+v", round, addr, g, w)
			}
		}
	}

	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	var cs []Changes
	for i := range 100 {
		cs = append(cs, Changes{Put: []*Object{testObject(fmt.Sprint(i))}})
	}
	before := s.putStmts.Load()
	if err := s.commitGroup(group(t, s, cs...)); err != nil {
		t.Fatal(err)
	}
	if n := s.putStmts.Load() - before; n != 3 { // 64 + 32 + 4
		t.Errorf("100 objects took %d statements, want 3", n)
	}
	if n := len(load(t, s).Objects); n != 100 {
		t.Errorf("%d objects, want 100", n)
	}
}

// TestBatchedGroupIsolatesFailure: an object SQLite refuses inside a
// batch fails its own request alone, named, and a request alone fails
// whole, naming the object.
func TestBatchedGroupIsolatesFailure(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	if _, err := s.db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON objects WHEN NEW.address = 'bad'
BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	var cs []Changes
	for i := range 40 {
		addr := fmt.Sprint(i)
		if i == 17 {
			addr = "bad"
		}
		cs = append(cs, Changes{Put: []*Object{testObject(addr)}})
	}
	g := group(t, s, cs...)
	if err := s.commitGroup(g); err != nil {
		t.Fatal(err)
	}
	for i, r := range g {
		if (r.Trouble != nil) != (i == 17) {
			t.Errorf("request %d: trouble %v", i, r.Trouble)
		}
	}
	if err := g[17].Trouble; err == nil || !strings.Contains(err.Error(), "writing object bad") || !strings.Contains(err.Error(), "refused by the test") {
		t.Errorf("failing request's error: %v", err)
	}
	if objs := load(t, s).Objects; len(objs) != 39 || objs["bad"] != nil {
		t.Errorf("%d objects after the group, want the 39 good ones", len(objs))
	}

	err := s.commitGroup(group(t, s, Changes{Put: []*Object{testObject("x"), testObject("bad"), testObject("y")}}))
	if err == nil || !strings.Contains(err.Error(), "writing object bad") {
		t.Errorf("a request alone with a refused object: %v", err)
	}
	if objs := load(t, s).Objects; objs["x"] != nil || objs["y"] != nil {
		t.Error("a failed request was partly committed")
	}
}

// TestWriterAllocationsPerObject: what a group costs the Go heap for each
// more object is about the object's own column values (its address and
// value passed to the driver), not a statement's arguments and results
// per object, nor a copy of its mode, type, provider and status; nor, in
// bytes, database/sql's own list of every statement's arguments (about
// 440 bytes an object when it converted them).
func TestWriterAllocationsPerObject(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "state.db"))
	allocs := func(n int) (objects, bytes float64) {
		var cs []Changes
		for i := range n {
			o := testObject(fmt.Sprint(i))
			o.Private, o.Sensitive, o.Dependencies = nil, nil, nil
			cs = append(cs, Changes{Put: []*Object{o}})
		}
		g := group(t, s, cs...)
		commit := func() {
			if err := s.commitGroup(g); err != nil {
				t.Fatal(err)
			}
		}
		commit() // statements prepared, the batch's storage grown
		const runs = 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			commit()
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / runs, float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	o64, b64 := allocs(64)
	o128, b128 := allocs(128)
	per, perBytes := (o128-o64)/64, (b128-b64)/64
	t.Logf("%.2f allocations, %.0f bytes for each more object", per, perBytes)
	if per > 3 {
		t.Errorf("%.1f allocations for each more object in a group, want at most 3", per)
	}
	if perBytes > 400 {
		t.Errorf("%.0f bytes allocated for each more object in a group, want at most 400", perBytes)
	}
}
