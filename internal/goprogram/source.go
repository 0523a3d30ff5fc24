package goprogram

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// trimmed is how the running program's own source files are named, when
// Build built it: the main module's path, and the folder it stands for.
var trimmed = sync.OnceValues(func() (module, root string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	wd, _ := os.Getwd()
	return trimmedRoot(bi, os.Getenv(DirEnv), wd)
})

// trimmedRoot is trimmed for a program of build information bi run with
// root, the folder of its main module, in DirEnv, in the folder wd: ""
// unless Build trimmed the module's folder from the names of its files.
// Without root (a closure's process, whose environment is its own), the
// program runs in its main package's folder, as tether runs it.
func trimmedRoot(bi *debug.BuildInfo, root, wd string) (module, dir string) {
	if bi.Main.Path == "" {
		return "", ""
	}
	if root == "" && wd != "" {
		rel, ok := strings.CutPrefix(bi.Path, bi.Main.Path)
		if !ok || rel != "" && rel[0] != '/' {
			return "", ""
		}
		root = wd
		for range strings.Split(strings.Trim(rel, "/"), "/") {
			if rel != "" {
				root = filepath.Dir(root)
			}
		}
	}
	if !filepath.IsAbs(root) {
		return "", ""
	}
	for _, s := range bi.Settings {
		// Built in any folder: a copy runs the first copy's build.
		if s.Key == "-gcflags" && strings.Contains(s.Value, "-trimpath=") && strings.Contains(s.Value, "=>"+bi.Main.Path) {
			return bi.Main.Path, root
		}
	}
	return "", ""
}

// SourceFile is the full name of a source file of the running program,
// as runtime.Frame and runtime.Func name it. A program Build built names
// the files of its main module by module path (example.com/app/main.go):
// they lie in the folder tether gave it in DirEnv, or without it, around
// the folder it runs in (see trimmedRoot). Any other name is returned as
// it is: that of a program built without -trimpath is already full,
// and a dependency outside the main module is named by module path and
// version (example.com/lib@v1.2.0/lib.go), as in a stack trace.
func SourceFile(file string) string {
	module, root := trimmed()
	return sourceFile(file, module, root)
}

func sourceFile(file, module, root string) string {
	if module == "" || filepath.IsAbs(file) {
		return file
	}
	rest, ok := strings.CutPrefix(file, module+"/")
	if !ok {
		return file
	}
	return filepath.Join(root, filepath.FromSlash(rest))
}
