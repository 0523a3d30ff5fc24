// Package gcsstate keeps Tether's state in a Google Cloud Storage bucket,
// where Terraform's gcs backend keeps it, through cloud.google.com/go/storage
// and internal/state/objstate (the journal, its compaction, workspaces and
// the takeover of Terraform's state).
//
// Layout, as Terraform's (PREFIX is the block's prefix, ending in '/'):
//
//	PREFIX/NAME.tfstate                 workspace NAME's compacted state
//	PREFIX/NAME.tfstate.tether-journal/ its journal (objstate)
//	PREFIX/NAME.tflock                  its lock file, Terraform's format
//	PREFIX/.tether-id                   the state's id (internal/secrets)
//
// The lock file is created with the precondition DoesNotExist
// (ifGenerationMatch=0), as Terraform creates it, and the lock's ID is the
// lock file's generation, as Terraform reports it: `terraform
// force-unlock` takes the ID Tether prints, and the other way round. The
// journal objects are created the same way. Every object but the lock
// file is written with the block's encryption_key or kms_encryption_key,
// as Terraform writes its state, and carries the SHA-256 of its body in
// its metadata (tether-sha256), checked on every read.
package gcsstate
