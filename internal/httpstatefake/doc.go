// Package httpstatefake is a state server for tests that speaks Terraform's
// http backend protocol as GitLab's managed Terraform state does: GET,
// POST and DELETE of a state document, LOCK and UNLOCK with Terraform's
// lock record, 423 Locked naming the holder, and a POST while the state is
// locked refused with 409 Conflict unless its ID query parameter is the
// lock's. Each value of the workspace query parameter is a separate state
// and lock. It listens on 127.0.0.1.
package httpstatefake
