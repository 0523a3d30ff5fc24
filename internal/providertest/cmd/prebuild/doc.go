// Command prebuild builds the test providers of package providertest, and
// the Lambda runtime interface emulator, into their cache folder, so that
// the tests find them; CI runs it before
// `go test ./...`. It exits 1 when a build fails, but not when the module
// proxy is unreachable: then the tests that need the providers skip, saying
// so.
package main
