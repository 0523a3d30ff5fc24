package tether

import (
	"context"

	"github.com/tetherhq/tether/internal/sdk"
)

// T is what a test added to a tester receives (builtin.Tester.Test):
// `tether test` runs the test in this program, against the stack it
// deployed, and reports it failed when the test called Error, Fatal or
// Fail, or panicked. What the test logs is shown when it fails.
//
// Like testing.T, whose methods it mirrors, a T is for the goroutine that
// runs the test: FailNow and Fatal stop that goroutine.
type T struct{ t *sdk.T }

// Name is the test's name.
func (t *T) Name() string { return t.t.Name() }

// Context is cancelled when the test ends, before its cleanups run.
func (t *T) Context() context.Context { return t.t.Context() }

// Log records a line in the test's output, with the file and line that
// called it.
func (t *T) Log(args ...any) { t.t.Log(args...) }

// Logf is Log with a format.
func (t *T) Logf(format string, args ...any) { t.t.Logf(format, args...) }

// Error is Log, then Fail.
func (t *T) Error(args ...any) { t.t.Error(args...) }

// Errorf is Logf, then Fail.
func (t *T) Errorf(format string, args ...any) { t.t.Errorf(format, args...) }

// Fatal is Log, then FailNow.
func (t *T) Fatal(args ...any) { t.t.Fatal(args...) }

// Fatalf is Logf, then FailNow.
func (t *T) Fatalf(format string, args ...any) { t.t.Fatalf(format, args...) }

// Fail marks the test failed and lets it go on.
func (t *T) Fail() { t.t.Fail() }

// FailNow marks the test failed and ends it, running its deferred calls:
// call it from the goroutine that runs the test.
func (t *T) FailNow() { t.t.FailNow() }

// Failed reports whether the test failed.
func (t *T) Failed() bool { return t.t.Failed() }

// Helper marks the calling function as a helper: lines it logs are
// reported at its caller.
func (t *T) Helper() { t.t.Helper() }

// Cleanup registers a function to run when the test ends, last first.
func (t *T) Cleanup(f func()) { t.t.Cleanup(f) }
