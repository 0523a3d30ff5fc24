package backends

import (
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }
