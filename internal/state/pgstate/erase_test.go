package pgstate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/state"
)

// TestEraseLeavesNoOldRow: after a commit with Changes.Erase (a value
// state recorded in clear, sealed), no file of the objects and outputs
// tables holds the old value, read from the server's data folder after a
// checkpoint has written every page out. Without the rewrite, the row the
// UPDATE replaced stays whole in the table's page.
func TestEraseLeavesNoOldRow(t *testing.T) {
	const canary = "CANARY-pg-erase-5d1c9b7e"
	ctx := context.Background()
	cfg := config(t)
	s := open(t, connect(t, cfg), "default")
	clear := object("tether_file.a")
	clear.Value = []byte(`{"id":"a","content":"` + canary + `"}`)
	out := &state.Output{Name: "o", Value: []byte(`"` + canary + `"`)}
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{clear}, PutOutputs: []*state.Output{out}}); err != nil {
		t.Fatal(err)
	}
	sealed := object("tether_file.a")
	sealed.Value = []byte(`{"id":"a","content":"(sealed)"}`)
	if err := s.Commit(ctx, state.Changes{
		Put:        []*state.Object{sealed},
		PutOutputs: []*state.Output{{Name: "o", Value: []byte(`"(sealed)"`), Sensitive: true}},
		Erase:      true,
	}); err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, cfg.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	q := pgx.Identifier{cfg.Schema}.Sanitize()
	for _, table := range []string{"tether_objects", "tether_outputs"} {
		var files []string
		rows, err := conn.Query(ctx, `SELECT pg_relation_filepath(c.oid) FROM pg_class c
WHERE c.oid = $1::regclass OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = $1::regclass)`, q+"."+table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var f string
			if err := rows.Scan(&f); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no file for %s", table)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(server.Dir, "data", f))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(canary)) {
				t.Errorf("%s (%s) still holds the value sealed since", table, f)
			}
		}
	}
}

// TestEraseNotOwner: a role that may write the state's tables but does not
// own them cannot rewrite them; the commit with Changes.Erase still
// succeeds, and so does the next one (the warning goes to the log).
func TestEraseNotOwner(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	open(t, connect(t, cfg), "default").Close()
	conn, err := pgx.Connect(ctx, cfg.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	role := pgx.Identifier{cfg.Schema + "_writer"}.Sanitize()
	q := pgx.Identifier{cfg.Schema}.Sanitize()
	for _, stmt := range []string{
		`CREATE ROLE ` + role + ` LOGIN PASSWORD 'writer'`,
		`GRANT USAGE ON SCHEMA ` + q + ` TO ` + role,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + q + ` TO ` + role,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	writer := cfg
	writer.ConnStr = fmt.Sprintf("postgres://%s:writer@127.0.0.1:%d/postgres?sslmode=disable", cfg.Schema+"_writer", server.Port)
	s := open(t, connect(t, writer), "default")
	sealed := object("tether_file.a")
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{sealed}, Erase: true}); err != nil {
		t.Fatalf("commit with Erase as a role that does not own the tables: %v", err)
	}
	if err := s.Commit(ctx, state.Changes{Put: []*state.Object{object("tether_file.b")}}); err != nil {
		t.Fatalf("the next commit: %v", err)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Objects) != 2 {
		t.Errorf("%d objects after the two commits, want 2", len(snap.Objects))
	}
}
