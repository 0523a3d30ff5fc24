// Package tether implements the built-in "tether" provider: local files,
// random strings and plain values, operated directly on cty values, and a
// local runtime that runs an application on this machine.
//
// It implements provider.Provider in process, so the engine calls it without
// any serialization, and the same implementation is offered to Terraform
// through package protocol.
//
// # The local runtime
//
// tether_function is a process (a command with arguments and environment;
// for the Go SDK, the user's own binary with a variable selecting a
// closure), tether_router an HTTP router with tether_route routes to
// functions, tether_kv a key-value store, and tether_tester a set of tests
// that `tether test` runs. Functions, routers and stores keep running after
// up returns: each is started in a session of its own, with its output in a
// log file, and destroy stops its whole process group (SIGTERM, then SIGKILL
// after a grace period). A process that ended outside Tether reads back with
// a null pid, so the next up restarts it in place, on the same port when
// that is free: whatever captured its URL is unaffected.
//
// Routers and stores are this binary itself, started as `BINARY runtime
// router` or `BINARY runtime kv`: every binary that embeds the provider must
// call RuntimeMain first thing in main.
//
// Each resource has a folder under the runtime folder (the provider's
// runtime_dir, by default .tether/runtime), named by its id:
//
//	output.log    what the process printed
//	process.json  its pid and start time, which tell it from a reused pid
//	ready.json    where a router or store listens, written once it does
//	token         a router's admin token (0600)
//	routes.json   a router's routes, reloaded when it restarts
//	data/         a store's values, one file per key
//
// Destroy removes the folder, and the runtime folder once it is empty.
package tether
