// Package install finds, installs and verifies the provider plugins a
// configuration requires, the way Terraform does, so that one setup serves
// both tools: versions chosen by constraints, the dependency lock file
// .terraform.lock.hcl, and installed builds under .tether/providers/ in
// Terraform's unpacked layout
// (HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE...).
//
// It knows nothing of how providers are run: it hands back executables.
package install
