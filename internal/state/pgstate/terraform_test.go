package pgstate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTerraformState reads the rows Terraform's pg backend writes (its
// states table, created as Terraform creates it), under Terraform's lock,
// and sets an adopted one aside.
func TestTerraformState(t *testing.T) {
	ctx := context.Background()
	cfg := config(t)
	b := connect(t, cfg)
	if ts, err := b.TerraformState(ctx, "default"); ts != nil || err != nil {
		t.Fatalf("no states table: want nothing, got %v, %v", ts, err)
	}
	tf, err := pgx.Connect(ctx, cfg.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close(ctx)
	q := pgx.Identifier{cfg.Schema}.Sanitize()
	for _, sql := range []string{
		`CREATE SEQUENCE IF NOT EXISTS public.global_states_id_seq AS bigint`,
		`CREATE TABLE ` + q + `.states (id bigint NOT NULL DEFAULT nextval('public.global_states_id_seq') PRIMARY KEY, name text UNIQUE, data text)`,
		`INSERT INTO ` + q + `.states (name, data) VALUES ('default', '{"version": 4}'), ('staging', '{"version": 4, "serial": 2}'), ('empty', NULL)`,
	} {
		if _, err := tf.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, ws := range []string{"empty", "absent"} {
		if ts, err := b.TerraformState(ctx, ws); ts != nil || err != nil {
			t.Errorf("workspace %s: want nothing, got %v, %v", ws, ts, err)
		}
	}

	// A terraform command holds the lock of staging: refused, naming it.
	var id int64
	if err := tf.QueryRow(ctx, `SELECT id FROM `+q+`.states WHERE name = 'staging'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := tf.Exec(ctx, `SELECT pg_advisory_lock($1)`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := b.TerraformState(ctx, "staging"); err == nil || !strings.Contains(err.Error(), `workspace "staging"`) || !strings.Contains(err.Error(), "locked by Terraform") {
		t.Errorf("staging locked by terraform: want an error naming it, got %v", err)
	}
	if _, err := tf.Exec(ctx, `SELECT pg_advisory_unlock($1)`, id); err != nil {
		t.Fatal(err)
	}

	ts, err := b.TerraformState(ctx, "default")
	if err != nil || ts == nil || string(ts.Data) != `{"version": 4}` {
		t.Fatalf("default: got %v, %v", ts, err)
	}
	// While Tether holds it, terraform cannot lock it.
	var got bool
	if err := tf.QueryRow(ctx, `SELECT pg_try_advisory_lock(id) FROM `+q+`.states WHERE name = 'default'`).Scan(&got); err != nil || got {
		t.Errorf("terraform took the lock of a state being adopted (%v)", err)
	}
	where, err := ts.SetAside(ctx)
	ts.Release()
	if err != nil || !strings.Contains(where, "tether_terraform_adopted") {
		t.Fatalf("SetAside: %q, %v", where, err)
	}
	var names []string
	rows, _ := tf.Query(ctx, `SELECT name FROM `+q+`.states ORDER BY name`)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	if err := rows.Err(); err != nil || strings.Join(names, ",") != "empty,staging" {
		t.Errorf("Terraform's rows after adopting default: %v (%v), want empty,staging", names, err)
	}
	var data string
	if err := tf.QueryRow(ctx, `SELECT data FROM `+q+`.tether_terraform_adopted WHERE name = 'default'`).Scan(&data); err != nil || data != `{"version": 4}` {
		t.Errorf("the adopted row was not kept: %q, %v", data, err)
	}
}
