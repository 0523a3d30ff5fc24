// Package gcsstate keeps Tether's state in a Google Cloud Storage bucket,
// where Terraform's gcs backend keeps it, through Google's JSON API client
// (google.golang.org/api/storage/v1) and internal/state/objstate (the
// journal, its compaction, workspaces and the takeover of Terraform's
// state).
//
// Not cloud.google.com/go/storage: it links gRPC's xDS stack (envoy,
// cncf/xds), whose package initialisation cost every tether process about
// 10 ms, whatever its backend. The JSON client retries nothing, so every
// call goes through retry (retry.go), which retries what the storage
// client did (408, 429, 5xx, connections refused or cut) up to 5 attempts
// with a doubling backoff from 1 s: a GCS out of reach fails after about
// 15 s.
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
