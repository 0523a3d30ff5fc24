package objstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

// Locker takes and releases a workspace's lock, as Terraform's backend of
// the same type does, so that Terraform and Tether exclude each other.
// record is the lock's record in Terraform's format (statedoc.LockInfo as
// JSON).
type Locker interface {
	// RecordPath is the Path Terraform records in the lock of ws.
	RecordPath(ws string) string
	// Take takes ws's lock. When it is held, Take fails with a *HeldError
	// and leaves nothing of its own behind.
	Take(ctx context.Context, ws string, record []byte) error
	// Holder reads who holds ws's lock, nil when nobody does. Its ID is
	// the one force-unlock takes, as Terraform's backend reports it.
	Holder(ctx context.Context, ws string) (*statedoc.LockInfo, error)
	// Holds reports whether ws's lock is still the one Take took with
	// record.
	Holds(ctx context.Context, ws string, record []byte) (bool, error)
	// Drop releases ws's lock, whoever holds it.
	Drop(ctx context.Context, ws string) error
}

// HeldError is a Locker's refusal of a lock held; Where names the object
// (or item) that refused it.
type HeldError struct{ Where string }

func (e *HeldError) Error() string { return "the lock is held (" + e.Where + ")" }

// LockFile is Terraform's lock file: an object created only if absent,
// holding the lock's record, deleted to release it.
type LockFile struct {
	B *Backend
	// Key is where ws's lock file is.
	Key func(ws string) string
	// Record is the Path recorded in the lock of ws.
	Record func(ws string) string
	// VersionIsID makes the lock's ID the lock file's version, as
	// Terraform's gcs backend makes it the object's generation.
	VersionIsID bool
}

func (l *LockFile) RecordPath(ws string) string { return l.Record(ws) }

func (l *LockFile) Take(ctx context.Context, ws string, record []byte) error {
	err := l.B.createOnce(ctx, l.Key(ws), record)
	if errors.Is(err, ErrExists) {
		return &HeldError{Where: l.B.Name(l.Key(ws))}
	}
	return err
}

func (l *LockFile) Holder(ctx context.Context, ws string) (*statedoc.LockInfo, error) {
	o, err := l.B.get(ctx, l.Key(ws))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h := &statedoc.LockInfo{}
	if err := json.Unmarshal(o.Body, h); err != nil {
		return nil, &CorruptError{Object: l.B.Name(l.Key(ws)), Reason: "is not a readable lock file"}
	}
	if l.VersionIsID {
		h.ID = o.Version
	}
	return h, nil
}

func (l *LockFile) Holds(ctx context.Context, ws string, record []byte) (bool, error) {
	o, err := l.B.get(ctx, l.Key(ws))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil && string(o.Body) == string(record), err
}

func (l *LockFile) Drop(ctx context.Context, ws string) error {
	return l.B.deleteAll(ctx, []string{l.Key(ws)})
}

func lockInfoFor(op string) state.LockInfo { return state.LockInfo{Operation: op}.Filled() }

// heldLock is a lock a store holds.
type heldLock struct {
	info   state.LockInfo
	record []byte
}

// Lock takes the workspace's lock, then folds in a journal a crashed run
// left.
func (s *Store) Lock(ctx context.Context, info state.LockInfo) (state.Unlocker, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	info = info.Filled()
	b := s.b
	record, _ := json.Marshal(statedoc.NewLockInfo(info, b.lock.RecordPath(s.ws)))
	if err := b.lock.Take(ctx, s.ws, record); err != nil {
		var he *HeldError
		if errors.As(err, &he) {
			return nil, s.lockedError(ctx, he.Where)
		}
		return nil, err
	}
	held := &heldLock{info: info, record: record}
	s.mu.Lock()
	s.held = held
	s.mu.Unlock()
	cur, next, err := b.compact(ctx, s.ws)
	if err != nil {
		u := &unlocker{s: s, held: held}
		u.release(context.Background())
		return nil, err
	}
	s.mu.Lock()
	s.next, s.cur, s.wrote = next, cur, false
	s.mu.Unlock()
	return &unlocker{s: s, held: held}, nil
}

// lockedError names who holds the lock refused at where.
func (s *Store) lockedError(ctx context.Context, where string) error {
	h, err := s.b.lock.Holder(ctx, s.ws)
	if err != nil {
		return fmt.Errorf("%s: the lock is held (%s), and reading who holds it failed: %w", s.where, where, err)
	}
	if h == nil {
		return fmt.Errorf("%s: the lock is held (%s), and was released while reading who holds it; try again", s.where, where)
	}
	return statedoc.LockedError(fmt.Sprintf("%s (lock: %s)", s.where, where), *h)
}

// checkHeld fails with a *state.LockLostError unless the lock is still
// the one held.
func (b *Backend) checkHeld(ctx context.Context, ws string, held *heldLock) error {
	ok, err := b.lock.Holds(ctx, ws, held.record)
	if err != nil || ok {
		return err
	}
	e := &state.LockLostError{Path: b.Name(b.Path(ws)), ID: held.info.ID}
	if h, err := b.lock.Holder(ctx, ws); err == nil && h != nil {
		hl := h.Holder()
		e.Holder = &hl
	}
	return e
}

type unlocker struct {
	s    *Store
	held *heldLock
}

// Unlock folds the journal into the document, then releases the lock.
func (u *unlocker) Unlock() error {
	ctx := context.Background()
	s := u.s
	s.mu.Lock()
	mine := s.held == u.held
	deleted := s.deleted
	// With no journal object written since Lock folded the journal in,
	// there is nothing to fold: a run that only read (plan) reads the
	// state once.
	wrote := s.wrote
	s.mu.Unlock()
	if !mine {
		return nil
	}
	if !deleted && wrote {
		if err := s.b.checkHeld(ctx, s.ws, u.held); err != nil {
			return err
		}
		if _, _, err := s.b.compact(ctx, s.ws); err != nil {
			return fmt.Errorf("%s: folding the journal into the state object (it stays, and the next run folds it in): %w", s.where, err)
		}
	}
	return u.release(ctx)
}

func (u *unlocker) release(ctx context.Context) error {
	s := u.s
	s.mu.Lock()
	if s.held == u.held {
		s.held, s.cur = nil, nil
	}
	s.mu.Unlock()
	ok, err := s.b.lock.Holds(ctx, s.ws, u.held.record)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s: lock %s: %w; it was probably broken with `tether state unlock`", s.where, u.held.info.ID, state.ErrLockNotHeld)
	}
	return s.b.lock.Drop(ctx, s.ws)
}

// ForceUnlock breaks the lock, Terraform's as well as Tether's.
func (s *Store) ForceUnlock(ctx context.Context, id string) (*state.LockInfo, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	h, err := s.b.lock.Holder(ctx, s.ws)
	if err != nil || h == nil {
		return nil, err
	}
	hl := h.Holder()
	if id != "" && h.ID != id {
		return nil, &state.LockIDError{ID: id, Holder: hl}
	}
	if err := s.b.lock.Drop(ctx, s.ws); err != nil {
		return nil, err
	}
	return &hl, nil
}
