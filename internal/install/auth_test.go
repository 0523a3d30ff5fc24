package install

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestTokens sends the token of TF_TOKEN_<host> to the registry API and the
// network mirror, and never with downloads.
func TestTokens(t *testing.T) {
	tm := providertest.Time(t)
	srv := providertest.NewServer(t, tm)
	var mu sync.Mutex
	got := map[string]string{} // first path segment -> Authorization seen
	srv.Intercept = func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		seg := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)[0]
		if strings.HasSuffix(r.URL.Path, ".zip") {
			seg = "zip"
		}
		if a := r.Header.Get("Authorization"); a != "" || got[seg] == "" {
			got[seg] = a
		}
		return false
	}
	// TF_TOKEN_ names cannot hold the test server's port, so the token is
	// set in the configuration here (TestLoadCLIConfig covers TF_TOKEN_).
	cfg := loadConfig(t, "credentials \""+srv.Host.String()+"\" {\n  token = \"s3cret\"\n}\n")
	f := newFixture(t, "", srv.Client)
	f.cfg = cfg
	f.cfg.Methods = []Method{{Kind: Direct}}
	if _, _, err := f.install(requireAt(srv.Address("hashicorp", "time"), "")); err != nil {
		t.Fatal(err)
	}
	m := newFixture(t, "", srv.Client)
	m.cfg = loadConfig(t, "credentials \""+srv.Host.String()+"\" {\n  token = \"s3cret\"\n}\n"+mirrorConfig(NetworkMirror, srv.MirrorURL))
	if _, _, err := m.install(require("hashicorp/time", "")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{".well-known": "Bearer s3cret", "v1": "Bearer s3cret", "mirror": "Bearer s3cret", "files": "", "zip": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: Authorization %q, want %q", k, got[k], v)
		}
	}
}

// TestImpliedLocalMirror installs with no CLI configuration file from the
// working folder's terraform.d/plugins, which the implied configuration
// searches first and excludes from direct installation, so nothing goes
// to the network.
func TestImpliedLocalMirror(t *testing.T) {
	tm := providertest.Time(t)
	f := newFixture(t, "", nil)
	providertest.PackedMirror(t, filepath.Join(f.dir, "terraform.d", "plugins"), tm)
	home := t.TempDir()
	cfg, err := LoadCLIConfig([]string{"XDG_DATA_DIRS=" + home, "XDG_DATA_HOME=" + home}, home, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg = cfg
	pkgs, _, err := f.install(require("hashicorp/time", ""))
	if err != nil {
		t.Fatal(err)
	}
	if pkgs[tm.Source].Version != "0.14.2" {
		t.Errorf("package %+v", pkgs[tm.Source])
	}
	if _, err := os.Stat(filepath.Join(f.dir, LockFileName)); err != nil {
		t.Error(err)
	}
}
