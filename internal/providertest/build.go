package providertest

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/filelock"
)

// Provider is a real provider build, presented under a registry address and
// version.
type Provider struct {
	// Source is the address the provider is presented as, normally on
	// registry.terraform.io.
	Source tfaddr.Provider
	// Version is the version it is presented as, such as "0.14.2".
	Version string
	// Executable is the built binary, in the build cache: never modify it.
	Executable string
	// Target is the OS_ARCH the binary was built for, "" for this
	// machine's (see BuildFor).
	Target string
}

// platform is the OS_ARCH of p's binary.
func (p Provider) platform() string {
	if p.Target != "" {
		return p.Target
	}
	return Platform()
}

// build is what to build for one named provider.
type build struct {
	module, version string // for go install
	source, present string // how it is presented
}

// Builds are the providers Build knows, by name.
var builds = map[string]build{
	"time":  {"github.com/hashicorp/terraform-provider-time", "v0.14.2", "hashicorp/time", "0.14.2"},
	"local": {"github.com/terraform-providers/terraform-provider-local", "v1.4.1-0.20260513075820-3561e410f9fe", "hashicorp/local", "1.4.1"},
}

// Names lists the providers Build knows.
func Names() []string { return []string{"local", "time"} }

// ErrNoProxy is wrapped by Build's error when the build failed because the
// Go module proxy (or the module cache) could not supply the modules.
var ErrNoProxy = errors.New("the Go module proxy is not reachable")

// CacheDir is the folder builds are kept in: TETHER_TEST_PROVIDERS when
// set, else tether-test-providers in the user cache folder.
func CacheDir() (string, error) {
	if d := os.Getenv("TETHER_TEST_PROVIDERS"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "tether-test-providers"), nil
}

// Build returns the named provider ("time" or "local"), building it with
// `go install MODULE@VERSION` into CacheDir()/NAME/VERSION the first time.
// A file lock makes concurrent callers, in this process or in other test
// processes, build once. An unknown name is an error; a build that failed
// for want of the module proxy wraps ErrNoProxy.
func Build(name string) (Provider, error) {
	return BuildFor(name, Platform())
}

// BuildFor is Build for another platform (OS_ARCH, such as
// "darwin_arm64"), cross-compiled: a binary this machine may not run, for
// the tests of packages, locks and mirrors of several platforms.
func BuildFor(name, platform string) (Provider, error) {
	b, ok := builds[name]
	if !ok {
		return Provider{}, fmt.Errorf("providertest: no provider named %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	cache, err := CacheDir()
	if err != nil {
		return Provider{}, err
	}
	dir := filepath.Join(cache, name, b.version)
	p := Provider{Source: tfaddr.MustParseProviderSource(b.source), Version: b.present}
	if platform != Platform() {
		dir = filepath.Join(dir, platform)
		p.Target = platform
	}
	exe := filepath.Join(dir, "terraform-provider-"+name)
	p.Executable = exe
	if err := install(dir, exe, b.module, b.version, platform); err != nil {
		return Provider{}, fmt.Errorf("providertest: cannot build %s %s: %w", b.source, b.present, err)
	}
	return p, nil
}

// install builds module@version with `go install` into exe, once: a file
// lock makes concurrent callers, in this process or in other test
// processes, build once. A build that failed for want of the module proxy
// wraps ErrNoProxy.
func install(dir, exe, module, version, platform string) error {
	if _, err := os.Stat(exe); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(exe); err == nil {
		return nil // built by another process while we waited
	}
	bin, err := os.MkdirTemp(dir, ".bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	goos, goarch, _ := strings.Cut(platform, "_")
	// go install refuses GOBIN for another platform: there, the binary is
	// put in GOPATH/bin/GOOS_GOARCH, of a GOPATH of its own that shares
	// the module cache.
	env := append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	built := filepath.Join(bin, filepath.Base(module))
	if platform != Platform() {
		modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return fmt.Errorf("go env GOMODCACHE: %v", err)
		}
		env = append(env, "GOBIN=", "GOPATH="+bin, "GOMODCACHE="+strings.TrimSpace(string(modcache)))
		built = filepath.Join(bin, "bin", platform, filepath.Base(module))
	}
	cmd := exec.Command("go", "install", module+"@"+version)
	cmd.Dir = dir // outside any module, so that go.mod of the caller plays no part
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		if proxyProblem(string(out)) {
			return fmt.Errorf("%w:\n%s", ErrNoProxy, out)
		}
		return fmt.Errorf("go install %s@%s failed: %v\n%s", module, version, err, out)
	}
	return os.Rename(built, exe)
}

// proxyProblem reports whether go's output says the modules could not be
// downloaded.
func proxyProblem(out string) bool {
	for _, s := range []string{"GOPROXY", "GOFLAGS=-mod=mod", "module lookup disabled", "dial tcp", "no such host", "lookup ", "i/o timeout", "connection refused", "TLS handshake", "proxy.golang.org", "403 Forbidden", "404 Not Found"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// get builds the named provider for a test, skipping the test when the
// module proxy is missing and failing it on any other build error.
func get(t testing.TB, name string) Provider {
	t.Helper()
	p, err := Build(name)
	if errors.Is(err, ErrNoProxy) {
		t.Skipf("%v\n(run .ci/run or `go run ./internal/providertest/cmd/prebuild` with the module proxy reachable)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Time is hashicorp/time 0.14.2, built from the module proxy (see Build).
func Time(t testing.TB) Provider { return get(t, "time") }

// Local is hashicorp/local 1.4.1, built from a pseudo-version of
// terraform-provider-local (see Build).
func Local(t testing.TB) Provider { return get(t, "local") }

// As presents the same build under another version, for tests that need
// several versions of one provider. The package's binary name carries the
// version, so each version has its own h1 hash.
func (p Provider) As(version string) Provider {
	p.Version = version
	return p
}

// At presents the same build under another address (such as on a test
// registry's hostname).
func (p Provider) At(source tfaddr.Provider) Provider {
	p.Source = source
	return p
}

// BinaryName is the name of the binary in the package, as in HashiCorp's
// releases: terraform-provider-TYPE_vVERSION_x5.
func (p Provider) BinaryName() string {
	return fmt.Sprintf("terraform-provider-%s_v%s_x5", p.Source.Type, p.Version)
}

// ZipName is the release zip's name for a platform such as "linux_amd64".
func (p Provider) ZipName(platform string) string {
	return fmt.Sprintf("terraform-provider-%s_%s_%s.zip", p.Source.Type, p.Version, platform)
}

// Platform is this process's OS_ARCH, the only one builds are made for.
func Platform() string { return runtime.GOOS + "_" + runtime.GOARCH }

// zipTime is the fixed modification time of zip entries, so that a zip of
// the same build is the same bytes every time.
var zipTime = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Zip returns the release zip of p for this platform: the binary, named
// BinaryName, with mode 0755. The same p always gives the same bytes.
func (p Provider) Zip() ([]byte, error) {
	bin, err := os.ReadFile(p.Executable)
	if err != nil {
		return nil, err
	}
	return zipOf(map[string][]byte{p.BinaryName(): bin})
}

func zipOf(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		h := &zip.FileHeader{Name: name, Method: zip.Store, Modified: zipTime}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, bytes.NewReader(files[name])); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
