package state

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/tetherhq/tether/internal/logging"
)

// commitReq is one Commit call waiting for the writer; Prepared holds the
// Dependencies of Changes.Put[i] as the column's value, a string or nil,
// and is nil itself when no object has any.
type commitReq = Request[[]any]

// writerStmts are the single writer's statements, prepared once: a
// statement given as text is compiled again on every call, which for the
// few statements of a small transaction (begin, the lock check, the serial,
// commit) cost as much as writing its objects.
type writerStmts struct {
	putObject, deleteObject, putOutput, deleteOutput *sql.Stmt
	// putObjects[i] writes 1<<i objects in one statement, prepared on
	// first use (see putBatch) on the writer's own driver connection:
	// flush hands them their arguments directly (see rawPuts).
	putObjects                rawPuts
	begin, commit, bumpSerial *sql.Stmt
	// bumpIfLocked bumps the serial only while the lock row is this
	// store's: the lock check and the serial in one statement.
	bumpIfLocked *sql.Stmt
}

func (w *writerStmts) prepare(ctx context.Context, c *sql.Conn) error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = c.PrepareContext(ctx, q)
		return st
	}
	w.putObject = prep(sqlPutObject)
	w.deleteObject = prep(sqlDeleteObject)
	w.putOutput = prep(sqlPutOutput)
	w.deleteOutput = prep(sqlDeleteOutput)
	w.begin = prep("BEGIN IMMEDIATE")
	w.commit = prep("COMMIT")
	w.bumpSerial = prep(sqlBumpSerial)
	w.bumpIfLocked = prep(sqlBumpSerialIfLocked)
	return err
}

func (w *writerStmts) close(c *sql.Conn) {
	for _, st := range []*sql.Stmt{w.putObject, w.deleteObject, w.putOutput, w.deleteOutput,
		w.begin, w.commit, w.bumpSerial, w.bumpIfLocked} {
		if st != nil {
			st.Close()
		}
	}
	w.putObjects.close(c)
}

// Commit applies c atomically and returns once it is durable on disk.
//
// Within one Changes, deletions are applied before puts, so a batch that
// deletes and re-puts an address (a replacement) ends with the new object.
// Concurrent Commits are applied in the order the writer receives them; each
// is atomic on its own, and a failure of one (say, a value over SQLite's
// size limit) does not fail the others grouped with it.
//
// ctx is deliberately not used to abandon the commit: a Commit records
// something that already happened (a provider created or deleted a real
// resource), and an interrupted run must still record it, or the resource is
// orphaned. The wait is bounded by one transaction and SQLite's busy timeout.
func (s *SQLite) Commit(ctx context.Context, c Changes) error {
	deps, err := s.prepareDeps(c)
	if err != nil {
		return err
	}
	return s.w.Commit(c, deps)
}

// CommitLater is Commit without the wait (see Writer.CommitLater): then
// gets what Commit would have returned, once c is durable or has failed.
func (s *SQLite) CommitLater(c Changes, then Then) {
	deps, err := s.prepareDeps(c)
	if err != nil {
		then.Recorded(err)
		return
	}
	s.w.CommitLater(c, deps, then)
}

// prepareDeps validates c and does the per-object encoding on the
// caller's goroutine, so the single writer spends its time only in SQLite.
func (s *SQLite) prepareDeps(c Changes) ([]any, error) {
	var out []any // nil while no object has dependencies: most have none
	err := c.prepare(func(i int, deps string) {
		if out == nil {
			out = make([]any, len(c.Put))
		}
		out[i] = deps // a string for the column; nil is NULL
	})
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", s.path, err)
	}
	return out, nil
}

// commitGroup applies every request in one transaction. A request that
// fails must not take the others down with it, but wrapping each request in
// a savepoint costs more than the request itself, so the first attempt runs
// without them, writing the group's objects a batch at a time (see
// putBatch), and only a group that hit a failing request is redone: a
// request alone is redone object by object, to say which failed, and a
// larger group with one savepoint per request, the failing one then undone
// alone and reported through its trouble field. An error that takes the
// whole transaction down (disk full, I/O error) is returned and applies to
// every request: none of them was committed.
func (s *SQLite) commitGroup(group []*commitReq) error {
	err := s.tryGroup(group, batched)
	if errors.Is(err, errRequestFailed) {
		mode := isolated
		if len(group) == 1 {
			mode = oneByOne
		}
		err = s.tryGroup(group, mode)
	}
	return err
}

// errRequestFailed tells commitGroup that one request, not the
// transaction, failed.
var errRequestFailed = errors.New("a request in the group failed")

// groupMode is how tryGroup writes a group's requests.
type groupMode int

const (
	// batched writes the objects that follow one another without a
	// delete between them together (putBatch); any failure is
	// errRequestFailed, since a batch cannot say whose object failed.
	batched groupMode = iota
	// oneByOne writes each object alone, and a failure fails the group.
	oneByOne
	// isolated writes each request in a savepoint of its own.
	isolated
)

