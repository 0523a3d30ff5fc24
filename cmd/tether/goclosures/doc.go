// Package goclosures holds scenarios of Go programs whose functions are
// closures deployed as handlers (TestGoScripts, testdata/goscript): what
// they capture and see at run time, their processes, what the SDK refuses
// to deploy, examples/echo, and closures run through a plugin build of the
// built-in provider. Each program is built by the go command in its own
// folder, as a user's would be, and run through `tether -C DIR` and
// `go run`.
package goclosures
