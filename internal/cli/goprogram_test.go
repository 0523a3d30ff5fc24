package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/goprogram"
)

// A Go program's build says what is happening, and when it is done, so
// that a first build (a minute or two) does not leave the terminal
// silent. The notice is set to come at once; the program here imports
// nothing, so that it builds offline.
func TestGoProgramBuildSaysSo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv(goprogram.CacheEnv, t.TempDir()) // not the user's cache
	old := buildNotice
	buildNotice = 0
	t.Cleanup(func() { buildNotice = old })
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ran\") }\n",
	}
	writeProgram(t, dir, files)
	var out, errs bytes.Buffer
	e := &env{stdout: &out, stderr: &errs}
	if code := e.runGoProgram(dir, "plan", nil); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errs.String())
	}
	if want := "Building the Go program in " + dir + " (go build)...\nBuilt it in "; !strings.HasPrefix(errs.String(), want) {
		t.Errorf("stderr is %q, want it to start with %q", errs.String(), want)
	}
	if out.String() != "ran\n" {
		t.Errorf("stdout is %q, want the program's", out.String())
	}
}

// Copies of one Go program in two folders (a second checkout, a CI
// workspace) run one build: the second is not linked again. An edit is a
// new build. The program names its own executable.
func TestGoProgramCopiesShareABuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv(goprogram.CacheEnv, t.TempDir())
	files := map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.21\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\texe, _ := os.Executable()\n\tfmt.Println(exe)\n}\n",
	}
	run := func(dir string) string {
		t.Helper()
		writeProgram(t, dir, files)
		var out, errs bytes.Buffer
		e := &env{stdout: &out, stderr: &errs}
		if code := e.runGoProgram(dir, "plan", nil); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errs.String())
		}
		return out.String()
	}
	first := run(filepath.Join(t.TempDir(), "a"))
	if copied := run(filepath.Join(t.TempDir(), "b")); copied != first {
		t.Errorf("the copy ran %s, not the first folder's build %s", copied, first)
	}
	files["main.go"] = strings.Replace(files["main.go"], "Println(exe)", "Println(exe + \" edited\")", 1)
	if edited := run(filepath.Join(t.TempDir(), "c")); !strings.HasSuffix(edited, " edited\n") {
		t.Errorf("the edited program said %q: an earlier build ran", edited)
	}
}

func writeProgram(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
