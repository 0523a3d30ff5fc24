package providertest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestBuildTestProvider checks that each schema version is its own build,
// presented as tetherhq/testing 1.0.0 and made once, and that an unknown
// schema version is refused.
func TestBuildTestProvider(t *testing.T) {
	exes := map[string]int{}
	for _, schema := range []int{0, 1} {
		p, err := BuildTestProvider(schema)
		if errors.Is(err, ErrNoProxy) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Source.String() + " " + p.Version; got != "registry.terraform.io/tetherhq/testing 1.0.0" {
			t.Errorf("schema %d: presented as %s", schema, got)
		}
		info, err := os.Stat(p.Executable)
		if err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("schema %d: executable %s: %v", schema, p.Executable, err)
		}
		again, err := BuildTestProvider(schema)
		if err != nil || again.Executable != p.Executable {
			t.Errorf("schema %d: second build %s (%v), want %s", schema, again.Executable, err, p.Executable)
		}
		exes[p.Executable] = schema
	}
	if len(exes) != 2 {
		t.Errorf("schema versions 0 and 1 share a build: %v", exes)
	}
	if _, err := BuildTestProvider(2); err == nil || !strings.Contains(err.Error(), "0 and 1") {
		t.Errorf("schema 2: error %v", err)
	}
}
