package pgstate_test

import (
	"bytes"
	"context"
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
