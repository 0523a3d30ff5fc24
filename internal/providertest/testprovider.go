package providertest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/filelock"
)

// TestProviderSource is the address BuildTestProvider presents the test
// provider of package testprovider as.
var TestProviderSource = tfaddr.MustParseProviderSource("tetherhq/testing")

// BuildTestProvider returns the provider "testing" of package
// internal/providertest/testprovider, built from this repository with
// `go build` and presented as TestProviderSource version 1.0.0 (As gives
// it another version). schema is the schema version of its resource type
// testing_upgraded: 1, the current one, or 0, the one before it, for
// scenarios of a state upgrade.
//
// A build is kept in CacheDir()/testing/HASH, where HASH covers the
// package's files, go.mod, go.sum, the Go version and schema, so that a
// change to the provider builds again and an unchanged one is built once,
// whatever the number of tests or processes asking (a file lock makes them
// wait for one build). Builds left by older sources are removed after a
// day. A build that failed for want of the module proxy wraps ErrNoProxy.
func BuildTestProvider(schema int) (Provider, error) {
	if schema != 0 && schema != 1 {
		return Provider{}, fmt.Errorf("providertest: the test provider has schema versions 0 and 1, not %d", schema)
	}
	root, err := moduleRoot()
	if err != nil {
		return Provider{}, err
	}
	hash, err := testProviderHash(root, schema)
	if err != nil {
		return Provider{}, err
	}
	cache, err := CacheDir()
	if err != nil {
		return Provider{}, err
	}
	dir := filepath.Join(cache, "testing", hash)
	p := Provider{Source: TestProviderSource, Version: "1.0.0", Executable: filepath.Join(dir, "terraform-provider-testing")}
	if _, err := os.Stat(p.Executable); err == nil {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: see removeOldBuilds
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Provider{}, err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return Provider{}, err
	}
	defer unlock()
	if _, err := os.Stat(p.Executable); err == nil {
		return p, nil // built by another caller while we waited
	}
	tmp := p.Executable + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "-ldflags", fmt.Sprintf("-X main.upgradedSchema=%d", schema), "./internal/providertest/testprovider")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		if proxyProblem(string(out)) {
			return Provider{}, fmt.Errorf("providertest: cannot build the test provider: %w:\n%s", ErrNoProxy, out)
		}
		return Provider{}, fmt.Errorf("providertest: go build of the test provider failed: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, p.Executable); err != nil {
		return Provider{}, err
	}
	removeOldBuilds(filepath.Dir(dir), 24*time.Hour)
	return p, nil
}

// moduleRoot is the folder of this repository's go.mod, found from this
// source file's path, so that it does not depend on the working folder;
// in a build with -trimpath, whose paths are not absolute, from the go.mod
// the go command finds for the working folder.
func moduleRoot() (string, error) {
	_, src, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("providertest: cannot locate the source of package providertest")
	}
	root := filepath.Join(filepath.Dir(src), "..", "..")
	if !filepath.IsAbs(src) {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			return "", fmt.Errorf("providertest: go env GOMOD: %w", err)
		}
		root = filepath.Dir(strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "providertest", "testprovider")); err != nil {
		return "", fmt.Errorf("providertest: the test provider is built from this repository, which is not at %s: %w", root, err)
	}
	return root, nil
}

// testProviderHash is the hex SHA-256 of what the test provider's build
// depends on: the files of its package (which imports no other package of
// this module), go.mod, go.sum, the Go version and the schema version.
func testProviderHash(root string, schema int) (string, error) {
	pkg := filepath.Join(root, "internal", "providertest", "testprovider")
	entries, err := os.ReadDir(pkg)
	if err != nil {
		return "", err
	}
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for _, e := range entries {
		if !e.IsDir() {
			files = append(files, filepath.Join(pkg, e.Name()))
		}
	}
	slices.Sort(files)
	h := sha256.New()
	fmt.Fprintf(h, "%s %s schema %d\n", runtime.Version(), Platform(), schema)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\n", filepath.Base(name))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// removeOldBuilds removes the builds in dir not used for age (a build's
// folder is touched each time it is used): those of sources since changed. Errors are ignored; a build in use is at worst
// made again.
func removeOldBuilds(dir string, age time.Duration) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && e.IsDir() && !strings.HasPrefix(e.Name(), ".") && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
