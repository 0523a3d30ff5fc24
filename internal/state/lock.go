package state

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/user"
	"sync"
	"time"
)

// The lock is a row in the state file itself rather than an OS file lock:
// it must outlive the process that took it (a crashed "up" leaves the state
// half-applied, and the next operation should stop and say so, as Terraform
// does), it is visible to every process that can open the file, and the
// holder's details travel with it.

// Lock takes the store's lock for one operation. Zero fields of info are
// filled in: ID (random), Host, PID, Who (user@host) and Created (now).
//
// When the lock is held, Lock fails at once with a *LockedError; it does not
// wait, since the holder is typically a whole "up" that may run for hours.
func (s *SQLite) Lock(ctx context.Context, info LockInfo) (Unlocker, error) {
	fillLockInfo(&info)
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()

	// BEGIN IMMEDIATE (the pool's default, see dsnFor) takes SQLite's write
	// lock before the read, so "absent, then insert" cannot interleave
	// with another process doing the same.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fileError(s.path, "lock", err)
	}
	defer tx.Rollback()
	holder, err := readLock(ctx, tx)
	if err != nil {
		return nil, fileError(s.path, "lock", err)
	}
	if holder != nil {
		return nil, lockedError(s.path, *holder)
	}
	// No one holds the lock, and until this transaction ends no one else
	// can take it (nor break one, see ForceUnlock): the room (reserve) is
	// this lock's to take. It is written and synced while the insert
	// commits, which syncs too, and Lock returns only once both are done,
	// so the room is held from the lock's first moment as before.
	reserved := make(chan struct{})
	go func() {
		defer close(reserved)
		s.reserve()
	}()
	locked := false
	defer func() {
		<-reserved
		if !locked {
			s.freeReserve()
		}
	}()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO lock (one, id, operation, who, host, pid, created) VALUES (1, ?, ?, ?, ?, ?, ?)`,
		info.ID, info.Operation, info.Who, info.Host, int64(info.PID), info.Created.UTC().Format(time.RFC3339Nano)); err != nil {
		return nil, fileError(s.path, "lock", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fileError(s.path, "lock", err)
	}
	locked = true
	id := info.ID
	s.lockID.Store(&id)
	return &sqliteUnlocker{s: s, id: info.ID}, nil
}

// The release of a lock is a write, and a write to a full disk fails: an
// up that filled the disk would leave the lock behind and stop every later
// command. So while a lock is held, a file beside the state holds some
// room on its file system, and releasing the lock (Unlock, or ForceUnlock
// by anyone) frees that room first: the release then has the space its
// few pages of write-ahead log need, whatever filled the disk meanwhile.

// reserveSize is the room held: many times what deleting the lock's row
// writes to the write-ahead log.
const reserveSize = 64 << 10

// reservePath is the file that holds the room.
func (s *SQLite) reservePath() string { return s.path + "-reserve" }

// reserve takes the room, written out so that the file system allocates
// it. A disk already too full for it gets none: the release then tries as
// before.
func (s *SQLite) reserve() {
	f, err := os.OpenFile(s.reservePath(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	_, err = f.Write(make([]byte, reserveSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(s.reservePath())
	}
}

// freeReserve gives the room back, for the release of the lock to use.
func (s *SQLite) freeReserve() { os.Remove(s.reservePath()) }

// ForceUnlock removes the lock held (of ID id, when id is set) and
// returns it, or nil, nil when there was none. It is what `tether state
// unlock` and `tether force-unlock` run.
func (s *SQLite) ForceUnlock(ctx context.Context, id string) (*LockInfo, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fileError(s.path, "unlock", err)
	}
	defer tx.Rollback()
	holder, err := readLock(ctx, tx)
	if err != nil {
		return nil, fileError(s.path, "unlock", err)
	}
	if holder == nil {
		return nil, nil
	}
	if id != "" && holder.ID != id {
		return holder, &LockIDError{ID: id, Holder: *holder}
	}
	s.freeReserve()
	if _, err := tx.ExecContext(ctx, `DELETE FROM lock`); err != nil {
		return nil, fileError(s.path, "unlock", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fileError(s.path, "unlock", err)
	}
	return holder, nil
}

