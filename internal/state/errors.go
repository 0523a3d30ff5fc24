package state

import (
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrClosed is returned (wrapped with the file's path) by every method of a
// store that has been closed.
var ErrClosed = errors.New("state store is closed")

// ErrLockNotHeld is returned (wrapped) by Unlock when the lock had already
// been broken: there is nothing of ours to release.
var ErrLockNotHeld = errors.New("the lock was no longer held when releasing it")

// LockedError is returned by Lock when another operation holds the lock.
type LockedError struct {
	// Path is the state file.
	Path string
	// Store describes a store that is not a file (a PostgreSQL schema and
	// workspace); when set, it is named instead of Path.
	Store string
	// Holder is the lock as its holder recorded it.
	Holder LockInfo
	// HolderGone is set when the holder ran on this host and its process
	// no longer exists. The lock is then almost certainly stale, but it is
	// still refused: breaking a lock must be the user's explicit decision,
	// as with Terraform's force-unlock.
	HolderGone bool
}

func (e *LockedError) Error() string {
	h := e.Holder
	started := "at an unknown time"
	if !h.Created.IsZero() {
		started = h.Created.Format(time.RFC3339)
	}
	where := "state file " + e.Path
	if e.Store != "" {
		where = e.Store
	}
	msg := fmt.Sprintf("%s is locked by operation %q (pid %d on host %s, user %s, started %s, lock ID %s)",
		where, h.Operation, h.PID, h.Host, h.Who, started, h.ID)
	if e.HolderGone {
		msg += fmt.Sprintf("; process %d is no longer running on %s, so the lock is probably stale", h.PID, h.Host)
	}
	return msg + "; if no other Tether operation is using this state, break the lock with: tether state unlock"
}

// NewerFormatError is returned by OpenSQLite for a file written by a newer
// Tether. Reading it could misinterpret columns or drop data the newer
// version relies on, so the file is not touched.
type NewerFormatError struct {
	Path      string
	Format    int // the file's format version
	Supported int // the newest format this build reads
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("state file %s was written by a newer Tether (format %d; this build reads up to %d); upgrade Tether",
		e.Path, e.Format, e.Supported)
}

// CorruptError is returned when a state file is damaged or is not a Tether
// state file at all. The store never repairs or recreates such a file: it
// may be the only record of real infrastructure, and recovering it is the
// user's call.
type CorruptError struct {
	Path   string
	Reason string // e.g. "is not a SQLite database"
	Err    error  // the underlying SQLite error, if any
}

func (e *CorruptError) Error() string {
	msg := fmt.Sprintf("state file %s %s", e.Path, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; Tether will not use or modify it: restore it from a backup or move it aside"
}

func (e *CorruptError) Unwrap() error { return e.Err }

// isCorruption reports whether err is SQLite saying the file's contents
// cannot be trusted, as opposed to a transient or environmental failure.
func isCorruption(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff { // extended codes carry the primary code in the low byte
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// fileError attaches the path and the failed step to err, turning
// corruption into a *CorruptError so callers (and users) can tell "this
// file is damaged" from "the disk is full".
func fileError(path, op string, err error) error {
	if err == nil {
		return nil
	}
	if isCorruption(err) {
		return &CorruptError{Path: path, Reason: "is corrupt", Err: fmt.Errorf("%s: %w", op, err)}
	}
	return fmt.Errorf("state file %s: %s: %w", path, op, err)
}

// LockLostError is returned by Commit when the lock this store took is no
// longer held: someone broke it and perhaps another operation took it. The
// commit wrote nothing; the operation must stop.
type LockLostError struct {
	Path string
	// ID is the lock this store took.
	ID string
	// Holder is the lock held now, or nil when there is none.
	Holder *LockInfo
}

func (e *LockLostError) Error() string {
	msg := fmt.Sprintf("state file %s: this operation's lock %s was broken", e.Path, e.ID)
	if h := e.Holder; h != nil {
		msg += fmt.Sprintf(", and operation %q (pid %d on host %s, user %s) holds the state now", h.Operation, h.PID, h.Host, h.Who)
	}
	return msg + "; stopping before writing anything more. Run again once no other Tether operation is using this state"
}

// LockIDError is ForceUnlock's refusal to break a lock whose ID is not the
// one asked for.
type LockIDError struct {
	// ID is the ID asked for.
	ID string
	// Holder is the lock that is held.
	Holder LockInfo
}

func (e *LockIDError) Error() string {
	return fmt.Sprintf("the lock held has ID %s (operation %q, pid %d on host %s), not %s: nothing was unlocked",
		e.Holder.ID, e.Holder.Operation, e.Holder.PID, e.Holder.Host, e.ID)
}
