// Command echo is the echo application as one Go program: a router with
// GET /echo in front of a handler, and an end-to-end test of it. The
// handler and the test are closures of this very program, deployed as a
// function and a test that run it again with the closure selected.
//
//	go run ./cmd/tether up -C examples/echo --yes     deploy; prints the URL
//	curl "$(go run ./cmd/tether output -C examples/echo --raw url)"
//	go run ./cmd/tether test -C examples/echo         deploy, test, destroy
//	go run ./cmd/tether destroy -C examples/echo --yes
package main
