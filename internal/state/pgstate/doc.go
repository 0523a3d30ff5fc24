// Package pgstate keeps Tether's state in a PostgreSQL schema, behind the
// same state.Store interface as the SQLite file, for teams that share one
// state.
//
// One schema holds any number of workspaces, each a separate state: rows of
// tether_objects and tether_outputs keyed by workspace. The tables are
// prefixed so that a schema Terraform's pg backend already uses (its states
// table) can hold Tether's state beside it. tether_meta records the schema's
// format version, refused when newer than this build reads, and the state's
// id, which names its key (see internal/secrets).
//
// A Store works through one dedicated connection, never a pooled one: the
// session-level advisory lock of its workspace is held on it for the whole
// run, and every commit goes through it too, so a run whose connection dies
// (the server restarted, or `tether state unlock` ended it) has lost its lock
// and cannot write another row. Concurrent commits are grouped into one
// implicit transaction of a single round trip.
package pgstate
