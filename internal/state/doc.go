// Package state records what Tether has created: one row per resource
// instance object and one per root output, in a store that commits each
// change durably before the caller goes on.
//
// The store treats values as opaque bytes (the engine encodes them); it
// owns durability, batching, locking and refusing files it cannot trust.
// The embedded store is a SQLite file under the working folder's .tether/.
package state
