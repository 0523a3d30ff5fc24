package pgstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/state"
)

// commitReq is one Commit call waiting for the writer; Prepared holds the
// Dependencies of Changes.Put[i] as JSON, nil when none.
type commitReq = state.Request[[]*string]

// Commit applies c atomically and returns once the server has committed
// it. Within one Changes, deletions come before puts, so a replacement
// ends with the new object. Like the SQLite store, ctx does not abandon a
// commit: it records what a provider already did.
func (s *Store) Commit(ctx context.Context, c state.Changes) error {
	deps, err := c.Prepare()
	if err != nil {
		return fmt.Errorf("%s: %w", s.where, err)
	}
	return s.w.Commit(c, deps)
}

// commitGroup writes the group in one transaction. When that fails and
// the connection is still good, one request is at fault: each is then
// written alone, so the others are not failed with it.
func (s *Store) commitGroup(group []*commitReq) error {
	err := s.write(group)
	if err != nil && (len(group) == 1 || errors.Is(err, errLost)) {
		return err
	}
	if err != nil {
		for _, r := range group {
			r.Trouble = s.write([]*commitReq{r})
			if errors.Is(r.Trouble, errLost) {
				return r.Trouble
			}
		}
	}
	for _, r := range group {
		if r.Changes.Erase && r.Trouble == nil {
			s.eraseOld()
			break
		}
	}
	return nil
}

// eraseOld leaves no old row version of the objects and outputs tables
// in the database after a commit with Changes.Erase: an UPDATE leaves the
// row it replaced in the table's pages, dead but whole, until VACUUM
// reclaims its space and a later write happens to overwrite it. VACUUM
// FULL writes each table anew, live rows only, and removes the old file.
// It takes the tables' exclusive lock (other workspaces' runs wait for it,
// at most lock_timeout), and only their owner may run it; a role that is
// not is told so in the log. Either way the commit is done and stays:
// what remains is said in the warning. Copies outside the tables (the
// server's write-ahead log until it is recycled, its archives, replicas
// and backups) are the server's, out of Tether's reach.
func (s *Store) eraseOld() {
	ctx := context.Background()
	err := s.use("erase", func(c *pgx.Conn) error {
		var owner bool
		if err := c.QueryRow(ctx, `SELECT bool_and(pg_has_role(relowner, 'USAGE')) FROM pg_class WHERE oid = ANY(ARRAY[$1::regclass, $2::regclass])`,
			s.names.objects, s.names.outputs).Scan(&owner); err != nil {
			return err
		}
		if !owner {
			return errors.New("the role does not own the tables, and PostgreSQL lets only their owner rewrite them")
		}
		if _, err := c.Exec(ctx, `SET lock_timeout = '30s'`); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `VACUUM (FULL) `+s.names.objects+`, `+s.names.outputs)
		if _, rerr := c.Exec(ctx, `RESET lock_timeout`); err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		logging.Core().Warn("could not rewrite the state tables after sealing a value state recorded in clear; the old row versions stay in their pages until VACUUM reclaims them and later writes reuse the space",
			"where", s.where, "error", err)
	}
}

// errLost is matched by the error of a store whose lock connection died.
var errLost = errors.New("connection lost")

type lostError struct {
	msg   string
	where string
}

func (e *lostError) Error() string        { return e.msg }
func (e *lostError) Is(target error) bool { return target == errLost }

// As makes a lost connection a *state.LockLostError too, the error on
// which the engine stops every provider call in flight.
func (e *lostError) As(target any) bool {
	if t, ok := target.(**state.LockLostError); ok {
		*t = &state.LockLostError{Path: e.where, ID: "(its connection to PostgreSQL is gone)"}
		return true
	}
	return false
}

