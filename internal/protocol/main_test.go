package protocol_test

import (
	"os"
	"testing"

	"github.com/tetherhq/tether/provider/tether"
)

// TestMain lets the test binary act as the runtime's function and router,
// as the provider's own executable does: the provider starts the router by
// running its own executable.
func TestMain(m *testing.M) {
	tether.RuntimeMain()
	os.Exit(m.Run())
}
