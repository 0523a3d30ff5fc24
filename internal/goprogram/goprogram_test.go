package goprogram

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestSourceFile(t *testing.T) {
	trimmedBuild := []debug.BuildSetting{{Key: "-gcflags", Value: "example.com/app/...=-trimpath=/w/app=>example.com/app"}}
	for _, c := range []struct {
		name     string
		settings []debug.BuildSetting
		root     string
		file     string
		want     string
	}{
		{"the main package", trimmedBuild, "/w/app", "example.com/app/main.go", "/w/app/main.go"},
		{"another package of the module", trimmedBuild, "/w/app", "example.com/app/lib/lib.go", "/w/app/lib/lib.go"},
		{"a dependency", trimmedBuild, "/w/app", "/mod/example.com/lib@v1.2.0/lib.go", "/mod/example.com/lib@v1.2.0/lib.go"},
		{"a module whose path extends the main one's", trimmedBuild, "/w/app", "example.com/apply/x.go", "example.com/apply/x.go"},
		{"built without trimming", nil, "/w/app", "/src/app/main.go", "/src/app/main.go"},
		{"a copy of the program", trimmedBuild, "/w/copy", "example.com/app/main.go", "/w/copy/main.go"},
		{"a closure's process, in the program's folder", trimmedBuild, "", "example.com/app/cmd/app/main.go", "/w/run/cmd/app/main.go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Path: "example.com/app/cmd/app", Main: debug.Module{Path: "example.com/app"}, Settings: c.settings}
			module, root := trimmedRoot(bi, c.root, "/w/run/cmd/app")
			if got := sourceFile(c.file, module, root); got != c.want {
				t.Errorf("sourceFile(%q) = %q, want %q", c.file, got, c.want)
			}
		})
	}
}

// A program is linked once per content: a copy in another folder runs the
// same executable, and an edit to any package of its module, in either
// folder, makes a new one; no folder's name is built in. The program
// imports only the standard library, so that it builds offline.
func TestBuildOncePerContent(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cache := t.TempDir()
	t.Setenv(CacheEnv, cache)
	a := filepath.Join(t.TempDir(), "a")
	writeFiles(t, a, map[string]string{
		"go.mod":         "module example.com/p\n\ngo 1.21\n",
		"lib/lib.go":     "package lib\n\nconst Greeting = \"hello\"\n",
		"cmd/p/main.go":  "package main\n\nimport (\n\t\"fmt\"\n\t\"runtime\"\n\n\t\"example.com/p/lib\"\n)\n\nfunc main() {\n\t_, file, _, _ := runtime.Caller(0)\n\tfmt.Println(lib.Greeting, file)\n}\n",
		"cmd/p/other.go": "package main\n",
	})
	b := filepath.Join(filepath.Dir(a), "b")
	if out, err := exec.Command("cp", "-r", a, b).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	build := func(dir, wantOutput string) string {
		t.Helper()
		exe, root, err := Build(goBin, filepath.Join(dir, "cmd", "p"), os.Stderr)
		if err != nil {
			t.Fatalf("Build in %s: %v", dir, err)
		}
		if root != dir {
			t.Errorf("Build in %s gave the module's folder as %s", dir, root)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), DirEnv+"="+root)
		out, err := cmd.Output()
		// The program names its own file by module path: no folder is
		// built in.
		wantOutput += " example.com/p/cmd/p/main.go"
		if err != nil || string(out) != wantOutput+"\n" {
			t.Fatalf("the program built in %s said %q (%v), want %q", dir, out, err, wantOutput)
		}
		return exe
	}
	first := build(a, "hello")
	info, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	if copied := build(b, "hello"); copied != first {
		t.Errorf("the copy in another folder was built again (%s), not run from %s", copied, first)
	}
	writeFiles(t, b, map[string]string{"lib/lib.go": "package lib\n\nconst Greeting = \"bonjour\"\n"})
	if edited := build(b, "bonjour"); edited == first {
		t.Errorf("the edited copy ran the first build, %s", first)
	}
	if again := build(a, "hello"); again != first {
		t.Errorf("the first folder, unchanged, was built again (%s), not run from %s", again, first)
	}
	if after, err := os.Stat(first); err != nil || !after.ModTime().Equal(info.ModTime()) {
		t.Errorf("the first build was rewritten (%v)", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 2 {
		t.Errorf("the cache holds %d builds, want 2 (one per content)", len(entries))
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
