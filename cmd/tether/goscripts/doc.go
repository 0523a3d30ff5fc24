// Package goscripts holds the scenarios of Go programs written with the
// SDK (TestGoScripts, testdata/goscript): each is built by the go command
// in its own folder, as a user's program would be, and run through
// `tether -C DIR` and `go run`.
package goscripts
