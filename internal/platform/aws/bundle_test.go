package aws

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// program writes a Go program printing msg (an expression) into a new
// folder, and returns the folder; it skips t where Go cannot build.
func program(t *testing.T, msg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rewrite(t, dir, msg)
	return dir
}

// rewrite makes the program in dir print msg.
func rewrite(t *testing.T, dir, msg string) {
	t.Helper()
	src := "package main\n\nimport \"fmt\"\n\nvar who = \"built\"\n\nfunc main() { fmt.Println(" + msg + ", who) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bootstrapOf reads the executable in a bundle's zip, checking that the
// zip holds it alone, as bootstrap, executable.
func bootstrapOf(t *testing.T, b Bundle) (*elf.File, []byte) {
	t.Helper()
	z, err := zip.OpenReader(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if len(z.File) != 1 || z.File[0].Name != "bootstrap" || z.File[0].Mode().Perm() != 0o755 {
		t.Fatalf("zip holds %v", z.File)
	}
	f, err := z.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	e, err := elf.NewFile(bytes.NewReader(exe))
	if err != nil {
		t.Fatalf("bootstrap is not an ELF executable: %v", err)
	}
	return e, exe
}

// debugSections lists an executable's symbol table and DWARF sections.
func debugSections(e *elf.File) []string {
	var out []string
	for _, s := range e.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			out = append(out, s.Name)
		}
	}
	return out
}

// TestBuild builds a program for Lambda twice and after a change: the
// zip holds a linux/amd64 executable named bootstrap, without symbol
// table or debugging information, and its hash moves only with the
// program.
func TestBuild(t *testing.T) {
	dir := program(t, `"a"`)
	out := t.TempDir()
	first, err := Build(dir, out, out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(dir, out, out)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Errorf("the same program gave %v, then %v", first, again)
	}
	rewrite(t, dir, `"b"`)
	changed, err := Build(dir, out, out)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Hash == first.Hash {
		t.Errorf("a changed program kept the hash %s", first.Hash)
	}

	e, _ := bootstrapOf(t, changed)
	if e.Machine != elf.EM_X86_64 || e.Type != elf.ET_EXEC {
		t.Errorf("bootstrap is %v %v, want an x86-64 executable", e.Machine, e.Type)
	}
	if interp := e.Section(".interp"); interp != nil {
		t.Errorf("bootstrap needs a dynamic loader; built with cgo?")
	}
	if s := debugSections(e); len(s) > 0 {
		t.Errorf("bootstrap carries %v: want it linked with -s -w", s)
	}
}

// TestBuildSharesTheLink builds one program's bundle for two state
// folders (up's and test's) with one link folder: the second finds the
// executable up to date (the go command runs no link, as a -toolexec log
// shows), writes a zip of the same hash in its own folder and no
// executable there.
func TestBuildSharesTheLink(t *testing.T) {
	dir := program(t, `"a"`)
	if runtime.GOOS == "windows" {
		t.Skip("counts the links with a shell script as -toolexec")
	}
	tools := filepath.Join(t.TempDir(), "tools.log")
	script := filepath.Join(t.TempDir(), "toolexec")
	text := "#!/bin/sh\ncase \"$2\" in -V=full) ;; *) basename \"$1\" >> '" + tools + "' ;; esac\nexec \"$@\"\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-toolexec="+script)
	links := func() int {
		text, _ := os.ReadFile(tools)
		return strings.Count(string(text), "link\n")
	}
	link, up, test := t.TempDir(), t.TempDir(), t.TempDir()
	first, err := Build(dir, link, up)
	if err != nil {
		t.Fatal(err)
	}
	if n := links(); n != 1 {
		t.Fatalf("the first build ran %d links, want 1 (is the -toolexec log right?)", n)
	}
	second, err := Build(dir, link, test)
	if err != nil {
		t.Fatal(err)
	}
	if second.Hash != first.Hash || second.Path != filepath.Join(test, "bootstrap.zip") {
		t.Errorf("the second state folder's bundle is %v, want the hash of %v in its own folder", second, first)
	}
	if n := links(); n != 1 {
		t.Errorf("the program was linked again for the second state folder (%d links in all)", n)
	}
	for _, d := range []string{up, test} {
		if _, err := os.Stat(filepath.Join(d, "bootstrap")); err == nil {
			t.Errorf("%s holds an executable of its own", d)
		}
	}
}

// TestBuildKeepsTheUsersLdflags builds with -ldflags in GOFLAGS: those
// apply (a -X setting reaches the executable) in place of -s -w.
func TestBuildKeepsTheUsersLdflags(t *testing.T) {
	dir := program(t, `"a"`)
	t.Setenv("GOFLAGS", "-ldflags=-X=main.who=set-by-goflags")
	out := t.TempDir()
	b, err := Build(dir, out, out)
	if err != nil {
		t.Fatal(err)
	}
	e, exe := bootstrapOf(t, b)
	if !bytes.Contains(exe, []byte("set-by-goflags")) {
		t.Errorf("GOFLAGS' -ldflags did not reach the executable")
	}
	if len(debugSections(e)) == 0 {
		t.Errorf("the executable was stripped although GOFLAGS set -ldflags of its own")
	}
}
