// Package modules installs the modules a configuration calls from
// elsewhere than its own folder, as `terraform init` does: from a module
// registry (service discovery's modules.v1, a version chosen by the call's
// constraints, the package named by X-Terraform-Get), from git (git::URL,
// ?ref=), and from archives over HTTP (.zip, .tar.gz), each with an
// optional //subdir. Packages are fetched with hashicorp/go-getter into
// .tether/modules/KEY, and .tether/modules/modules.json records, by
// module key (the call names from the root joined with dots, "net.vpc"),
// where each module's files are, as .terraform/modules/modules.json does.
//
// It knows nothing of HCL: the front-end finds the calls and their
// sources, and asks for each through Installer.Resolve.
package modules
