package tether

import (
	"github.com/tetherhq/tether/internal/sdk"
)

// Error is a mistake in a program, reported at the place in the program's
// source that made it. The SDK returns it from the direct form of data
// sources; returned from the function given to Main, it is printed like
// any other diagnostic, as FILE:LINE:COLUMN: SUMMARY.
//
// Error is the implementation's type under this name (an alias), so that
// errors.As finds it in any error the SDK returns. Its fields are File,
// Line, Column, Summary and Detail; Error() formats them as above, with
// ": DETAIL" after the summary when there is a detail.
type Error = sdk.Error
