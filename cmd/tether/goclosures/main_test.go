package goclosures

import (
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }

// TestGoScripts runs the Go programs of testdata/goscript (e2e.GoScripts).
func TestGoScripts(t *testing.T) { e2e.GoScripts(t) }