func (s *SQLite) tryGroup(group []*commitReq, mode groupMode) (err error) {
	ctx := context.Background() // see Commit: a started commit is not abandoned
	exec := func(q string) error {
		_, err := s.wconn.ExecContext(ctx, q)
		return err
	}
	if _, err := s.stmts.begin.ExecContext(ctx); err != nil {
		return fileError(s.path, "commit", err)
	}
	defer func() {
		if err != nil {
			exec("ROLLBACK")
		}
	}()
	// The serial first, with the lock check: a request that sets the
	// lineage and serial (Changes.Lineage) sets both whole afterwards.
	if err := s.bumpSerial(ctx); err != nil {
		return err
	}
	var batch *putBatch
	if mode == batched {
		batch = &s.batch
		// Don't keep the callers' values until the next group.
		defer batch.reset()
	}
	for _, r := range group {
		r.Trouble = nil
		if mode != isolated {
			if err := s.apply(ctx, r, batch); err != nil {
				if mode == oneByOne {
					return fileError(s.path, "commit", err)
				}
				return errRequestFailed
			}
			continue
		}
		if err := exec("SAVEPOINT req"); err != nil {
			return fileError(s.path, "commit", err)
		}
		if aerr := s.apply(ctx, r, nil); aerr != nil {
			// If SQLite already rolled the whole transaction back
			// (some I/O and memory errors do), the savepoint is gone
			// and so is everything before it: fail the group.
			if err := exec("ROLLBACK TO req"); err != nil {
				return fileError(s.path, "commit", aerr)
			}
			r.Trouble = fileError(s.path, "commit", aerr)
		}
		if err := exec("RELEASE req"); err != nil {
			return fileError(s.path, "commit", err)
		}
	}
	if batch != nil {
		if err := s.flush(ctx, batch); err != nil {
			return errRequestFailed
		}
	}
	if _, err := s.stmts.commit.ExecContext(ctx); err != nil {
		return fileError(s.path, "commit", err)
	}
	s.groups.Add(1)
	for _, r := range group {
		if r.Changes.Erase && r.Trouble == nil {
			s.eraseOld(ctx)
			break
		}
	}
	return nil
}

// putBatch holds objects to write, as the columns of sqlPutObject in
// order, until a delete must come after them or the group ends. One
// multi-row INSERT per batch of 2, 4, ... 64 objects costs one
// statement's call and step where a row each cost one per object; SQLite
// applies a multi-row upsert row by row, in order, so what is written is
// the same. The columns are held as the driver takes them (the types
// database/sql passes through unconverted: string, []byte, int64, bool
// and nil).
type putBatch struct {
	args []driver.NamedValue
}

const (
	putColumns  = 11
	maxBatchLog = 6 // batches of up to 64 objects, 704 parameters
)

func (b *putBatch) reset() {
	clear(b.args)
	b.args = b.args[:0]
}

// add appends one object's columns, in sqlPutObject's order (flush
// numbers them).
func (b *putBatch) add(cols ...any) {
	for _, c := range cols {
		b.args = append(b.args, driver.NamedValue{Value: c})
	}
}

// rawPuts are the multi-row INSERTs of 1, 2, 4, ... 64 objects, prepared
// on the writer's driver connection and run through it (sql.Conn.Raw):
// database/sql would convert each argument again and copy them all into a
// list of its own for every statement, about 440 bytes an object, where
// putBatch holds them as the driver takes them already. Only the writer
// uses them, inside its transaction, between Raw's start and return.
type rawPuts [maxBatchLog + 1]driver.Stmt

// close closes the statements, on c's driver connection.
func (r *rawPuts) close(c *sql.Conn) {
	c.Raw(func(any) error {
		for i, st := range r {
			if st != nil {
				st.Close()
				r[i] = nil
			}
		}
		return nil
	})
}

// flush writes what b holds, the largest batches first, and empties it.
func (s *SQLite) flush(ctx context.Context, b *putBatch) error {
	err := s.wconn.Raw(func(dc any) error {
		args := b.args
		for len(args) > 0 {
			i := min(bits.Len(uint(len(args)/putColumns))-1, maxBatchLog)
			st := s.stmts.putObjects[i]
			if st == nil {
				prep, ok := dc.(driver.ConnPrepareContext)
				if !ok {
					return fmt.Errorf("the SQLite driver's connection (%T) cannot prepare statements with a context", dc)
				}
				var err error
				if st, err = prep.PrepareContext(ctx, sqlPutObjects(1<<i)); err != nil {
					return err
				}
				s.stmts.putObjects[i] = st
			}
			exec, ok := st.(driver.StmtExecContext)
			if !ok {
				return fmt.Errorf("the SQLite driver's statement (%T) cannot run with a context", st)
			}
			n := (1 << i) * putColumns
			// Each statement numbers its parameters from 1.
			for j := range args[:n] {
				args[j].Ordinal = j + 1
			}
			s.putStmts.Add(1)
			if _, err := exec.ExecContext(ctx, args[:n]); err != nil {
				return err
			}
			args = args[n:]
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.reset()
	return nil
}

// boxes holds one interface value per string that repeats across the
// objects a writer writes (mode, type, provider, status), so that passing
// them to database/sql does not allocate a copy of the string header for
// every object. Only the single writer uses it.
type boxes map[string]any

const maxBoxes = 4096 // a bound, however many types a state holds

func (b *boxes) of(s string) any {
	if v, ok := (*b)[s]; ok {
		return v
	}
	if *b == nil {
		*b = boxes{}
	}
	var v any = s
	if len(*b) < maxBoxes {
		(*b)[s] = v
	}
	return v
}

// sqlPutObjects is sqlPutObject for n objects.
func sqlPutObjects(n int) string {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	head, tail, _ := strings.Cut(sqlPutObject, row)
	return head + strings.Repeat(row+", ", n-1) + row + tail
}

// bumpSerial adds one to the serial inside the group's transaction and,
// when this store took a lock, checks in the same statement that the lock
// is still the one it took (see Store): only when it changed nothing does
// it read the lock to say who holds it now.
func (s *SQLite) bumpSerial(ctx context.Context) error {
	id := s.lockID.Load()
	if id == nil {
		if _, err := s.stmts.bumpSerial.ExecContext(ctx); err != nil {
			return fileError(s.path, "commit", err)
		}
		return nil
	}
	res, err := s.stmts.bumpIfLocked.ExecContext(ctx, *id)
	if err != nil {
		return fileError(s.path, "commit", err)
	}
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		return nil
	}
	return s.checkLockHeld(ctx)
}

// eraseOld leaves no copy of what a commit with Changes.Erase replaced.
// The first time in a session it rebuilds the file (VACUUM): secure_delete
// zeroes what is freed from now on, but a file written by an earlier
// Tether, without it, may hold old rows in its free space. Then it copies
// the write-ahead log into the file and truncates it to nothing: its
// frames are whole pages as they were. It waits for readers
// (busy_timeout). A failure is not the commit's, which is done: it is
// logged, and the log is deleted anyway when the last connection closes at
// the end of the run.
func (s *SQLite) eraseOld(ctx context.Context) {
	warn := func(what string, err error) {
		logging.Core().Warn("could not "+what+" after sealing a value state recorded in clear; old copies may remain in the state file's free space or its write-ahead log",
			"path", s.path, "error", err)
	}
	if !s.vacuumed {
		if _, err := s.wconn.ExecContext(ctx, "VACUUM"); err != nil {
			warn("rebuild the state file", err)
		} else {
			s.vacuumed = true
		}
	}
	var busy, frames, done int
	err := s.wconn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done)
	if err == nil && busy != 0 {
		err = errors.New("readers kept it busy")
	}
	if err != nil {
		warn("empty the write-ahead log", err)
	}
}

// apply writes r's changes. With batch, its objects are added to batch
// instead of written, and batch is written first when r deletes any.
func (s *SQLite) apply(ctx context.Context, r *commitReq, batch *putBatch) error {
	if s.applyHook != nil {
		if err := s.applyHook(r); err != nil {
			return err
		}
	}
	st := &s.stmts
	if batch != nil && len(r.Changes.Delete) > 0 {
		if err := s.flush(ctx, batch); err != nil {
			return err
		}
	}
	for _, addr := range r.Changes.Delete {
		if _, err := st.deleteObject.ExecContext(ctx, addr); err != nil {
			return fmt.Errorf("deleting object %s: %w", addr, err)
		}
	}
	for i, o := range r.Changes.Put {
		var deps any
		if r.Prepared != nil {
			deps = r.Prepared[i]
		}
		args := []any{o.Address, s.boxes.of(string(o.Mode)), s.boxes.of(o.Type), s.boxes.of(o.Provider),
			o.SchemaVersion, o.Value, o.Private, o.Sensitive, deps, s.boxes.of(string(o.Status)),
			o.CreateBeforeDestroy}
		if batch != nil {
			batch.add(args...)
			continue
		}
		s.putStmts.Add(1)
		if _, err := st.putObject.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("writing object %s: %w", o.Address, err)
		}
	}
	for _, name := range r.Changes.DeleteOutputs {
		if _, err := st.deleteOutput.ExecContext(ctx, name); err != nil {
			return fmt.Errorf("deleting output %s: %w", name, err)
		}
	}
	for _, o := range r.Changes.PutOutputs {
		if _, err := st.putOutput.ExecContext(ctx, o.Name, o.Value, o.Sensitive); err != nil {
			return fmt.Errorf("writing output %s: %w", o.Name, err)
		}
	}
	if c := r.Changes.Checks; c != nil {
		q, args := sqlPutChecks, []any{c}
		if len(c) == 0 {
			q, args = sqlDeleteChecks, nil
		}
		if _, err := s.wconn.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("writing check results: %w", err)
		}
	}
	if r.Changes.Lineage != "" {
		if _, err := s.wconn.ExecContext(ctx, sqlSetMeta, r.Changes.Lineage, int64(r.Changes.Serial)); err != nil {
			return fmt.Errorf("writing lineage and serial: %w", err)
		}
	}
	return nil
}
