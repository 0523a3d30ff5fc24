package pgstate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherhq/tether/internal/state"
)

// The lock is a session-level advisory lock on the store's own connection:
// the server releases it when that session ends, however the runner ended,
// so a crashed run never leaves a stale lock behind, and a run whose
// connection is gone knows it no longer holds it. The tether_locks row only
// tells a refused runner who holds it.

// holderWait bounds how long a refused runner waits for the holder's row
// to name the holder: between taking the advisory lock and writing its row,
// the holder is briefly anonymous.
const holderWait = 3 * time.Second

// Lock takes the workspace's lock for one operation, failing at once with
// a *state.LockedError naming the holder when another session holds it.
func (s *Store) Lock(ctx context.Context, info state.LockInfo) (state.Unlocker, error) {
	info = info.Filled()
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	var locked *state.LockedError
	err := s.use("lock", func(c *pgx.Conn) error {
		if s.locked {
			return errors.New("this store already holds its lock")
		}
		// A lock that is released between the try and the read of its
		// holder (the holder's session just ended) is tried again.
		for {
			var got bool
			if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, s.names.lockClass, s.key).Scan(&got); err != nil {
				return err
			}
			if got {
				break
			}
			holder, held, err := waitHolder(ctx, c, s.names, s.ws)
			if err != nil {
				return err
			}
			if held {
				locked = lockedError(s.where, holder)
				return nil
			}
		}
		_, err := c.Exec(ctx, `INSERT INTO `+s.names.locks+` (workspace, id, operation, who, host, pid, created, backend_pid)
VALUES ($1, $2, $3, $4, $5, $6, $7, pg_backend_pid())
ON CONFLICT (workspace) DO UPDATE SET id = excluded.id, operation = excluded.operation, who = excluded.who,
	host = excluded.host, pid = excluded.pid, created = excluded.created, backend_pid = excluded.backend_pid`,
			s.ws, info.ID, info.Operation, info.Who, info.Host, info.PID, info.Created)
		if err != nil {
			c.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, s.names.lockClass, s.key)
			return err
		}
		s.locked = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if locked != nil {
		return nil, locked
	}
	return &unlocker{s: s, id: info.ID}, nil
}

func lockedError(where string, holder *state.LockInfo) *state.LockedError {
	e := &state.LockedError{Store: where}
	if holder != nil {
		e.Holder = *holder
	} else {
		e.Holder = state.LockInfo{Operation: "unknown", Host: "unknown", Who: "unknown", ID: "unknown"}
	}
	return e
}

// readHolder returns the recorded details of the session holding the
// workspace's advisory lock. held is false when no session holds it; the
// details are nil while the holder has not yet recorded them, or when it
// is a deletion of the workspace, which records none.
func readHolder(ctx context.Context, c *pgx.Conn, t tables, ws string) (holder *state.LockInfo, held bool, err error) {
	var lockBackend *int32
	if err := c.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) LIMIT 1`, int64(t.lockClass), int64(lockKey(ws))).Scan(&lockBackend); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, false, err
	}
	if lockBackend == nil {
		return nil, false, nil
	}
	var li state.LockInfo
	var rowBackend int32
	err = c.QueryRow(ctx, `SELECT id, operation, who, host, pid, created, backend_pid FROM `+t.locks+` WHERE workspace = $1`, ws).
		Scan(&li.ID, &li.Operation, &li.Who, &li.Host, &li.PID, &li.Created, &rowBackend)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && rowBackend != *lockBackend {
		return nil, true, nil
	}
	if err != nil {
		return nil, true, err
	}
	return &li, true, nil
}

// waitHolder reads the holder until it has said who it is, holderWait at
// most. held is false once the lock is free.
func waitHolder(ctx context.Context, c *pgx.Conn, t tables, ws string) (*state.LockInfo, bool, error) {
	deadline := time.Now().Add(holderWait)
	for {
		holder, held, err := readHolder(ctx, c, t, ws)
		if err != nil || holder != nil || !held || time.Now().After(deadline) {
			return holder, held, err
		}
		select {
		case <-ctx.Done():
			return nil, true, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ForceUnlock breaks the workspace's lock (of ID id, when id is set) by
// ending the session that holds it, and returns who held it (nil, nil when
// nobody did). The holder's next write then fails, so it stops instead of
// writing without the lock.
func (s *Store) ForceUnlock(ctx context.Context, id string) (*state.LockInfo, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	var holder *state.LockInfo
	err := s.use("unlock", func(c *pgx.Conn) error {
		var pid *int32
		err := c.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) LIMIT 1`, int64(s.names.lockClass), int64(s.key)).Scan(&pid)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if pid == nil {
			return nil
		}
		if holder, _, err = waitHolder(ctx, c, s.names, s.ws); err != nil {
			return err
		}
		if holder == nil {
			holder = &state.LockInfo{Operation: "unknown", Host: "unknown", Who: "unknown", ID: "unknown"}
		}
		if id != "" && holder.ID != id {
			return &state.LockIDError{ID: id, Holder: *holder}
		}
		var ended bool
		if err := c.QueryRow(ctx, `SELECT pg_terminate_backend($1, 5000)`, *pid).Scan(&ended); err != nil {
			return fmt.Errorf("ending the session %d that holds the lock: %w", *pid, err)
		}
		if !ended {
			return fmt.Errorf("the session %d that holds the lock did not end within 5s", *pid)
		}
		_, err = c.Exec(ctx, `DELETE FROM `+s.names.locks+` WHERE workspace = $1 AND id = $2`, s.ws, holder.ID)
		return err
	})
	return holder, err
}

type unlocker struct {
	s    *Store
	id   string
	mu   sync.Mutex
	done bool
}

// Unlock releases the advisory lock and clears the holder row. When the
// connection was lost, the lock is already gone, and Unlock says so.
func (u *unlocker) Unlock() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return nil
	}
	s := u.s
	if err := s.begin(); err != nil {
		return err
	}
	defer s.w.Leave()
	err := s.use("unlock", func(c *pgx.Conn) error {
		ctx := context.Background()
		if _, err := c.Exec(ctx, `DELETE FROM `+s.names.locks+` WHERE workspace = $1 AND id = $2`, s.ws, u.id); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `SELECT pg_advisory_unlock($1, $2)`, s.names.lockClass, s.key)
		return err
	})
	// A lost connection took its session's lock with it: there is
	// nothing left to release, and nobody needs to break it.
	if err != nil && !errors.Is(err, errLost) {
		return err
	}
	s.connMu.Lock()
	s.locked = false
	s.connMu.Unlock()
	u.done = true
	return nil
}
