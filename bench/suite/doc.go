// Command suite records how long the test suite takes, per package and
// for its slowest tests, with the commit and the machine's load, so that a
// slowdown is visible: it runs `go test -json` (the README's command,
// `-timeout 45m ./...`, unless given other arguments) and writes a
// Markdown section, appended to bench/SUITE.md with --write.
//
//	go run ./bench/suite [--write bench/SUITE.md] [--top 30] [--from run.json] [--save run.json] [go test arguments]
//
// --from reads the output of an earlier `go test -json` run instead of
// running one (its wall time and CPU are then unknown). The CPU figure is
// that of go test and every process it waited for: the builds, the test
// binaries and what they ran.
package main
