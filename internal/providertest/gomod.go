package providertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GoModule makes dir a Go module named module whose
// github.com/tetherhq/tether is the repository at repo: a go.mod with a
// replace directive and the repository's go.sum, so that a Go program
// copied there builds with this SDK, offline from the module cache.
func GoModule(t testing.TB, dir, module, repo string) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := "1.26"
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			goVersion = strings.TrimSpace(v)
		}
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire github.com/tetherhq/tether v0.0.0\n\nreplace github.com/tetherhq/tether => %s\n", module, goVersion, repo)
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}
