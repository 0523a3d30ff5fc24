// Command prebuild builds the test providers of package providertest into
// their cache folder, so that the tests find them; CI runs it before
// `go test ./...`. It exits 1 when a build fails, but not when the module
// proxy is unreachable: then the tests that need the providers skip, saying
// so.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/providertest"
)

func main() {
	failed := false
	for _, name := range providertest.Names() {
		p, err := providertest.Build(name)
		if errors.Is(err, providertest.ErrNoProxy) {
			fmt.Fprintf(os.Stderr, "%v\n(the tests that need it will skip)\n", err)
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		fmt.Printf("%s %s: %s\n", p.Source.ForDisplay(), p.Version, p.Executable)
	}
	if failed {
		os.Exit(1)
	}
}
