// Package objstate keeps Tether's state as objects in a store without
// transactions (S3, Google Cloud Storage, Azure Blob Storage), where
// Terraform keeps its state, behind the same state.Store interface as the
// SQLite file and PostgreSQL. Each backend is a thin adapter: it gives
// the store's objects as a Blobs, where each workspace's state lives
// (Config.Path) and how its lock is taken (a Locker; LockFile is
// Terraform's lock file), and objstate does the rest.
//
// Layout, per workspace (PATH is Config.Path(workspace)):
//
//	PATH                       the compacted state: one JSON document
//	PATH.tether-journal/SEQ    one object per committed group of changes,
//	                           each written once (Blobs.Create)
//	Config.IDKey               the state's id, which names its key
//	                           (internal/secrets); shared by all workspaces
//
// The store has no transactions, so a Commit is durable once its journal
// object is: the object is written with Create, so two writers can never
// both write the same sequence number, and it carries its own SHA-256,
// checked on every read. Load reads the compacted document and the
// journal objects after it, in order. The journal is folded into the
// document at Unlock (the end of a run) and at the next Lock after a
// crash; journal objects are deleted only once a document that holds them
// is written, so a kill at any moment loses nothing. Before each journal
// object is written, the lock is read back: a run whose lock was broken
// stops with a *state.LockLostError instead of writing. A run reads the
// state once: Lock's compaction keeps what it read, Load under the lock
// returns it with the run's own commits applied, and Unlock folds (and
// reads) nothing when the run wrote no journal object.
//
// What a Blobs must guarantee:
//
//   - Create is atomic: of any number of concurrent Creates of one key,
//     exactly one succeeds, and the others (like a Create of a key already
//     in use) fail with an error that errors.Is matches to ErrExists.
//     Journal sequence numbers, the lock file and the state id rest on it.
//   - Read after write: a Get, Exists or List that starts after a Create,
//     Put or Delete returned sees its effect. S3, Google Cloud Storage and
//     Azure Blob Storage all give this.
//   - Get of an absent object fails with an error errors.Is matches to
//     ErrNotFound, and returns a version that changes with every write of
//     the object (an ETag or a generation).
//   - The digest given to Create and Put comes back from Get unchanged
//     (object metadata), so that every object Tether wrote is checked.
//   - Delete of an absent object is not an error.
//
// The compacted document is Tether's own format ("tether_state": 1). A
// Terraform state document found at PATH is Terraform's: Tether refuses to
// read it as its own, offers it for takeover (init), and copies it to
// PATH.terraform-adopted-TIMESTAMP before anything replaces it.
package objstate
