package providertest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetherhq/tether/internal/filelock"
)

// builtCommands remembers, per package, what GoBuild returned in this
// process: the key costs a `go list`, once.
var builtCommands sync.Map // package -> *builtCommand

type builtCommand struct {
	once sync.Once
	exe  string
	err  error
}

// GoBuild returns the executable of a main package of this repository,
// such as "./cmd/tether" (a path relative to the repository's root, or
// its import path), built with `go build` for this machine.
//
// A build is kept in CacheDir()/bin/NAME/KEY/NAME, where KEY covers what
// the go command builds it from: the Go version, the build environment
// (GOOS, GOARCH, CGO_ENABLED, GOFLAGS, GOEXPERIMENT), the content of every
// file of this module (or a replacement folder) that the package and its
// dependencies compile or embed, and the module path and version of every
// other dependency. So every test of every package of a `go test ./...`
// run, and every later run until a source changes, shares one build
// instead of linking its own (linking tether takes seconds of CPU and tens
// of seconds on a busy machine), and a changed source is built again. A
// file lock makes concurrent callers, in this process or in other test
// processes, wait for one build; builds not used for a day are removed.
// The executable is shared: never modify it.
func GoBuild(pkg string) (string, error) {
	v, _ := builtCommands.LoadOrStore(pkg, new(builtCommand))
	b := v.(*builtCommand)
	b.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			b.err = err
			return
		}
		b.exe, b.err = goBuildIn(root, pkg)
	})
	return b.exe, b.err
}

// GoBuildAt is GoBuild with a copy of the executable written at path,
// its folders made: for where a file of its own is needed, such as a
// provider package in a filesystem mirror, which an install hashes and
// may link to.
func GoBuildAt(pkg, path string) error {
	exe, err := GoBuild(pkg)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o755)
}

// goBuildIn is GoBuild of pkg in the module at root.
func goBuildIn(root, pkg string) (string, error) {
	key, err := buildKey(root, pkg)
	if err != nil {
		return "", err
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	name := path.Base(pkg)
	dir := filepath.Join(cache, "bin", name, key)
	exe := filepath.Join(dir, name)
	if _, err := os.Stat(exe); err == nil {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: see removeOldBuilds
		return exe, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(exe); err == nil {
		return exe, nil // built by another caller while we waited
	}
	tmp := exe + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("providertest: go build %s: %v\n%s", pkg, err, out)
	}
	if err := os.Rename(tmp, exe); err != nil {
		return "", err
	}
	removeOldBuilds(filepath.Dir(dir), 24*time.Hour)
	return exe, nil
}

// buildKeyFormat is what `go list -deps` says of each package for
// buildKey: whether its files are to be hashed (this module, or a
// replacement folder), then what identifies it, then its files.
const buildKeyFormat = `{{if not .Standard}}` +
	`{{if .Module}}{{if or .Module.Main (and .Module.Replace (not .Module.Replace.Version))}}hash{{else}}module{{end}}{{else}}hash{{end}}` +
	` {{.ImportPath}}{{with .Module}} {{.Path}}@{{.Version}}{{with .Replace}}=>{{.Path}}@{{.Version}}{{end}}{{end}}` +
	"\t{{.Dir}}\t{{join .GoFiles \",\"}},{{join .CgoFiles \",\"}},{{join .CFiles \",\"}},{{join .HFiles \",\"}},{{join .SFiles \",\"}},{{join .SysoFiles \",\"}},{{join .EmbedFiles \",\"}}\n" +
	`{{end}}`

// buildKey is the hex SHA-256, shortened, of what go build of pkg in root
// reads: see GoBuild.
func buildKey(root, pkg string) (string, error) {
	h := sha256.New()
	envCmd := exec.Command("go", "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64")
	envCmd.Dir = root
	env, err := envCmd.Output()
	if err != nil {
		return "", fmt.Errorf("providertest: go env: %w", err)
	}
	fmt.Fprintf(h, "%s\n%s\n", pkg, env)
	for _, name := range []string{"go.mod", "go.sum"} {
		if err := hashFile(h, filepath.Join(root, name)); err != nil && !os.IsNotExist(err) {
			return "", err // a module without dependencies has no go.sum
		}
	}
	list := exec.Command("go", "list", "-deps", "-f", buildKeyFormat, pkg)
	list.Dir = root
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("providertest: go list -deps %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(h, line)
		kind, rest, _ := strings.Cut(line, " ")
		if kind != "hash" {
			continue
		}
		fields := strings.Split(rest, "\t")
		if len(fields) != 3 {
			return "", fmt.Errorf("providertest: unexpected go list line %q", line)
		}
		for _, f := range strings.Split(fields[2], ",") {
			if f == "" {
				continue
			}
			if err := hashFile(h, filepath.Join(fields[1], f)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFile writes name's path and content to h.
func hashFile(h io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "%s\n", name)
	_, err = io.Copy(h, f)
	return err
}
