package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// migrateMoments are the moments a migrate trial's kill is aimed at, in
// turn. A kill at a uniformly random time of the run almost never lands
// in the last milliseconds, where the copy has committed and init records
// the new backend and sets the local files aside, so two of the three
// moments wait for that end:
//
//   - timed: a uniformly random moment of the measured run;
//   - after copy: as soon as PostgreSQL holds the copy, then 0-15 ms
//     later (recording the backend, setting the local files aside);
//   - after record: as soon as .tether/backend.json names PostgreSQL,
//     then 0-3 ms later (setting the local files aside, which takes a few
//     milliseconds).
var migrateMoments = []string{"timed", "after copy", "after record"}

// watchMigration fires when the migration in dir reaches moment, plus a
// random few milliseconds, polling every millisecond until stop.
func (t *trials) watchMigration(dir, moment string, stop <-chan struct{}) <-chan time.Time {
	fire := make(chan time.Time, 1)
	window := 15 * time.Millisecond
	if moment == "after record" {
		window = 3 * time.Millisecond
	}
	delay := time.Duration(t.rng.Int64N(int64(window)))
	want := 2 * t.o.resources
	go func() {
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		}()
		reached := func() bool {
			if moment == "after record" {
				b, err := os.ReadFile(filepath.Join(dir, ".tether", "backend.json"))
				return err == nil && bytes.Contains(b, []byte(`"pg"`))
			}
			if conn == nil {
				var err error
				if conn, err = pgx.Connect(context.Background(), t.srv.ConnString("")); err != nil {
					return false
				}
			}
			return t.copiedCount(conn, dir) >= want
		}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if reached() {
				time.Sleep(delay)
				fire <- time.Now()
				return
			}
		}
	}()
	return fire
}

// copiedCount counts the objects a trial's schema holds: 0 before the
// migration created its tables.
func (t *trials) copiedCount(conn *pgx.Conn, dir string) int {
	var n int
	err := conn.QueryRow(context.Background(), `SELECT count(*) FROM `+pgx.Identifier{schemaOf(dir), "tether_objects"}.Sanitize()).Scan(&n)
	if err != nil {
		return 0
	}
	return n
}

// checkMigrateKill checks a folder right after a migration was killed.
// Wherever PostgreSQL holds anything, it must hold all of it (the copy is
// one transaction); where the backend record names it, it must hold it.
// The local source must be whole wherever it is: in .tether, or set aside
// in .tether/migrated-*, where the file alone (without any write-ahead
// log beside it) must hold every object.
func (t *trials) checkMigrateKill(dir string, r *result, fail func(string, ...any)) {
	want := 2 * t.o.resources
	settings, err := os.ReadFile(filepath.Join(dir, ".tether", "backend.json"))
	r.migrated = err == nil && bytes.Contains(settings, []byte(`"pg"`))
	conn, err := pgx.Connect(context.Background(), t.srv.ConnString(""))
	if err != nil {
		fail("connecting to PostgreSQL: %v", err)
		return
	}
	copied := t.copiedCount(conn, dir)
	conn.Close(context.Background())
	r.copied = copied > 0
	switch {
	case r.copied && copied != want:
		fail("after the kill PostgreSQL holds %d objects, want none or %d: a partial copy", copied, want)
	case r.migrated && copied != want:
		fail("after the kill the backend record names PostgreSQL, which holds %d objects, want %d", copied, want)
	}
	if r.migrated {
		objs, err := t.recorded(dir)
		if err != nil {
			fail("state does not load from PostgreSQL after the kill: %v", err)
		} else if len(objs) != want {
			fail("after the kill PostgreSQL, which the backend record names, records %d objects, want %d", len(objs), want)
		}
	}
	r.recordedAtKill = copied

	// The source, wherever it is.
	files := []string{"state.db", "state.db-wal", "state.db-shm"}
	srcDir := filepath.Join(dir, ".tether")
	if _, err := os.Stat(filepath.Join(srcDir, "state.db")); errors.Is(err, os.ErrNotExist) {
		aside, _ := filepath.Glob(filepath.Join(dir, ".tether", "migrated-*", "state.db"))
		if len(aside) == 0 {
			fail("after the kill the local state is neither in .tether nor set aside")
			return
		}
		sort.Strings(aside)
		srcDir, files = filepath.Dir(aside[len(aside)-1]), []string{"state.db"}
		r.setAside = true
	}
	from := filepath.Join(t.work, "source-"+filepath.Base(dir))
	defer os.RemoveAll(from)
	if err := os.MkdirAll(filepath.Join(from, ".tether"), 0o755); err != nil {
		fail("%v", err)
		return
	}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(srcDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(from, ".tether", name), b, 0o600)
		}
		if err != nil {
			fail("%v", err)
			return
		}
	}
	if err := t.writeConfig(from, true); err != nil {
		fail("%v", err)
		return
	}
	objs, err := t.recorded(from)
	if err != nil {
		fail("the local source does not load after the kill: %v", err)
		return
	}
	if len(objs) != want {
		where := "the local source in .tether"
		if r.setAside {
			where = "the local source set aside (" + filepath.Base(srcDir) + "/state.db alone)"
		}
		fail("after the kill %s records %d objects, want %d", where, len(objs), want)
	}
}

// migrateNotes says, for each moment, where the killed migrations had got
// to and what was checked.
func migrateNotes(results []result) string {
	type tally struct{ n, killed, copied, migrated, setAside, left int }
	by := map[string]*tally{}
	for _, r := range results {
		if r.kind != "migrate" {
			continue
		}
		c := by[r.moment]
		if c == nil {
			c = &tally{}
			by[r.moment] = c
		}
		c.n++
		if r.finished {
			continue
		}
		c.killed++
		for _, x := range []struct {
			set bool
			n   *int
		}{{r.copied, &c.copied}, {r.migrated, &c.migrated}, {r.setAside, &c.setAside}, {r.leftLocal, &c.left}} {
			if x.set {
				*x.n++
			}
		}
	}
	if len(by) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nMigrations by the moment the kill was aimed at: killed before the end, and of those, how many had committed the copy to PostgreSQL (checked complete there), recorded the new backend in `.tether/backend.json`, and set the local files aside (the set-aside `state.db` checked whole by itself, without its `-wal`); the local source was checked intact in every killed trial, wherever it was. \"left local\" counts recoveries after which a local `state.db` still sat in `.tether` beside the migrated copy.\n\n")
	b.WriteString("| kill aimed at | trials | killed | copy committed | backend recorded | set aside | left local |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range migrateMoments {
		if c := by[m]; c != nil {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", m, c.n, c.killed, c.copied, c.migrated, c.setAside, c.left)
		}
	}
	return b.String()
}
