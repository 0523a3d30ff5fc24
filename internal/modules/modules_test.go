package modules_test

import (
	"archive/zip"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/modules"
	"github.com/tetherhq/tether/internal/providertest"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRegistry installs modules from a module registry on 127.0.0.1: the
// newest version the constraints allow, kept on the next run, chosen
// again with Upgrade, with //subdir, and recorded in the manifest.
func TestRegistry(t *testing.T) {
	s := providertest.NewServer(t)
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
		if err := s.AddModule("example", "net", "tether", v, map[string]string{"main.tf": "# net " + v + "\n", "sub/main.tf": "# sub " + v + "\n"}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	ctx := context.Background()
	src := s.Host.String() + "/example/net/tether"
	inst := &modules.Installer{Dir: dir, HTTP: s.Client}
	got, err := inst.Resolve(ctx, modules.Call{Key: "net", Source: src, Version: "~> 1.0", ParentDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".tether", "modules", "net"); got != want {
		t.Fatalf("installed in %s, want %s", got, want)
	}
	if text := readFile(t, filepath.Join(got, "main.tf")); text != "# net 1.1.0\n" {
		t.Fatalf("installed %q, want version 1.1.0", text)
	}
	sub, err := inst.Resolve(ctx, modules.Call{Key: "sub", Source: src + "//sub", Version: "2.0.0", ParentDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if text := readFile(t, filepath.Join(sub, "main.tf")); text != "# sub 2.0.0\n" {
		t.Fatalf("subdir installed %q", text)
	}
	if err := inst.Save(); err != nil {
		t.Fatal(err)
	}
	m, err := modules.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Modules) != 2 || m.Modules[0].Key != "net" || m.Modules[0].Version != "1.1.0" || m.Modules[0].Dir != ".tether/modules/net" ||
		m.Modules[1].Dir != ".tether/modules/sub/sub" {
		t.Fatalf("manifest %+v", m.Modules)
	}

	// The next run keeps what is installed, asking nothing.
	before := s.Requests()
	again := &modules.Installer{Dir: dir, HTTP: s.Client}
	if _, err := again.Resolve(ctx, modules.Call{Key: "net", Source: src, Version: "~> 1.0", ParentDir: dir}); err != nil {
		t.Fatal(err)
	}
	if s.Requests() != before {
		t.Fatalf("an installed module was fetched again")
	}

	// Upgrade chooses again.
	if err := s.AddModule("example", "net", "tether", "1.2.0", map[string]string{"main.tf": "# net 1.2.0\n"}); err != nil {
		t.Fatal(err)
	}
	up := &modules.Installer{Dir: dir, HTTP: s.Client, Upgrade: true}
	got, err = up.Resolve(ctx, modules.Call{Key: "net", Source: src, Version: "~> 1.0", ParentDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if text := readFile(t, filepath.Join(got, "main.tf")); text != "# net 1.2.0\n" {
		t.Fatalf("upgrade installed %q, want 1.2.0", text)
	}

	// No version matches: an error listing what there is.
	_, err = up.Resolve(ctx, modules.Call{Key: "net", Source: src, Version: ">= 3.0", ParentDir: dir})
	if err == nil || !strings.Contains(err.Error(), "no version matching") || !strings.Contains(err.Error(), "2.0.0") {
		t.Fatalf("want an error naming the available versions, got %v", err)
	}
}

// TestGit installs a module from a bare git repository the test makes,
// at a tag, with //subdir.
func TestGit(t *testing.T) {
	bare := providertest.GitRepo(t,
		providertest.GitCommit{Tag: "v1", Files: map[string]string{"net/main.tf": "# v1\n"}},
		providertest.GitCommit{Files: map[string]string{"net/main.tf": "# v2\n"}},
	)
	dir := t.TempDir()
	inst := &modules.Installer{Dir: dir}
	got, err := inst.Resolve(context.Background(), modules.Call{Key: "net", Source: "git::file://" + bare + "//net?ref=v1", ParentDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if text := readFile(t, filepath.Join(got, "main.tf")); text != "# v1\n" {
		t.Fatalf("installed %q, want the tag v1's", text)
	}
	if _, err := inst.Resolve(context.Background(), modules.Call{Key: "x", Source: "git::file://" + bare, Version: "1.0", ParentDir: dir}); err == nil || !strings.Contains(err.Error(), "non-registry source") {
		t.Fatalf("a version on a git source must be refused, got %v", err)
	}
}

// TestArchive installs modules from .zip and .tar.gz archives served over
// HTTP on 127.0.0.1.
func TestArchive(t *testing.T) {
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, text := range map[string]string{"main.tf": "# zip\n", "sub/main.tf": "# zip sub\n"} {
		f, _ := zw.Create(name)
		f.Write([]byte(text))
	}
	zw.Close()
	reg := providertest.NewServer(t)
	if err := reg.AddModule("a", "b", "c", "1.0.0", map[string]string{"main.tf": "# tgz\n"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mod.zip" {
			w.Write(zbuf.Bytes())
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	inst := &modules.Installer{Dir: dir, HTTP: reg.Client}
	for _, tc := range []struct{ key, src, want string }{
		{"zip", srv.URL + "/mod.zip", "# zip\n"},
		{"zipsub", srv.URL + "/mod.zip//sub", "# zip sub\n"},
		{"tgz", reg.URL + "/files/modules/a-b-c-1.0.0.tar.gz", "# tgz\n"},
	} {
		got, err := inst.Resolve(context.Background(), modules.Call{Key: tc.key, Source: tc.src, ParentDir: dir})
		if err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		if text := readFile(t, filepath.Join(got, "main.tf")); text != tc.want {
			t.Fatalf("%s: installed %q, want %q", tc.key, text, tc.want)
		}
	}
	if _, err := inst.Resolve(context.Background(), modules.Call{Key: "gone", Source: srv.URL + "/nope.zip", ParentDir: dir}); err == nil {
		t.Fatal("a missing archive must be an error")
	}
}
