// Package install finds, installs and verifies the provider plugins a
// configuration requires, the way Terraform 1.11 does, so that one setup
// serves both tools:
//
//   - the CLI configuration (cliconfig.go): TF_CLI_CONFIG_FILE or
//     ~/.terraformrc, provider_installation methods or the implied ones,
//     dev_overrides, the plugin cache, registry tokens;
//   - the sources (fsmirror.go, netmirror.go, registry.go, signature.go):
//     filesystem mirrors in both layouts, network mirrors, and provider
//     registries found by service discovery, with signed SHA256SUMS;
//   - version selection (versions.go) and the dependency lock file
//     .terraform.lock.hcl (lockfile.go) with "h1:" and "zh:" hashes
//     (hash.go);
//   - installation (install.go, place.go, unpack.go) under
//     .tether/providers/ in Terraform's unpacked layout
//     (HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE...),
//     each package staged in a temporary sibling folder and renamed into
//     place.
//
// Install is `tether init`; Ensure is what plan and up call, cheap when
// everything is installed (the h1 hash of each installed package is cached
// in .tether/providers/.hashes.json by file size and time). Calls on one
// folder are serialized, within the process and, with flock, between
// processes. A plugin cache has Terraform's layout and is shared with it.
// The package knows nothing of how providers are run: it hands back
// executables.
package install
