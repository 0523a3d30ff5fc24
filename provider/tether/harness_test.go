package tether

import (
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/providercheck"
)

// newHarness drives a new built-in provider in process, through the
// engine's own merge and checks (see providercheck), with a runtime folder
// of the test's own.
func newHarness(t testing.TB) *providercheck.Harness {
	t.Helper()
	runtimeDir := filepath.Join(t.TempDir(), "runtime")
	return providercheck.New(t, New(), map[string]cty.Value{"runtime_dir": cty.StringVal(runtimeDir)})
}
