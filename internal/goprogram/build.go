package goprogram

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/filelock"
)

// DirEnv names the environment variable through which tether gives a
// program it built the folder of its main module: see SourceFile.
const DirEnv = "TETHER_GO_MODULE_DIR"

// CacheEnv names the environment variable that sets the folder built
// programs are kept in. It is its owner's to clear: Build removes only
// what has not been used for a day. Unset, programs are kept in the user's
// cache folder (os.UserCacheDir()/tether/go-programs), where Build also
// keeps no more than the keep most recently used: an executable is about
// 100 MB.
const CacheEnv = "TETHER_GO_PROGRAMS"

const (
	exeName = "program"
	keep    = 8
	unused  = 24 * time.Hour
)

// Build returns the executable of the Go main package in dir (a full
// path), built with goBin (the go command) unless the cache holds one
// built from the same content, and the folder of the program's main
// module, to give the program in DirEnv. What the go command says while
// compiling, its errors included, goes to stderr.
//
// The files of the main module are compiled with its folder trimmed from
// their names (-gcflags=-trimpath), and only they: dependencies are
// compiled as by any go build, so the build cache serves both. So the
// executable is the same in every copy of the program, and SourceFile
// finds the files again. A program whose build cannot be shared that way
// (GOFLAGS sets -gcflags of its own, the module lies in a folder whose
// name needs quoting, or a go.work joins several main modules) is kept per
// folder, with full file names. The VCS stamp is left out (-buildvcs=false):
// copies at different commits share one build.
func Build(goBin, dir string, stderr io.Writer) (exe, root string, err error) {
	key, mod, err := buildKey(goBin, dir, stderr)
	if err != nil {
		return "", "", err
	}
	cache, explicit, err := cacheDir()
	if err != nil {
		return "", "", err
	}
	entry := filepath.Join(cache, key)
	exe = filepath.Join(entry, exeName)
	if used(entry, exe) {
		return exe, mod.dir, nil
	}
	if err := os.MkdirAll(entry, 0o700); err != nil {
		return "", "", err
	}
	unlock, err := filelock.Lock(filepath.Join(entry, ".lock"))
	if err != nil {
		return "", "", err
	}
	defer unlock()
	if used(entry, exe) {
		return exe, mod.dir, nil // built by another tether while this one waited
	}
	tmp := exe + ".tmp"
	args := []string{"build", "-buildvcs=false", "-o", tmp}
	if mod.shared {
		args = append(args, "-gcflags="+mod.path+"/...=-trimpath="+mod.dir+"=>"+mod.path)
	}
	build := exec.Command(goBin, append(args, ".")...)
	build.Dir = dir
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		os.Remove(tmp)
		return "", "", err
	}
	if err := os.Rename(tmp, exe); err != nil {
		return "", "", err
	}
	prune(cache, explicit)
	return exe, mod.dir, nil
}

// keyFormat is what `go list -export -deps` says of each package for the
// key. A package of the main module is compiled with its folder trimmed
// (see Build), so the go command's build ID, which covers the folder, is
// not used for it: the key takes its files' names and content instead
// ("main" lines). Every other package is the same in every copy of the
// program, and its build ID (the go command's hash of all that went into
// compiling it, and of the result) stands for it ("dep" lines).
const keyFormat = "{{if and .Module .Module.Main}}main {{.Module.Path}}\t{{.Module.Dir}}\t{{.ImportPath}}\t{{.Dir}}\t" +
	`{{join .GoFiles ","}},{{join .CgoFiles ","}},{{join .CFiles ","}},{{join .CXXFiles ","}},{{join .HFiles ","}},` +
	`{{join .SFiles ","}},{{join .SysoFiles ","}},{{join .EmbedFiles ","}}` + "\t{{.DefaultGODEBUG}}" +
	"{{else}}dep {{.ImportPath}} {{.BuildID}}{{end}}"