// write sends one group as a single pipelined batch, which the server runs
// as one implicit transaction: one round trip per group. The group's
// changes are first folded per address in order, so a later delete or put
// of the same address wins as it would applied one by one.
func (s *Store) write(group []*commitReq) error {
	objects := map[string]int{} // address -> index into puts, or -1 for delete
	var puts []*state.Object
	var deps []*string
	outputs := map[string]*state.Output{}
	var meta *state.Changes // the last request that sets lineage and serial
	var checks []byte       // the last request's check results, if any
	for _, r := range group {
		if r.Changes.Lineage != "" {
			meta = &r.Changes
		}
		if r.Changes.Checks != nil {
			checks = r.Changes.Checks
		}
		for _, a := range r.Changes.Delete {
			objects[a] = -1
		}
		for i, o := range r.Changes.Put {
			objects[o.Address] = len(puts)
			puts = append(puts, o)
			deps = append(deps, r.Prepared[i])
		}
		for _, n := range r.Changes.DeleteOutputs {
			outputs[n] = nil
		}
		for _, o := range r.Changes.PutOutputs {
			outputs[o.Name] = o
		}
	}
	var o objectColumnsArrays
	var deleted []string
	for a, i := range objects {
		if i < 0 {
			deleted = append(deleted, a)
			continue
		}
		o.add(puts[i], deps[i])
	}
	var outNames, outDeleted []string
	var outValues [][]byte
	var outSens []bool
	for n, v := range outputs {
		if v == nil {
			outDeleted = append(outDeleted, n)
			continue
		}
		outNames = append(outNames, n)
		outValues = append(outValues, v.Value)
		outSens = append(outSens, v.Sensitive)
	}

	b := &pgx.Batch{}
	if len(deleted) > 0 {
		b.Queue(`DELETE FROM `+s.names.objects+` WHERE workspace = $1 AND address = ANY($2)`, s.ws, deleted)
	}
	if len(o.address) > 0 {
		b.Queue(`INSERT INTO `+s.names.objects+` (workspace, `+objectColumns+`)
SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bytea[], $8::bytea[], $9::bytea[], $10::text[], $11::text[], $12::boolean[])
ON CONFLICT (workspace, address) DO UPDATE SET
	mode = excluded.mode, type = excluded.type, provider = excluded.provider,
	schema_version = excluded.schema_version, value = excluded.value,
	private = excluded.private, sensitive = excluded.sensitive,
	dependencies = excluded.dependencies, status = excluded.status,
	create_before_destroy = excluded.create_before_destroy`,
			s.ws, o.address, o.mode, o.typ, o.provider, o.schemaVersion, o.value, o.private, o.sensitive, o.deps, o.status, o.cbd)
	}
	if len(outDeleted) > 0 {
		b.Queue(`DELETE FROM `+s.names.outputs+` WHERE workspace = $1 AND name = ANY($2)`, s.ws, outDeleted)
	}
	if len(outNames) > 0 {
		b.Queue(`INSERT INTO `+s.names.outputs+` (workspace, name, value, sensitive)
SELECT $1, * FROM unnest($2::text[], $3::bytea[], $4::boolean[])
ON CONFLICT (workspace, name) DO UPDATE SET value = excluded.value, sensitive = excluded.sensitive`,
			s.ws, outNames, outValues, outSens)
	}
	switch {
	case checks == nil:
	case len(checks) == 0:
		b.Queue(`DELETE FROM `+s.names.checks+` WHERE workspace = $1`, s.ws)
	default:
		b.Queue(`INSERT INTO `+s.names.checks+` (workspace, results) VALUES ($1, $2)
ON CONFLICT (workspace) DO UPDATE SET results = excluded.results`, s.ws, checks)
	}
	// Every committed group counts as one write of the workspace's state,
	// as in the SQLite store; state push and migration set their own.
	if meta != nil {
		b.Queue(`UPDATE `+s.names.workspaces+` SET lineage = $2, serial = $3 WHERE name = $1`, s.ws, meta.Lineage, int64(meta.Serial))
	} else {
		b.Queue(`UPDATE `+s.names.workspaces+` SET serial = serial + 1 WHERE name = $1`, s.ws)
	}
	err := s.use("commit", func(c *pgx.Conn) error {
		return c.SendBatch(context.Background(), b).Close()
	})
	if err != nil {
		return err
	}
	s.groups.Add(1)
	return nil
}

// objectColumnsArrays holds a group's objects column by column, for unnest.
type objectColumnsArrays struct {
	address, mode, typ, provider, status []string
	schemaVersion                        []int64
	value, private, sensitive            [][]byte
	deps                                 []*string
	cbd                                  []bool
}

func (a *objectColumnsArrays) add(o *state.Object, deps *string) {
	a.address = append(a.address, o.Address)
	a.mode = append(a.mode, string(o.Mode))
	a.typ = append(a.typ, o.Type)
	a.provider = append(a.provider, o.Provider)
	a.schemaVersion = append(a.schemaVersion, o.SchemaVersion)
	a.value = append(a.value, o.Value)
	a.private = append(a.private, o.Private)
	a.sensitive = append(a.sensitive, o.Sensitive)
	a.deps = append(a.deps, deps)
	a.status = append(a.status, string(o.Status))
	a.cbd = append(a.cbd, o.CreateBeforeDestroy)
}
