package scripts

import (
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }

// TestScripts runs the command-line scenarios of testdata/script
// (e2e.Scripts).
func TestScripts(t *testing.T) { e2e.Scripts(t) }
