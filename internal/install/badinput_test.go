package install

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestInstallBadInput runs Install against each kind of bad input: every
// one is an error naming the provider (and where it looked), and nothing is
// left installed, half or whole.
func TestInstallBadInput(t *testing.T) {
	tm := providertest.Time(t)
	local := providertest.Local(t)
	// garbage answers the paths that end with suffix with body.
	garbage := func(srv *providertest.Server, suffix string, code int, body string) {
		srv.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, suffix) {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			w.Write([]byte(body))
			return true
		}
	}
	tests := []struct {
		name string
		// setup returns the fixture and requirements; want are parts of the
		// error.
		setup func(t *testing.T) (*fixture, []config.ProviderRequirement)
		want  []string
		// lockKept is true when the fixture wrote a lock that must stay.
		lockKept bool
	}{
		{"provider nowhere", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			empty := t.TempDir()
			f := newFixture(t, "provider_installation {\n  filesystem_mirror {\n    path = \""+empty+"\"\n  }\n  network_mirror {\n    url = \""+srv.MirrorURL+"\"\n  }\n  direct {}\n}\n", srv.Client)
			return f, requireAt(srv.Address("hashicorp", "nope"), "")
		}, []string{"hashicorp/nope was not found; looked in: filesystem mirror ", "; network mirror https://127.0.0.1:", "; the provider registry (direct): registry 127.0.0.1:", "does not have provider"}, false},
		{"no version meets the constraints", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, providertest.UnpackedMirror(t, t.TempDir(), tm)), nil)
			return f, require("hashicorp/time", ">= 0.99")
		}, []string{`no available version of provider hashicorp/time meets the constraints ">= 0.99.0"`, ": has 0.14.2"}, false},
		{"locked version unavailable", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, providertest.UnpackedMirror(t, t.TempDir(), tm)), nil)
			f.writeLock("provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"0.14.1\"\n}\n")
			return f, require("hashicorp/time", "")
		}, []string{"hashicorp/time 0.14.1 (locked in .terraform.lock.hcl) is not available", "has 0.14.2"}, true},
		{"locked version outside the constraints", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, providertest.UnpackedMirror(t, t.TempDir(), tm)), nil)
			f.writeLock("provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"0.14.2\"\n}\n")
			return f, require("hashicorp/time", "~> 0.15")
		}, []string{"hashicorp/time is locked at version 0.14.2", `constraints "~> 0.15"`, "tether init -upgrade"}, true},
		{"hash not in the lock", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, providertest.UnpackedMirror(t, t.TempDir(), tm)), nil)
			f.writeLock("provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"0.14.2\"\n  hashes = [\n    \"h1:AAAA\",\n  ]\n}\n")
			return f, require("hashicorp/time", "")
		}, []string{"hashicorp/time 0.14.2 from filesystem mirror", "the package has hash " + h1(t, tm) + ", but the dependency lock file allows only h1:AAAA"}, true},
		{"lock file does not parse", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, providertest.UnpackedMirror(t, t.TempDir(), tm)), nil)
			f.writeLock("provider \"registry.terraform.io/hashicorp/time\" {\n  version = 0.14.2\n}\n")
			return f, require("hashicorp/time", "")
		}, []string{LockFileName + ":2:"}, true},
		{"mirror folder missing", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			f := newFixture(t, mirrorConfig(FilesystemMirror, filepath.Join(t.TempDir(), "absent")), nil)
			return f, require("hashicorp/time", "")
		}, []string{"cannot list the versions of provider hashicorp/time from filesystem mirror", "absent cannot be read"}, false},
		{"package without a binary", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			dir := t.TempDir()
			pkg := filepath.Join(dir, "registry.terraform.io/hashicorp/time/0.14.2", hostPlatform)
			os.MkdirAll(pkg, 0o755)
			os.WriteFile(filepath.Join(pkg, "README.md"), []byte("no binary\n"), 0o644)
			return newFixture(t, mirrorConfig(FilesystemMirror, dir), nil), require("hashicorp/time", "")
		}, []string{"cannot install provider hashicorp/time 0.14.2 from filesystem mirror", "holds no file named terraform-provider-time*"}, false},
		{"packed mirror zip is not a zip", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			dir := t.TempDir()
			base := filepath.Join(dir, "registry.terraform.io/hashicorp/time")
			os.MkdirAll(base, 0o755)
			os.WriteFile(filepath.Join(base, tm.ZipName(hostPlatform)), []byte("not a zip"), 0o644)
			return newFixture(t, mirrorConfig(FilesystemMirror, dir), nil), require("hashicorp/time", "")
		}, []string{"cannot install provider hashicorp/time 0.14.2", "is not a valid zip"}, false},
		{"network mirror answers garbage", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "index.json", 200, "<html>oops</html>")
			return newFixture(t, mirrorConfig(NetworkMirror, srv.MirrorURL), srv.Client), require("hashicorp/time", "")
		}, []string{"cannot list the versions of provider hashicorp/time from network mirror https://127.0.0.1:", "index.json answered something that is not the expected JSON"}, false},
		{"network mirror fails", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "index.json", 500, "{}")
			return newFixture(t, mirrorConfig(NetworkMirror, srv.MirrorURL), srv.Client), require("hashicorp/time", "")
		}, []string{"hashicorp/time from network mirror", "answered 500 Internal Server Error"}, false},
		{"network mirror package does not match its hash", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			z, _ := local.At(tm.Source).As("0.14.2").Zip()
			srv.SetFile("/mirror/registry.terraform.io/hashicorp/time/"+tm.ZipName(hostPlatform), z)
			return newFixture(t, mirrorConfig(NetworkMirror, srv.MirrorURL), srv.Client), require("hashicorp/time", "")
		}, []string{"cannot install provider hashicorp/time 0.14.2 from network mirror", "but the mirror lists [" + h1(t, tm) + "]"}, false},
		{"registry discovery answers garbage", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "/.well-known/terraform.json", 200, "[1,2")
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"from the provider registry (direct): service discovery for 127.0.0.1:"}, false},
		{"registry answers garbage", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "/versions", 200, `{"versions": "many"}`)
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"cannot list the versions of provider 127.0.0.1:", "/hashicorp/time from the provider registry (direct)", "not the expected JSON"}, false},
		{"registry download answers garbage", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "/download/"+strings.Replace(hostPlatform, "_", "/", 1), 200, `{"filename": "x.zip"}`)
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"cannot install provider 127.0.0.1:", "gives an invalid download_url"}, false},
		{"registry has no package for this platform", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "/download/"+strings.Replace(hostPlatform, "_", "/", 1), 404, `{"errors":["Not Found"]}`)
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"has no package of 127.0.0.1:", "/hashicorp/time 0.14.2 for " + hostPlatform}, false},
		{"bad signature", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			other, err := openpgp.NewEntity("Someone else", "", "x@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
			if err != nil {
				t.Fatal(err)
			}
			srv.SignWith(t, other)
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"/hashicorp/time 0.14.2 from the provider registry (direct)", "SHA256SUMS", "is not authentic: the signature is by none of the signing keys the registry gives"}, false},
		{"corrupt signature", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			garbage(srv, "_SHA256SUMS.sig", 200, "not a signature")
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"is not authentic"}, false},
		{"zip does not match the signed sums", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			srv := providertest.NewServer(t, tm)
			z, _ := local.Zip()
			srv.SetFile("/files/"+tm.ZipName(hostPlatform), z)
			return newFixture(t, "", srv.Client), requireAt(srv.Address("hashicorp", "time"), "")
		}, []string{"downloaded from https://127.0.0.1:", "but the signed SHA256SUMS gives"}, false},
		{"invalid constraint", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			return newFixture(t, mirrorConfig(FilesystemMirror, t.TempDir()), nil), require("hashicorp/time", "soonish")
		}, []string{`invalid version constraint "soonish" for provider hashicorp/time`}, false},
		{"no method serves the provider", func(t *testing.T) (*fixture, []config.ProviderRequirement) {
			dir := providertest.UnpackedMirror(t, t.TempDir(), tm)
			return newFixture(t, "provider_installation {\n  filesystem_mirror {\n    path = \""+dir+"\"\n    include = [\"example.com/*/*\"]\n  }\n}\n", nil), require("hashicorp/time", "")
		}, []string{"provider hashicorp/time is not served by any provider installation method of the CLI configuration (", "cli.tfrc)"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, reqs := tt.setup(t)
			before, _ := os.ReadFile(filepath.Join(f.dir, LockFileName))
			pkgs, _, err := f.install(reqs)
			wantErr(t, err, tt.want...)
			if pkgs != nil {
				t.Errorf("packages returned with the error: %v", pkgs)
			}
			if files := f.files(); len(files) > 0 {
				t.Errorf("left behind: %q", files)
			}
			after, err := os.ReadFile(filepath.Join(f.dir, LockFileName))
			if tt.lockKept && string(after) != string(before) {
				t.Errorf("lock file changed to:\n%s", after)
			}
			if !tt.lockKept && err == nil {
				t.Errorf("lock file written:\n%s", after)
			}
		})
	}
}
