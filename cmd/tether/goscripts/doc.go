// Package goscripts holds scenarios of Go programs written with the SDK
// (TestGoScripts, testdata/goscript): each is built by the go command in
// its own folder, as a user's program would be, and run through
// `tether -C DIR` and `go run`. These are about the programs themselves:
// references, DependsOn, backends and workspaces, providers configured by
// reference, errors at the program's lines, examples/goapp beside its HCL
// twin, and the SDK used from a clone. Closures are in
// cmd/tether/goclosures, modules and generated bindings in
// cmd/tether/gomodules.
package goscripts
