package sdk

// Hooks for the tests of the SDK's public package, which cannot reach
// this package's unexported names.

import "github.com/tetherhq/tether/internal/deduce"

// DeduceWith makes the SDK ask f instead of the deducer, which cannot
// load the closures of a test binary, until the returned function is
// called.
func DeduceWith(f func(deduce.Request) (*deduce.Result, error)) (restore func()) {
	deduceHook = f
	deduced.Lock()
	deduced.m = map[string][]deduce.FuncResult{}
	deduced.Unlock()
	return func() { deduceHook = nil }
}

// RunWith is Run with the streams given, for tests.
var RunWith = run
