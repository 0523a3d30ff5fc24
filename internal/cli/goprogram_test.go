package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A Go program's build says what is happening, and when it is done, so
// that a first build (a minute or two) does not leave the terminal
// silent. The notice is set to come at once; the program here imports
// nothing, so that it builds offline.
func TestGoProgramBuildSaysSo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	old := buildNotice
	buildNotice = 0
	t.Cleanup(func() { buildNotice = old })
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ran\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
