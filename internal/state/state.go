package state

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Object is the recorded form of one resource instance.
type Object struct {
	// Address is the instance's absolute address, e.g.
	// `module.net.tether_file.conf["a"]`. It is the object's key.
	Address  string
	Mode     Mode
	Type     string
	Provider string
	// SchemaVersion is the provider schema version that wrote Value.
	SchemaVersion int64
	// Value is the object in Terraform's JSON state encoding.
	Value []byte
	// Private is provider-private data, stored verbatim.
	Private []byte
	// Sensitive lists the attribute paths that must be shown as
	// (sensitive), in the engine's own encoding.
	Sensitive []byte
	// Dependencies are the addresses of the resources this object depended
	// on when it was last written; destroy order comes from them when the
	// configuration is gone.
	Dependencies []string
	// Status is Ready, or Tainted for an object whose create failed part
	// way and must be replaced.
	Status Status
	// CreateBeforeDestroy records the lifecycle setting in force when the
	// object was written.
	CreateBeforeDestroy bool
}

// Mode says whether an object is a managed resource or a data source result.
type Mode string

const (
	Managed Mode = "managed"
	Data    Mode = "data"
)

// Status of an object.
type Status string

const (
	Ready   Status = "ready"
	Tainted Status = "tainted"
)

// Output is a root module output recorded after an apply.
type Output struct {
	Name string
	// Value is the value in cty's JSON encoding together with its type:
	// {"value": ..., "type": ...}.
	Value     []byte
	Sensitive bool
}

// Snapshot is everything in a store at one moment.
type Snapshot struct {
	Objects map[string]*Object
	Outputs map[string]*Output
	// Checks are the check results of the last plan or apply that
	// recorded any, in state version 4's check_results encoding (see
	// internal/checks); nil when there are none.
	Checks []byte
	// Lineage identifies the state across its whole life, as Terraform's
	// lineage does: a UUID chosen when the state was created, kept by
	// every write. Two states with different lineages are unrelated.
	Lineage string
	// Serial counts the writes: every committed transaction adds at least
	// one. Together with Lineage it lets `state push` refuse to overwrite
	// newer state with older, as Terraform does.
	Serial uint64
}

// Changes is one batch of writes. A Commit applies it atomically.
type Changes struct {
	Put           []*Object
	Delete        []string // object addresses
	PutOutputs    []*Output
	DeleteOutputs []string // output names
	// Checks, when not nil, replace the recorded check results (see
	// Snapshot.Checks); an empty, non-nil slice records none.
	Checks []byte
	// Lineage and Serial, when Lineage is set, replace the state's own:
	// `state push` and the adoption of Terraform state keep the lineage
	// and serial of the state they bring in. Otherwise a commit keeps the
	// lineage and increments the serial.
	Lineage string
	Serial  uint64
	// Erase says that the changes seal what state recorded in clear (a
	// value newly found sensitive): once they are committed, the store
	// keeps no copy of the old values it can reach. SQLite zeroes what a
	// write frees anyway (secure_delete); with Erase it also empties its
	// write-ahead log, which holds whole old pages until then. PostgreSQL
	// rewrites the objects and outputs tables (VACUUM FULL), where old row
	// versions stay otherwise; the object stores fold their journal into
	// the document at once instead of at Unlock.
	Erase bool
}

// Empty reports whether c changes nothing: no object or output put or
// deleted, no check results, and no lineage brought in.
func (c Changes) Empty() bool {
	return len(c.Put)+len(c.Delete)+len(c.PutOutputs)+len(c.DeleteOutputs) == 0 && c.Checks == nil && c.Lineage == ""
}

// Prepare checks c before a store queues it, and encodes the dependencies
// of each c.Put[i] as JSON (nil when it has none), so that every store
// refuses the same malformed changes and its single writer spends its time
// writing. Errors start with "commit:"; a store prefixes where it is.
func (c Changes) Prepare() (deps []*string, err error) {
	deps = make([]*string, len(c.Put))
	if err := c.prepare(func(i int, d string) { deps[i] = &d }); err != nil {
		return nil, err
	}
	return deps, nil
}

// prepare is Prepare giving each c.Put[i]'s encoded dependencies to dep,
// for those that have any.
func (c Changes) prepare(dep func(i int, deps string)) error {
	for i, o := range c.Put {
		if o == nil || o.Address == "" {
			return fmt.Errorf("commit: Put[%d] is nil or has no address", i)
		}
		if len(o.Dependencies) > 0 {
			b, err := json.Marshal(o.Dependencies)
			if err != nil {
				return fmt.Errorf("commit: object %s: encoding dependencies: %w", o.Address, err)
			}
			dep(i, string(b))
		}
	}
	for i, o := range c.PutOutputs {
		if o == nil || o.Name == "" {
			return fmt.Errorf("commit: PutOutputs[%d] is nil or has no name", i)
		}
	}
	return nil
}

// LockInfo says who holds the lock on a store.
type LockInfo struct {
	ID        string
	Operation string // e.g. "up", "destroy"
	Who       string // user@host
	Host      string
	PID       int
	Created   time.Time
}

// Store is a place state is kept.
//
// Commit is safe for concurrent use: concurrent callers may be grouped into
// one transaction, but every Commit returns only once its own changes are
// durable, so a completed provider call is never lost.
//
// A store that handed out a lock checks, in the transaction of every
// Commit, that the lock is still the one it took: once another process has
// broken it (`tether state unlock -force`), Commit fails with a
// *LockLostError and writes nothing, so two runners never both write.
type Store interface {
	Load(ctx context.Context) (*Snapshot, error)
	Commit(ctx context.Context, c Changes) error

	// Lock takes the store's lock for one operation. When another process
	// holds it, Lock fails at once with a *LockedError naming the holder.
	Lock(ctx context.Context, info LockInfo) (Unlocker, error)
	// ForceUnlock breaks the lock held and returns who held it (nil, nil
	// when nobody did). With id set it breaks only the lock of that ID,
	// failing with a *LockIDError otherwise, so that a lock taken since
	// the user read the ID is left alone. Deciding whether the holder may
	// still be running is the caller's business (see HolderAlive).
	ForceUnlock(ctx context.Context, id string) (*LockInfo, error)

	Close() error
}

// LaterCommitter is a Store that can also take a commit without its
// caller waiting: then is told what Commit would have returned, once the
// changes are durable or have failed. An apply hands each object's commit
// over this way and goes on with other work, starting what depends on the
// object only once then reports it recorded.
type LaterCommitter interface {
	CommitLater(c Changes, then Then)
}

// Then is told the outcome of a commit handed over with CommitLater. It
// is an interface rather than a function so that a caller handing over
// many commits can be told through a value it allocated anyway (an
// apply's per-object record of the visit), not a closure made for each.
type Then interface {
	Recorded(err error)
}

// ThenFunc is a function as a Then.
type ThenFunc func(error)

// Recorded calls f.
func (f ThenFunc) Recorded(err error) { f(err) }

// Unlocker releases a lock taken by Store.Lock.
type Unlocker interface {
	Unlock() error
}
