package state

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/canary"
)

// TestEraseLeavesNoCopy records values in clear, then seals them with
// Erase (what the engine does when a value is newly found sensitive), and
// scans every byte of the state folder: state.db with its freed space and
// pages, the write-ahead log and its index, while the store is still open
// (a run killed then leaves them so) and after it is closed. A short value
// lives in its row's page; a long one spills onto overflow pages that the
// sealed value frees.
//
// A file written by an earlier Tether, without secure_delete, holds the
// old versions of rows in its free space: those go too.
func TestEraseLeavesNoCopy(t *testing.T) {
	for _, old := range []bool{false, true} {
		t.Run(map[bool]string{false: "this version", true: "file written without secure_delete"}[old], func(t *testing.T) {
			eraseLeavesNoCopy(t, old)
		})
	}
}

func eraseLeavesNoCopy(t *testing.T, old bool) {
	const short, long = "CANARY-erase-short-5a1b", "CANARY-erase-long-7c2d"
	dir := t.TempDir()
	s := openTest(t, filepath.Join(dir, "state.db"))
	if old {
		if _, err := s.wconn.ExecContext(context.Background(), "PRAGMA secure_delete=0"); err != nil {
			t.Fatal(err)
		}
	}
	clear := func(addr, v string) *Object {
		o := testObject(addr)
		o.Value = []byte(`{"id":"` + addr + `","input":"` + v + `"}`)
		o.Private = nil
		return o
	}
	sealed := func(addr string, n int) *Object {
		o := testObject(addr)
		o.Value = []byte("tether-sealed:v1:" + strings.Repeat("x", n))
		o.Private = nil
		return o
	}
	longValue := strings.Repeat(long+"-", 2000)
	commit(t, s, Changes{Put: []*Object{clear("tether_value.short", short), clear("tether_value.long", longValue), testObject("tether_file.other")}})
	// Another write to the same pages, as a run's other objects make.
	commit(t, s, Changes{Put: []*Object{testObject("tether_file.more")}})
	// A clear record written again (a refresh that changed its
	// dependencies): its old version is freed, in clear.
	commit(t, s, Changes{Put: []*Object{clear("tether_value.short", short+"-again"), clear("tether_value.long", longValue+"-again")}})
	commit(t, s, Changes{Put: []*Object{sealed("tether_value.short", 80), sealed("tether_value.long", 30000)}, Erase: true})

	check := func(when string) {
		t.Helper()
		leaks, err := canary.ScanDir(dir, []string{short, long})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leaks {
			t.Errorf("%s: %s", when, l)
		}
	}
	check("with the store open")
	if got := load(t, s).Objects; len(got) != 4 {
		t.Errorf("state holds %d objects, want 4", len(got))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("after the store closed")
}
