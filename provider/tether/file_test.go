package tether

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/providercheck"
)

// TestFile runs the expectations of tether_file against the provider in
// process; internal/protocol and internal/plugin run the same ones over
// the plugin protocol.
func TestFile(t *testing.T) {
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness { return newHarness(t) }, providercheck.FileScenarios...)
}

// A relative path is the provider's working directory's, which only the
// provider in process shares with the test.
func TestFileRelativePathFollowsWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	h := newHarness(t)
	o := h.Up("tether_file", nil, map[string]cty.Value{
		"path":    cty.StringVal("out/rel.txt"),
		"content": cty.StringVal("relative"),
	})
	b, err := os.ReadFile(filepath.Join(dir, "out", "rel.txt"))
	if err != nil || string(b) != "relative" {
		t.Fatalf("content = %q (%v)", b, err)
	}
	if got := providercheck.String(t, o.State, "id"); got != "out/rel.txt" {
		t.Fatalf("id = %q, want the path as given", got)
	}
}
