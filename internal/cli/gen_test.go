package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestBuiltinBindingsUpToDate regenerates the bindings of the built-in
// provider the way the checked-in ones were made and fails when anything
// would change: run `go run ./cmd/tether gen --from builtin --out builtin`
// after changing the provider's schema or the generator.
func TestBuiltinBindingsUpToDate(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"gen", "--from", "builtin", "--out", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("gen exited %d: %s", code, stderr.String())
	}
	checkedIn := filepath.Join("..", "..", "builtin")
	want, got := goFiles(t, checkedIn), goFiles(t, out)
	if strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("builtin/ holds %v, regenerating gives %v: run go run ./cmd/tether gen --from builtin --out builtin", want, got)
	}
	for _, name := range got {
		a, _ := os.ReadFile(filepath.Join(checkedIn, name))
		b, _ := os.ReadFile(filepath.Join(out, name))
		if !bytes.Equal(a, b) {
			t.Errorf("builtin/%s is out of date: run go run ./cmd/tether gen --from builtin --out builtin", name)
		}
	}
}

func goFiles(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}
