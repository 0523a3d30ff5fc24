package pgstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/state"
)

// maxGroup caps how many Commit calls share one transaction.
const maxGroup = 1024

// ErrClosed is returned (wrapped) by every method of a closed store: the
// state package's, which both stores share.
var ErrClosed = state.ErrClosed

// Store is one workspace's state, behind state.Store.
type Store struct {
	ws    string
	where string // the schema and workspace, for messages
	names tables
	key   int32 // the workspace's advisory lock key, with names.lockClass

	// conn is the store's own connection, never pooled: it holds the
	// workspace's advisory lock and carries every commit. connMu
	// serialises its use.
	connMu sync.Mutex
	conn   *pgx.Conn
	locked bool
	// lost is set once the connection failed while holding the lock:
	// the lock is gone with it, so nothing more may be written.
	lost error

	// w is the single writer, and guards closing, as in the SQLite
	// store: methods run between w.Enter and w.Leave.
	w *state.Writer[[]*string]

	// groups counts committed transactions; tests use it to see that
	// concurrent commits were grouped.
	groups atomic.Int64
}

var _ state.Store = (*Store)(nil)

// Open opens workspace ws on its own connection. The workspace must exist,
// except default, which always does.
func (b *Backend) Open(ctx context.Context, ws string) (*Store, error) {
	var exists bool
	if err := b.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+b.names.workspaces+` WHERE name = $1)`, ws).Scan(&exists); err != nil {
		return nil, b.fail("opening workspace "+ws, err)
	}
	if !exists {
		if ws != DefaultWorkspace {
			return nil, fmt.Errorf("%w: %q in %s; create it with: tether workspace new %s", ErrNoWorkspace, ws, b.where, ws)
		}
		if _, err := b.conn.Exec(ctx, `INSERT INTO `+b.names.workspaces+` (name, lineage, serial) VALUES ($1, $2, 1) ON CONFLICT DO NOTHING`, ws, state.NewLineage()); err != nil {
			return nil, b.fail("opening workspace "+ws, err)
		}
	}
	conn, _, err := connect(ctx, b.cfg)
	if err != nil {
		return nil, err
	}
	s := &Store{
		ws:    ws,
		where: fmt.Sprintf("workspace %q of %s", ws, b.where),
		names: b.names,
		key:   lockKey(ws),
		conn:  conn,
	}
	s.w = state.NewWriter(maxGroup, fmt.Errorf("%s: %w", s.where, ErrClosed), s.commitGroup)
	return s, nil
}

// Where describes the workspace, schema and server, without credentials.
func (s *Store) Where() string { return s.where }

func (s *Store) begin() error { return s.w.Enter() }

func (s *Store) fail(doing string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.where, doing, err)
}

// use runs f with the connection, noting when it was lost with the lock.
func (s *Store) use(doing string, f func(*pgx.Conn) error) error {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.lost != nil {
		return s.lost
	}
	err := f(s.conn)
	if err == nil {
		return nil
	}
	if s.conn.IsClosed() && s.locked {
		s.lost = &lostError{msg: fmt.Sprintf("%s: lost the connection that held the state lock (%v); the lock went with it, so Tether writes nothing more. Run the command again", s.where, err), where: s.where}
		return s.lost
	}
	return s.fail(doing, err)
}

const objectColumns = `address, mode, type, provider, schema_version, value, private, sensitive, dependencies, status, create_before_destroy`

// Load returns the workspace's objects and outputs, read in one
// repeatable-read transaction so the snapshot is consistent.
func (s *Store) Load(ctx context.Context) (*state.Snapshot, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	snap := &state.Snapshot{Objects: map[string]*state.Object{}, Outputs: map[string]*state.Output{}}
	err := s.use("load", func(c *pgx.Conn) error {
		tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background())
		var serial int64
		if err := tx.QueryRow(ctx, `SELECT lineage, serial FROM `+s.names.workspaces+` WHERE name = $1`, s.ws).Scan(&snap.Lineage, &serial); err != nil {
			return err
		}
		snap.Serial = uint64(serial)
		if err := s.loadObjects(ctx, tx, snap.Objects); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT name, value, sensitive FROM `+s.names.outputs+` WHERE workspace = $1`, s.ws)
		if err != nil {
			return err
		}
		for rows.Next() {
			o := new(state.Output)
			if err := rows.Scan(&o.Name, &o.Value, &o.Sensitive); err != nil {
				rows.Close()
				return err
			}
			snap.Outputs[o.Name] = o
		}
		if err := rows.Err(); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `SELECT results FROM `+s.names.checks+` WHERE workspace = $1`, s.ws).Scan(&snap.Checks)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

func (s *Store) loadObjects(ctx context.Context, tx pgx.Tx, into map[string]*state.Object) error {
	rows, err := tx.Query(ctx, `SELECT `+objectColumns+` FROM `+s.names.objects+` WHERE workspace = $1`, s.ws)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Type, provider, mode and status repeat across thousands of rows.
	intern := map[string]string{}
	internStr := func(v string) string {
		if s, ok := intern[v]; ok {
			return s
		}
		intern[v] = v
		return v
	}
	var mode, typ, provider, status string
	var deps *string
	for rows.Next() {
		o := new(state.Object)
		if err := rows.Scan(&o.Address, &mode, &typ, &provider, &o.SchemaVersion,
			&o.Value, &o.Private, &o.Sensitive, &deps, &status, &o.CreateBeforeDestroy); err != nil {
			return err
		}
		o.Mode = state.Mode(internStr(mode))
		o.Type = internStr(typ)
		o.Provider = internStr(provider)
		o.Status = state.Status(internStr(status))
		if deps != nil {
			if err := json.Unmarshal([]byte(*deps), &o.Dependencies); err != nil {
				return fmt.Errorf("object %s: decoding dependencies: %w", o.Address, err)
			}
		}
		into[o.Address] = o
	}
	return rows.Err()
}

// Close waits for pending commits, releases the lock if held and closes
// the connection. Close is idempotent.
func (s *Store) Close() error {
	if !s.w.Close() {
		return nil
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	// Closing the session releases its advisory lock; the holder row is
	// left for the next holder to overwrite.
	return s.conn.Close(context.Background())
}