// keyEnv is the build environment that the build IDs of the other
// packages do not cover for the main module's: flags, how cgo compiles
// and links, and the GOROOT the linker writes in.
var keyEnv = []string{"GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "CC", "CXX"}

// module is the main module of a program: its path, its folder, and
// whether its build can be shared by copies in other folders (see Build).
type module struct {
	path, dir string
	shared    bool
}

// buildKey is the hex SHA-256, shortened, of what the program in dir is
// built from, and its main module. Listing the build IDs compiles what is
// not compiled yet, as go build would, and its errors are the go
// command's own.
func buildKey(goBin, dir string, stderr io.Writer) (string, module, error) {
	var mod module
	env := exec.Command(goBin, append([]string{"env"}, keyEnv...)...)
	env.Dir = dir
	env.Stderr = stderr
	envOut, err := env.Output()
	if err != nil {
		return "", mod, err
	}
	list := exec.Command(goBin, "list", "-export", "-deps", "-f", keyFormat, ".")
	list.Dir = dir
	list.Stderr = stderr
	out, err := list.Output()
	if err != nil {
		return "", mod, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nGO_EXTLINK_ENABLED=%s\n", envOut, os.Getenv("GO_EXTLINK_ENABLED"))
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		rest, ok := strings.CutPrefix(line, "main ")
		if !ok {
			fmt.Fprintln(h, line)
			continue
		}
		f := strings.Split(rest, "\t")
		if len(f) != 6 {
			return "", mod, fmt.Errorf("unexpected go list line %q", line)
		}
		if mod.dir != "" && mod.dir != f[1] {
			mod.shared = false // a workspace of several main modules
			fmt.Fprintf(h, "folder %s\nfolder %s\n", mod.dir, f[1])
		} else if mod.dir == "" {
			mod = module{f[0], f[1], !strings.Contains(string(envOut), "-gcflags") && !strings.ContainsAny(f[1], " \t'\"\\")}
			if !mod.shared {
				fmt.Fprintf(h, "folder %s\n", f[1])
			}
		}
		fmt.Fprintf(h, "main %s %s\n", f[2], f[5])
		for _, name := range append([]string{"go.mod", "go.sum"}, strings.Split(f[4], ",")...) {
			if name == "" {
				continue
			}
			full := filepath.Join(f[3], name)
			if name == "go.mod" || name == "go.sum" {
				full = filepath.Join(f[1], name)
			}
			if err := hashFile(h, f[1], full); err != nil {
				return "", mod, err
			}
		}
	}
	if mod.dir == "" {
		return "", mod, fmt.Errorf("go list names no package of the main module in %s", dir)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], mod, nil
}

// hashFile writes the name of file, relative to root, and its content to
// h. A missing go.sum (a module without dependencies) is written as such.
func hashFile(h io.Writer, root, file string) error {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\n", filepath.ToSlash(rel))
	f, err := os.Open(file)
	if os.IsNotExist(err) && filepath.Base(file) == "go.sum" {
		_, err = fmt.Fprintln(h, "(none)")
		return err
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// used reports whether entry holds its executable, marking it used now
// (prune removes what has not been used).
func used(entry, exe string) bool {
	if _, err := os.Stat(exe); err != nil {
		return false
	}
	now := time.Now()
	os.Chtimes(entry, now, now)
	return true
}

// cacheDir is where built programs are kept, and whether CacheEnv chose it.
func cacheDir() (string, bool, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, true, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "tether", "go-programs"), false, nil
}

// prune removes the builds in cache not used for a day and, unless the
// folder was chosen through CacheEnv, all but the keep most recently used.
// A build in use by a running program can be removed: the system keeps
// the file of a running executable until it ends.
func prune(cache string, explicit bool) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	type build struct {
		path string
		at   time.Time
	}
	var builds []build
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		builds = append(builds, build{filepath.Join(cache, e.Name()), info.ModTime()})
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].at.After(builds[j].at) })
	for i, b := range builds {
		if time.Since(b.at) > unused || !explicit && i >= keep {
			os.RemoveAll(b.path)
		}
	}
}
