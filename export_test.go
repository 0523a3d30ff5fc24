package tether

import "github.com/tetherhq/tether/internal/sdk"

// Test hooks of the implementation, for this package's external tests.
var (
	RunWith    = sdk.RunWith
	DeduceWith = sdk.DeduceWith
)
