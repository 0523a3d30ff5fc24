package aws

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuild builds a program for Lambda twice and after a change: the
// zip holds a linux/amd64 executable named bootstrap, and its hash moves
// only with the program.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	dir, out := t.TempDir(), t.TempDir()
	write := func(msg string) {
		src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(" + msg + ") }\n"
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(`"a"`)
	first, err := Build(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Errorf("the same program gave %v, then %v", first, again)
	}
	write(`"b"`)
	changed, err := Build(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Hash == first.Hash {
		t.Errorf("a changed program kept the hash %s", first.Hash)
	}

	z, err := zip.OpenReader(changed.Path)
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
	if e.Machine != elf.EM_X86_64 || e.Type != elf.ET_EXEC {
		t.Errorf("bootstrap is %v %v, want an x86-64 executable", e.Machine, e.Type)
	}
	if interp := e.Section(".interp"); interp != nil {
		t.Errorf("bootstrap needs a dynamic loader; built with cgo?")
	}
}
