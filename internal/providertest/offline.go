package providertest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/internal/filelock"
	"github.com/tetherhq/tether/internal/goprogram"
)

// offlineEnv is what the go command needs to build a program against this
// repository from the module cache alone: go.mod may be completed, no
// module is looked up, no checksum database asked, no toolchain fetched.
var offlineEnv = []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local"}

var (
	moduleCacheOnce sync.Once
	moduleCacheErr  error
)

// OfflineGoEnv returns the variables (to add to os.Environ) under which
// the go command builds a program that uses this repository, through a
// go.mod made by GoModule, offline: GOPROXY=off, GOSUMDB=off,
// GOTOOLCHAIN=local and GOFLAGS=-mod=mod; and the folder in which
// `tether -C` keeps the programs it builds, shared by all tests.
//
// Offline, such a build needs every module of the repository's graph in
// the module cache, not only those a `go test` of this repository
// downloaded for itself (module graph pruning reads the go.mod of modules
// no package here imports). So the first call in a test process runs
// `go mod download` in the repository with the caller's own environment,
// the same go command and proxy the user's `go test` uses; a file lock in
// the module cache makes concurrent test processes wait for one another,
// and later calls find the cache filled. When the proxy cannot supply
// the modules the test is skipped, saying so; any other failure fails it.
func OfflineGoEnv(t testing.TB) []string {
	t.Helper()
	moduleCacheOnce.Do(func() { moduleCacheErr = fillModuleCache() })
	if errors.Is(moduleCacheErr, ErrNoProxy) {
		t.Skipf("%v\n(the test builds a Go program offline from the module cache, which `go mod download` in the repository fills)", moduleCacheErr)
	}
	if moduleCacheErr != nil {
		t.Fatal(moduleCacheErr)
	}
	env := append([]string(nil), offlineEnv...)
	if cache, err := CacheDir(); err == nil {
		// Programs that `tether -C` builds are kept by content in one
		// folder for every test of every package, and for the next run:
		// each test's copy of a program is not linked again.
		env = append(env, goprogram.CacheEnv+"="+filepath.Join(cache, "programs"))
	}
	return env
}

// fillModuleCache runs `go mod download` in the repository once per
// module cache at a time.
func fillModuleCache() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("providertest: go env GOMODCACHE: %w", err)
	}
	cache := string(out[:len(out)-1])
	if err := os.MkdirAll(filepath.Join(cache, "cache"), 0o755); err != nil {
		return err
	}
	unlock, err := filelock.Lock(filepath.Join(cache, "cache", "tether-download.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		if proxyProblem(string(b)) {
			return fmt.Errorf("%w: go mod download in %s:\n%s", ErrNoProxy, root, b)
		}
		return fmt.Errorf("providertest: go mod download in %s: %v\n%s", root, err, b)
	}
	return tidyUserModule(root)
}

// tidyUserModule runs, online, what a user's first steps run: `go mod
// tidy` in a new module that requires this repository (through a replace
// directive, as the README's tour does) and imports every package a
// program may import. Tidy reads modules that no build of the repository
// needs (the imports of its dependencies' tests), so a test that runs
// `go mod tidy` offline would fail on an empty module cache otherwise.
func tidyUserModule(root string) error {
	list := exec.Command("go", "list", "-f", "{{if ne .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("providertest: go list in %s: %v", root, err)
	}
	var imports strings.Builder
	for _, p := range strings.Fields(string(out)) {
		if !strings.Contains(p, "/internal/") && !strings.Contains(p, "/cmd/") && !strings.Contains(p, "/bench") {
			fmt.Fprintf(&imports, "\t_ %q\n", p)
		}
	}
	dir, err := os.MkdirTemp("", "tether-tidy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	main := "package main\n\nimport (\n" + imports.String() + ")\n\nfunc main() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"mod", "init", "example.com/tidy"},
		{"mod", "edit", "-require=github.com/tetherhq/tether@v0.0.0", "-replace=github.com/tetherhq/tether=" + root},
		{"mod", "tidy"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			if proxyProblem(string(b)) {
				return fmt.Errorf("%w: go %s in a module requiring %s:\n%s", ErrNoProxy, strings.Join(args, " "), root, b)
			}
			return fmt.Errorf("providertest: go %s in a module requiring %s: %v\n%s", strings.Join(args, " "), root, err, b)
		}
	}
	return nil
}