// querier is a transaction or a connection.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readLock returns the current lock, or nil if there is none.
func readLock(ctx context.Context, tx querier) (*LockInfo, error) {
	var (
		li      LockInfo
		pid     int64
		created string
	)
	err := tx.QueryRowContext(ctx, `SELECT id, operation, who, host, pid, created FROM lock`).
		Scan(&li.ID, &li.Operation, &li.Who, &li.Host, &pid, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	li.PID = int(pid)
	// An unparsable time only loses detail from the message; the lock
	// itself is still valid.
	li.Created, _ = time.Parse(time.RFC3339Nano, created)
	return &li, nil
}

func lockedError(path string, holder LockInfo) *LockedError {
	e := &LockedError{Path: path, Holder: holder}
	if alive, known := HolderAlive(holder); known && !alive {
		e.HolderGone = true
	}
	return e
}

// HolderAlive reports whether the process that took a lock is still
// running. It can tell only for a lock taken on this host (known is then
// true); a lock held by this very process counts as alive.
func HolderAlive(holder LockInfo) (alive, known bool) {
	host, err := os.Hostname()
	if err != nil || host != holder.Host {
		return false, false
	}
	if holder.PID == os.Getpid() {
		return true, true
	}
	return processRunning(holder.PID)
}

// checkLockHeld fails with a *LockLostError when this store took a lock
// that is no longer the one recorded. It runs inside each commit's
// transaction, so the check and the write are one step.
func (s *SQLite) checkLockHeld(ctx context.Context) error {
	id := s.lockID.Load()
	if id == nil {
		return nil
	}
	holder, err := readLock(ctx, s.wconn)
	if err != nil {
		return fileError(s.path, "commit", err)
	}
	if holder == nil || holder.ID != *id {
		return &LockLostError{Path: s.path, ID: *id, Holder: holder}
	}
	return nil
}

type sqliteUnlocker struct {
	s    *SQLite
	id   string
	mu   sync.Mutex
	done bool
}

// Unlock removes the lock if it is still ours. Removing by ID means a lock
// that was force-broken and then taken by another operation is left alone.
// Once Unlock has succeeded, further calls do nothing; after a failure
// (say, a full disk) it may be retried.
func (u *sqliteUnlocker) Unlock() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return nil
	}
	if err := u.unlock(); err != nil {
		return err
	}
	u.done = true
	return nil
}

func (u *sqliteUnlocker) unlock() error {
	s := u.s
	if err := s.begin(); err != nil {
		return err
	}
	defer s.w.Leave()
	ctx := context.Background()
	s.freeReserve()
	res, err := s.db.ExecContext(ctx, `DELETE FROM lock WHERE id = ?`, u.id)
	if err != nil {
		// Most likely the disk is full and the WAL cannot grow. Copying
		// the WAL into the file and starting it over lets the delete
		// reuse the WAL's own space: a lock left behind would stop every
		// later command until someone breaks it.
		if _, cerr := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`); cerr == nil {
			res, err = s.db.ExecContext(ctx, `DELETE FROM lock WHERE id = ?`, u.id)
		}
	}
	if err != nil {
		return fileError(s.path, "unlock", err)
	}
	if cur := s.lockID.Load(); cur != nil && *cur == u.id {
		s.lockID.Store(nil)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("state file %s: lock %s: %w; it was probably broken with `tether state unlock`", s.path, u.id, ErrLockNotHeld)
	}
	return nil
}

func fillLockInfo(info *LockInfo) {
	if info.ID == "" {
		info.ID = newUUID()
	}
	if info.Host == "" {
		info.Host, _ = os.Hostname()
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Who == "" {
		info.Who = userName() + "@" + info.Host
	}
	if info.Created.IsZero() {
		info.Created = time.Now()
	}
}

func userName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	for _, env := range []string{"USER", "USERNAME", "LOGNAME"} {
		if v := os.Getenv(env); v != "" {
			return v
		}
	}
	return "unknown"
}

// NewLineage returns a new lineage: a random UUID, as Terraform's.
func NewLineage() string { return newUUID() }

// newUUID returns a random UUID (version 4).
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails; see crypto/rand.Read
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
