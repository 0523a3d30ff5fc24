package tether

import (
	"io"

	"github.com/tetherhq/tether/internal/sdk"
)

// Test hooks of the implementation, for this package's external tests.
var DeduceWith = sdk.DeduceWith

// RunWith is Run with the streams given.
func RunWith(args []string, stdin io.Reader, stdout, stderr io.Writer, build func(*Stack) error) int {
	return sdk.RunWith(args, stdin, stdout, stderr, program(build))
}
