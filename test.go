package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// T is what a test added to a tester receives (builtin.Tester.Test):
// `tether test` runs the test in this program, against the stack it
// deployed, and reports it failed when the test called Error, Fatal or
// Fail, or panicked. What the test logs is shown when it fails.
//
// Like testing.T, whose methods it mirrors, a T is for the goroutine that
// runs the test: FailNow and Fatal stop that goroutine.
type T = sdk.T
