// Package s3state keeps Tether's state in an S3 bucket, where Terraform's
// s3 backend keeps it, behind the same state.Store interface as the SQLite
// file and PostgreSQL.
//
// Layout, per workspace (PATH is KEY for the default workspace and
// WORKSPACE_KEY_PREFIX/NAME/KEY for workspace NAME, as Terraform's):
//
//	PATH                       the compacted state: one JSON document
//	PATH.tether-journal/SEQ    one object per committed group of changes,
//	                           each written once (If-None-Match: *)
//	PATH.tflock                the lock file, Terraform's format
//	KEY.tether-id              the state's id, which names its key
//	                           (internal/secrets); shared by all workspaces
//
// S3 has no transactions, so a Commit is durable once its journal object
// is: the object is written with If-None-Match: *, so two writers can never
// both write the same sequence number, and it carries its own SHA-256,
// checked on every read. Load reads the compacted document and the journal
// objects after it, in order. The journal is folded into the document at
// Unlock (the end of a run) and at the next Lock after a crash; journal
// objects are deleted only once a document that holds them is written, so
// a kill at any moment loses nothing.
//
// Locks exclude Terraform too: Tether always takes the lock file (what
// use_lockfile = true makes Terraform take) and, with dynamodb_table, the
// DynamoDB item whose LockID is BUCKET/PATH, both in Terraform's format,
// so whichever tool comes second is refused naming the holder. With
// dynamodb_table, Tether also keeps Terraform's BUCKET/PATH-md5 digest
// item current.
//
// The compacted document is Tether's own format ("tether_state": 1). A
// Terraform state document found at PATH is Terraform's: Tether refuses to
// read it as its own, offers it for takeover (init), and copies it to
// PATH.terraform-adopted-TIMESTAMP before anything replaces it.
package s3state
