// Command goapp is a Tether program written in Go: the Go twin of
// examples/goapp-hcl. It writes a greeting with a random suffix, reads it
// back with a data source that waits for it, and publishes a small site
// through a component of its own.
//
//	go run ./examples/goapp up -C examples/goapp --yes
//	tether up -C examples/goapp --yes   # the same: tether builds and runs it
package main
