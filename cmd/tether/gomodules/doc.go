// Package gomodules holds scenarios of Go programs that use Terraform
// modules and providers through the SDK (TestGoScripts,
// testdata/goscript): tether.Module calls, the typed bindings tether gen
// makes from modules (local, a registry, a git repository) and from
// provider schemas and binaries, and tether.json's requirements. Each
// program is built by the go command in its own folder, as a user's
// would be, and run through `tether -C DIR` and `go run`.
package gomodules
