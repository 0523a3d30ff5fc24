package state

import (
	"context"
	"database/sql"
	"strings"
)

// Scanner is a Store that can read the objects of some resource types one
// at a time, without loading the others or holding them all: a question
// about a few types (which platform applied this state?) then costs
// nothing like a Load of a large state.
type Scanner interface {
	// ScanObjects calls fn with each object whose mode and type keep
	// accepts, in no particular order, until fn returns false. The
	// object, with its bytes, is valid only during the call.
	ScanObjects(ctx context.Context, keep func(Mode, string) bool, fn func(*Object) bool) error
}

// ScanObjects is s.ScanObjects when s is a Scanner; any other store is
// loaded whole and its snapshot read the same way.
func ScanObjects(ctx context.Context, s Store, keep func(Mode, string) bool, fn func(*Object) bool) error {
	if sc, ok := s.(Scanner); ok {
		return sc.ScanObjects(ctx, keep, fn)
	}
	snap, err := s.Load(ctx)
	if err != nil {
		return err
	}
	for _, o := range snap.Objects {
		if keep(o.Mode, o.Type) && !fn(o) {
			break
		}
	}
	return nil
}

var _ Scanner = (*SQLite)(nil)

// ScanObjects implements Scanner: the distinct types first, then the rows
// of the types kept, read in one transaction as Load reads.
func (s *SQLite) ScanObjects(ctx context.Context, keep func(Mode, string) bool, fn func(*Object) bool) error {
	if err := s.begin(); err != nil {
		return err
	}
	defer s.w.Leave()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fileError(s.path, "load", err)
	}
	defer tx.Rollback()
	types, err := keptTypes(ctx, tx, keep)
	if err != nil || len(types) == 0 {
		return fileError(s.path, "load", err)
	}
	var r objectRow
	args, err := r.common(ctx, tx)
	if err != nil {
		return fileError(s.path, "load", err)
	}
	rows, err := tx.QueryContext(ctx, sqlLoadObjects+" WHERE type IN (?"+strings.Repeat(", ?", len(types)-1)+")", append(args, types...)...)
	if err != nil {
		return fileError(s.path, "load", err)
	}
	defer rows.Close()
	var o Object
	for rows.Next() {
		if err := r.scan(rows, &o); err != nil {
			return fileError(s.path, "load", err)
		}
		if keep(o.Mode, o.Type) && !fn(&o) {
			return nil
		}
	}
	return fileError(s.path, "load", rows.Err())
}

// keptTypes are the distinct types of the objects keep accepts with
// their mode, as query arguments.
func keptTypes(ctx context.Context, tx *sql.Tx, keep func(Mode, string) bool) ([]any, error) {
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT mode, type FROM objects`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var types []any
	for rows.Next() {
		var mode, typ string
		if err := rows.Scan(&mode, &typ); err != nil {
			return nil, err
		}
		if keep(Mode(mode), typ) {
			types = append(types, typ)
		}
	}
	return types, rows.Err()
}
