// Package terraform is Terraform's built-in provider,
// terraform.io/builtin/terraform, as Tether serves it: in process, never
// installed and never in the lock file, implied by the local name
// "terraform" with no required_providers entry, as Terraform serves it.
//
// terraform_data keeps a value in state: output follows input (known after
// apply when input is not known during plan), a changed triggers_replace
// replaces it, and it can be imported by id or moved from hashicorp/null's
// null_resource, with Terraform 1.11's rules.
//
// terraform_remote_state reads the root outputs of another state over the
// backends Tether has: "local" (a Terraform state file, as Terraform's
// local backend reads it, or the Tether state of another configuration
// folder) and "pg" (Tether's PostgreSQL backend, or Terraform's states
// table beside it). An output recorded as sensitive is sensitive here too.
//
// Its functions encode_expr, encode_tfvars and decode_tfvars write values
// as expressions and .tfvars content, and read the latter back.
package terraform
