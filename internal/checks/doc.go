// Package checks is the record of check results: for every checkable
// object of a configuration (a resource with preconditions or
// postconditions, an output with preconditions, a check block, a variable
// with validation rules) whether its rules passed, failed, errored or are
// not known yet, per instance, with the messages of those that failed.
//
// Terraform records them in state (`check_results` of state version 4)
// and writes them in `show -json` of a state and of a plan (`checks`).
// Results is their form in state version 4, which is also how Tether
// stores and carries them; the engine records them, the state stores
// them as bytes, internal/jsonplan shows them.
package checks
