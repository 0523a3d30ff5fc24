// Package jsonplan writes Terraform's machine-readable representations of
// state and of a plan, the ones `terraform show -json` prints (format
// versions 1.0 and 1.2, as Terraform 1.11 writes them), in the types of
// github.com/hashicorp/terraform-json, so that tools written for
// Terraform (policy checks, PR commenters, cost estimators) read Tether's.
//
// As in Terraform, sensitive values appear in the clear, with
// sensitive_values and after_sensitive saying which they are: the
// representation is for machines. A reference's value never appears:
// plans and state hold its description.
package jsonplan
