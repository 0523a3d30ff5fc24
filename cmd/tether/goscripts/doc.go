// Package goscripts holds scenarios of Go programs written with the SDK
// (TestGoScripts, testdata/goscript): each is built by the go command in
// its own folder, as a user's program would be, and run through
// `tether -C DIR` and `go run`. These are about the programs themselves:
// closures and their run time, values, references, dependencies,
// backends, errors at the program's lines, the examples (goapp, echo)
// and the SDK used from a clone. Programs using modules and generated
// bindings are in cmd/tether/gomodules.
package goscripts
