package cli

import (
	"errors"
	"io/fs"

	"github.com/tetherhq/tether/internal/arch"
)

// archGraph prints the architecture that loading a Go program with
// closures has just written (.tether/arch.json) as a DOT graph: resources,
// closures, and their relationships of kinds infrastructure, client and
// captured property.
func (e *env) archGraph() int {
	a, err := arch.Read(".")
	if errors.Is(err, fs.ErrNotExist) {
		return e.errorf("no architecture to show: %s is written by Go programs that deploy closures (a router's handlers, a tester's tests), and this configuration has none", arch.Path)
	}
	if err != nil {
		return e.errorf("%v", err)
	}
	arch.WriteDOT(e.stdout, a)
	return 0
}
