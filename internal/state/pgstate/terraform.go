package pgstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Terraform's own pg backend keeps each workspace's state as one JSON
// document (state format 4), a row of the table states in the schema it
// is configured with, and locks a workspace with a session advisory lock
// keyed by that row's id. Tether can use the same schema, so a folder that
// moves from Terraform to Tether finds Terraform's state beside its own.

// terraformAdopted holds the rows Tether took over, moved out of
// Terraform's states table so that Terraform no longer finds them; nothing
// is deleted.
const terraformAdopted = "tether_terraform_adopted"

// TerraformState is the state Terraform's pg backend keeps for one
// workspace, read under Terraform's lock on it, which is held until
// Release.
type TerraformState struct {
	// Data is the state document as Terraform wrote it.
	Data []byte
	// Where names the table and row, for messages.
	Where string

	b     *Backend
	ws    string
	id    int64
	table string
}

// TerraformWorkspaces lists, sorted, the workspaces Terraform's pg backend
// has rows for in this schema: none when there is no states table.
func (b *Backend) TerraformWorkspaces(ctx context.Context) ([]string, error) {
	exists, err := b.terraformTable(ctx)
	if err != nil || !exists {
		return nil, err
	}
	rows, err := b.conn.Query(ctx, `SELECT name FROM `+b.names.schema+`.states WHERE name IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, b.fail("reading Terraform's states table", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, b.fail("reading Terraform's states table", err)
	}
	return names, nil
}

// terraformTable reports whether the schema has Terraform's states table.
func (b *Backend) terraformTable(ctx context.Context) (bool, error) {
	var exists bool
	if err := b.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'states')`, b.cfg.schema()).Scan(&exists); err != nil {
		return false, b.fail("looking for Terraform's states table", err)
	}
	return exists, nil
}

// TerraformState returns the state Terraform's pg backend keeps for
// workspace ws in this schema, or nil when there is none: no states
// table, no row for the workspace, or a row with no data. It takes
// Terraform's lock on the row first, and fails naming it when a terraform
// command holds it, so that the state cannot change while it is taken
// over. The caller must Release it.
func (b *Backend) TerraformState(ctx context.Context, ws string) (*TerraformState, error) {
	table := b.names.schema + ".states"
	where := fmt.Sprintf("Terraform's state of workspace %q in %s (table states)", ws, b.where)
	if exists, err := b.terraformTable(ctx); err != nil || !exists {
		return nil, err
	}
	var id int64
	err := b.conn.QueryRow(ctx, `SELECT id FROM `+table+` WHERE name = $1`, ws).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, b.fail("reading Terraform's states table", err)
	}
	var got bool
	if err := b.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, id).Scan(&got); err != nil {
		return nil, b.fail("taking Terraform's lock", err)
	}
	if !got {
		return nil, fmt.Errorf("%s is locked by Terraform (a terraform command is running, or one that crashed still holds its session); Tether takes the state over only when Terraform cannot write it", where)
	}
	t := &TerraformState{Where: where, b: b, ws: ws, id: id, table: table}
	var data *string
	if err := b.conn.QueryRow(ctx, `SELECT data FROM `+table+` WHERE id = $1`, id).Scan(&data); err != nil {
		t.Release()
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil // deleted before the lock was taken
		}
		return nil, b.fail("reading Terraform's state", err)
	}
	if data == nil || *data == "" {
		t.Release()
		return nil, nil
	}
	t.Data = []byte(*data)
	return t, nil
}

// Release gives Terraform's lock back.
func (t *TerraformState) Release() {
	t.b.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, t.id)
}

// SetAside moves Terraform's row to the table tether_terraform_adopted in
// the same schema, in one transaction, once Tether holds the state: a
// terraform command then finds no state for the workspace, and the
// document is still there. It returns the table's name.
func (t *TerraformState) SetAside(ctx context.Context) (string, error) {
	adopted := t.b.names.schema + "." + terraformAdopted
	tx, err := t.b.conn.Begin(ctx)
	if err != nil {
		return "", t.b.fail("setting Terraform's state aside", err)
	}
	defer tx.Rollback(context.Background())
	steps := []struct {
		sql  string
		args []any
	}{
		{`CREATE TABLE IF NOT EXISTS ` + adopted + ` (
	name    text        NOT NULL,
	data    text,
	adopted timestamptz NOT NULL DEFAULT now())`, nil},
		{`INSERT INTO ` + adopted + ` (name, data) SELECT name, data FROM ` + t.table + ` WHERE id = $1`, []any{t.id}},
		{`DELETE FROM ` + t.table + ` WHERE id = $1`, []any{t.id}},
	}
	for _, st := range steps {
		if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
			return "", t.b.fail("setting Terraform's state aside", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return "", t.b.fail("setting Terraform's state aside", err)
	}
	return fmt.Sprintf("table %s of %s", terraformAdopted, t.b.where), nil
}
