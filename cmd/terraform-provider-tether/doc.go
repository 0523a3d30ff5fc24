// Command terraform-provider-tether is Tether's built-in provider as a
// Terraform provider plugin. Terraform starts it; it is not meant to be run
// by hand.
//
// Build it into a directory named by a dev_overrides entry for
// "tetherhq/tether" in the Terraform CLI configuration, and Terraform uses
// it without "terraform init".
package main
