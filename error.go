package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Error is a mistake in a program, reported at the place in the program's
// source that made it. The SDK returns it from the direct form of data
// sources; returned from the function given to Main, it is printed like
// any other diagnostic, as FILE:LINE:COLUMN: SUMMARY.
type Error = sdk.Error
