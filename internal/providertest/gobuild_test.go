package providertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoBuildKey checks that a build is kept under a key that changes
// with what the go command builds from (a source file of a dependency in
// the module, an embedded file) and with nothing else (a file no build
// reads), and that GoBuild's executable runs and is reused.
func TestGoBuildKey(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("TETHER_TEST_PROVIDERS", t.TempDir())
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/k\n\ngo 1.22\n")
	write("cmd/hello/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/k/greet\"\n)\n\nfunc main() { fmt.Print(greet.Text) }\n")
	write("greet/greet.go", "package greet\n\nimport _ \"embed\"\n\n//go:embed text.txt\nvar Text string\n")
	write("greet/text.txt", "hello")
	key := func() string {
		t.Helper()
		k, err := buildKey(root, "./cmd/hello")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	run := func() (string, string) {
		t.Helper()
		exe, err := goBuildIn(root, "./cmd/hello")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(exe).Output()
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		return exe, string(out)
	}

	first := key()
	exe, out := run()
	if out != "hello" {
		t.Errorf("the build prints %q, want hello", out)
	}
	if !strings.Contains(exe, first) {
		t.Errorf("the build %s is not kept under its key %s", exe, first)
	}
	write("README", "not built")
	write("greet/notes_test.go", "package greet\n")
	if k := key(); k != first {
		t.Errorf("files no build reads changed the key")
	}
	if again, _ := run(); again != exe {
		t.Errorf("an unchanged build is %s, then %s", exe, again)
	}
	write("greet/text.txt", "bonjour")
	second := key()
	if second == first {
		t.Errorf("a changed embedded file kept the key")
	}
	if exe2, out := run(); exe2 == exe || out != "bonjour" {
		t.Errorf("after the embedded file changed: %s printing %q, want a new build printing bonjour", exe2, out)
	}
	write("greet/more.go", "package greet\n\nvar More = 1\n")
	if k := key(); k == second {
		t.Errorf("a new source file of a dependency kept the key")
	}
}
