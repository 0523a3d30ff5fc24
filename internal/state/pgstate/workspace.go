package pgstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/state"
)

// Workspaces lists the schema's workspaces, sorted; default is always
// among them, unless the schema, opened ReadOnly, has no Tether tables.
func (b *Backend) Workspaces(ctx context.Context) ([]string, error) {
	if b.id == "" {
		return nil, nil // opened ReadOnly, with none of Tether's tables
	}
	rows, err := b.conn.Query(ctx, `SELECT name FROM `+b.names.workspaces+` ORDER BY name`)
	if err != nil {
		return nil, b.fail("listing workspaces", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, b.fail("listing workspaces", err)
	}
	return names, nil
}

// ErrWorkspaceExists is returned by NewWorkspace for a name already taken.
var ErrWorkspaceExists = errors.New("workspace already exists")

// NewWorkspace creates an empty workspace.
func (b *Backend) NewWorkspace(ctx context.Context, name string) error {
	tag, err := b.conn.Exec(ctx, `INSERT INTO `+b.names.workspaces+` (name, lineage, serial) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING`, name, state.NewLineage())
	if err != nil {
		return b.fail("creating workspace "+name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %q in %s", ErrWorkspaceExists, name, b.where)
	}
	return nil
}

// ErrWorkspaceNotEmpty is returned by DeleteWorkspace for a workspace that
// still records objects, unless forced.
var ErrWorkspaceNotEmpty = errors.New("workspace is not empty")

// DeleteWorkspace deletes a workspace and everything it records. It takes
// the workspace's lock first, so a workspace in use is never deleted under
// its runner; a workspace with objects is deleted only when forced, since
// they are then forgotten, not destroyed.
func (b *Backend) DeleteWorkspace(ctx context.Context, name string, force bool) error {
	if name == DefaultWorkspace {
		return fmt.Errorf("the default workspace cannot be deleted")
	}
	var exists bool
	if err := b.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+b.names.workspaces+` WHERE name = $1)`, name).Scan(&exists); err != nil {
		return b.fail("deleting workspace "+name, err)
	}
	if !exists {
		return fmt.Errorf("%w: %q in %s", ErrNoWorkspace, name, b.where)
	}
	key := lockKey(name)
	var got bool
	if err := b.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, b.names.lockClass, key).Scan(&got); err != nil {
		return b.fail("deleting workspace "+name, err)
	}
	if !got {
		holder, _, err := waitHolder(ctx, b.conn, b.names, name)
		if err != nil {
			return b.fail("deleting workspace "+name, err)
		}
		return lockedError(fmt.Sprintf("workspace %q of %s", name, b.where), holder)
	}
	defer b.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, b.names.lockClass, key)
	tx, err := b.conn.Begin(ctx)
	if err != nil {
		return b.fail("deleting workspace "+name, err)
	}
	defer tx.Rollback(context.Background())
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+b.names.objects+` WHERE workspace = $1 AND mode = 'managed'`, name).Scan(&n); err != nil {
		return b.fail("deleting workspace "+name, err)
	}
	if n > 0 && !force {
		return fmt.Errorf("%w: workspace %q records %d resource instance(s); deleting it would forget them without destroying them. Destroy them first (tether destroy in that workspace), or delete it anyway with -force",
			ErrWorkspaceNotEmpty, name, n)
	}
	for _, q := range []string{
		`DELETE FROM ` + b.names.objects + ` WHERE workspace = $1`,
		`DELETE FROM ` + b.names.outputs + ` WHERE workspace = $1`,
		`DELETE FROM ` + b.names.checks + ` WHERE workspace = $1`,
		`DELETE FROM ` + b.names.locks + ` WHERE workspace = $1`,
		`DELETE FROM ` + b.names.workspaces + ` WHERE name = $1`,
	} {
		if _, err := tx.Exec(ctx, q, name); err != nil {
			return b.fail("deleting workspace "+name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return b.fail("deleting workspace "+name, err)
	}
	return nil
}
