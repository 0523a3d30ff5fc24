package install

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestInstallFromEachSource installs hashicorp/time 0.14.2 from each kind
// of source, then installs again (the lock and the installed package are
// reused) and ensures (nothing is fetched).
func TestInstallFromEachSource(t *testing.T) {
	tm := providertest.Time(t)
	tests := []struct {
		name string
		// setup returns the CLI configuration, the HTTP client, the address
		// to require and the server (nil when none).
		setup    func(t *testing.T) (string, *http.Client, tfaddr.Provider, *providertest.Server)
		auth     string
		zhHashes int
	}{
		{"unpacked filesystem mirror", func(t *testing.T) (string, *http.Client, tfaddr.Provider, *providertest.Server) {
			dir := providertest.UnpackedMirror(t, t.TempDir(), tm)
			return mirrorConfig(FilesystemMirror, dir), nil, tm.Source, nil
		}, "unauthenticated", 0},
		{"packed filesystem mirror", func(t *testing.T) (string, *http.Client, tfaddr.Provider, *providertest.Server) {
			dir := providertest.PackedMirror(t, t.TempDir(), tm)
			return mirrorConfig(FilesystemMirror, dir), nil, tm.Source, nil
		}, "unauthenticated", 0},
		{"network mirror", func(t *testing.T) (string, *http.Client, tfaddr.Provider, *providertest.Server) {
			srv := providertest.NewServer(t, tm)
			return mirrorConfig(NetworkMirror, srv.MirrorURL), srv.Client, tm.Source, srv
		}, "verified checksum", 0},
		{"registry", func(t *testing.T) (string, *http.Client, tfaddr.Provider, *providertest.Server) {
			srv := providertest.NewServer(t, tm)
			return "", srv.Client, srv.Address("hashicorp", "time"), srv
		}, "self-signed, key ID ", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli, client, addr, srv := tt.setup(t)
			f := newFixture(t, cli, client)
			reqs := requireAt(addr, "~> 0.14.0")
			pkgs, warnings, err := f.install(reqs)
			if err != nil {
				t.Fatal(err)
			}
			auth := tt.auth
			if srv != nil && auth == "self-signed, key ID " {
				auth += srv.KeyID
			}
			name := addr.ForDisplay()
			wantLines(t, f.lines,
				`- Finding `+name+` versions matching "~> 0.14.0"...`,
				`- Installing `+name+` v0.14.2...`,
				`- Installed `+name+` v0.14.2 (`+auth+`)`)
			if len(warnings) != 0 {
				t.Errorf("warnings: %q", warnings)
			}
			pkg := pkgs[addr]
			wantDir := filepath.Join(f.dir, ".tether/providers", addr.Hostname.String(), "hashicorp/time/0.14.2", hostPlatform)
			if pkg.Version != "0.14.2" || pkg.Dir != wantDir || pkg.Executable != filepath.Join(wantDir, "terraform-provider-time_v0.14.2_x5") || pkg.Dev {
				t.Errorf("package %+v", pkg)
			}
			// The installed binary runs: a provider started by hand says it
			// is a plugin.
			if out, _ := exec.Command(pkg.Executable).CombinedOutput(); !strings.Contains(string(out), "This binary is a plugin") {
				t.Errorf("the installed binary does not run as a provider: %q", out)
			}
			e := f.locks()[addr]
			if e == nil || e.Version != "0.14.2" || e.Constraints != "~> 0.14.0" {
				t.Fatalf("lock entry %+v", e)
			}
			if got := h1Hashes(e.Hashes); !reflect.DeepEqual(got, []string{h1(t, tm)}) {
				t.Errorf("h1 hashes %q, want %q", got, h1(t, tm))
			}
			if zh := len(e.Hashes) - 1; zh != tt.zhHashes {
				t.Errorf("%d zh: hashes, want %d: %q", zh, tt.zhHashes, e.Hashes)
			}
			lockBefore, _ := os.ReadFile(filepath.Join(f.dir, LockFileName))

			// Again: the lock and the installed package are reused.
			if _, _, err := f.install(reqs); err != nil {
				t.Fatal(err)
			}
			wantLines(t, f.lines,
				`- Reusing previous version of `+name+` from the dependency lock file`,
				`- Using previously-installed `+name+` v0.14.2`)

			// Ensure fetches nothing and prints nothing.
			var before int64
			if srv != nil {
				before = srv.Requests()
			}
			pkgs2, _, err := f.ensure(reqs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pkgs2, pkgs) {
				t.Errorf("Ensure gave %+v, Install %+v", pkgs2, pkgs)
			}
			if srv != nil && srv.Requests() != before {
				t.Errorf("Ensure sent %d requests", srv.Requests()-before)
			}
			wantLines(t, f.lines)
			lockAfter, _ := os.ReadFile(filepath.Join(f.dir, LockFileName))
			if string(lockAfter) != string(lockBefore) {
				t.Errorf("lock changed:\n%s\nwas:\n%s", lockAfter, lockBefore)
			}
		})
	}
}
