// Package httpstate keeps Tether's state behind Terraform's http backend
// protocol (GitLab's managed Terraform state, and any server that speaks
// it): GET the address reads the state, update_method (POST) writes it,
// DELETE removes it, and lock_method (LOCK) / unlock_method (UNLOCK) on
// lock_address / unlock_address take and release Terraform's lock, with
// Terraform's lock record as the body, so Terraform and Tether exclude
// each other.
//
// The protocol has one document per address and no transactions, so every
// Commit group writes the whole state document (statedoc) to the address,
// with the lock's ID as the ID query parameter (a server that checks it
// refuses a writer whose lock was broken) and a Content-MD5; it returns
// once the server has answered. That costs the state's size per group,
// where S3 pays one small journal object.
//
// Workspaces, which Terraform's http backend does not have (tf#26797):
// workspace NAME other than default is at each of the three addresses
// with the query parameter workspace=NAME added, and the default
// workspace's document lists the others, since the protocol cannot list.
//
// Terraform's state found at the address is never read as Tether's; init
// takes it over after writing a copy to a file under .tether/, since the
// protocol has nowhere else to move it.
package httpstate
