package install

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestTerraformInterop runs the real terraform (1.11) and Install on the
// same configuration with the same CLI configuration, for each kind of
// source, and checks that they write the same lock file, print the same
// progress lines, and accept each other's lock files.
func TestTerraformInterop(t *testing.T) {
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the interop test needs terraform 1.11")
	}
	tm := providertest.Time(t)
	local := providertest.Local(t)
	tests := []struct {
		name string
		// setup returns the CLI configuration, the CA file terraform must
		// trust ("" for none), our HTTP client and the providers required.
		setup func(t *testing.T) (cli, ca string, client *http.Client, addrs []tfaddr.Provider)
	}{
		{"unpacked filesystem mirror", func(t *testing.T) (string, string, *http.Client, []tfaddr.Provider) {
			dir := providertest.UnpackedMirror(t, t.TempDir(), tm, local)
			return mirrorConfig(FilesystemMirror, dir), "", nil, []tfaddr.Provider{tm.Source, local.Source}
		}},
		{"packed filesystem mirror", func(t *testing.T) (string, string, *http.Client, []tfaddr.Provider) {
			dir := providertest.PackedMirror(t, t.TempDir(), tm, local)
			return mirrorConfig(FilesystemMirror, dir), "", nil, []tfaddr.Provider{tm.Source, local.Source}
		}},
		{"network mirror", func(t *testing.T) (string, string, *http.Client, []tfaddr.Provider) {
			srv := providertest.NewServer(t, tm, local)
			return mirrorConfig(NetworkMirror, srv.MirrorURL), srv.CAFile, srv.Client, []tfaddr.Provider{tm.Source, local.Source}
		}},
		{"registry", func(t *testing.T) (string, string, *http.Client, []tfaddr.Provider) {
			srv := providertest.NewServer(t, tm, local)
			return "provider_installation {\n  direct {}\n}\n", srv.CAFile, srv.Client,
				[]tfaddr.Provider{srv.Address("hashicorp", "time"), srv.Address("hashicorp", "local")}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli, ca, client, addrs := tt.setup(t)
			cfg := loadConfig(t, cli)
			var reqs []config.ProviderRequirement
			main := "terraform {\n  required_providers {\n"
			for _, a := range addrs {
				constraint := map[string]string{"time": "~> 0.14.0", "local": ">= 1.0"}[a.Type]
				reqs = append(reqs, config.ProviderRequirement{Source: a, Constraints: []string{constraint}})
				main += "    " + a.Type + " = {\n      source  = \"" + a.String() + "\"\n      version = \"" + constraint + "\"\n    }\n"
			}
			main += "  }\n}\n"
			tf := newTerraform(t, tfBin, cfg.File, ca)

			// The same configuration, once by each tool.
			ours := newFixture(t, "", client)
			ours.cfg = cfg
			theirs := tf.dir(t, main)
			os.WriteFile(filepath.Join(ours.dir, "main.tf"), []byte(main), 0o644)
			out := tf.init(t, theirs)
			if _, _, err := ours.install(reqs); err != nil {
				t.Fatal(err)
			}
			ourLock := readFile(t, filepath.Join(ours.dir, LockFileName))
			theirLock := readFile(t, filepath.Join(theirs, LockFileName))
			if ourLock != theirLock {
				t.Errorf("lock files differ; ours:\n%s\nterraform's:\n%s", ourLock, theirLock)
			}
			if got, want := sortedLines(ours.lines), progressLines(out); got != want {
				t.Errorf("progress lines differ; ours:\n%s\nterraform's:\n%s", got, want)
			}

			// Each accepts the other's lock: terraform's in a new folder of
			// ours, ours in a new folder of terraform's; neither changes it.
			again := newFixture(t, "", client)
			again.cfg = cfg
			again.writeLock(theirLock)
			if _, _, err := again.install(reqs); err != nil {
				t.Fatalf("terraform's lock refused: %v", err)
			}
			if got := readFile(t, filepath.Join(again.dir, LockFileName)); got != theirLock {
				t.Errorf("terraform's lock rewritten:\n%s", got)
			}
			theirs2 := tf.dir(t, main)
			os.WriteFile(filepath.Join(theirs2, LockFileName), []byte(ourLock), 0o644)
			tf.init(t, theirs2)
			if got := readFile(t, filepath.Join(theirs2, LockFileName)); got != ourLock {
				t.Errorf("terraform rewrote our lock:\n%s", got)
			}
		})
	}
}

// terraform runs the terraform binary with a CLI configuration file and a
// home folder of the test's own.
type terraform struct {
	bin string
	env []string
}

func newTerraform(t *testing.T, bin, cliFile, ca string) *terraform {
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TF_CLI_CONFIG_FILE=" + cliFile,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
	}
	if ca != "" {
		env = append(env, "SSL_CERT_FILE="+ca)
	}
	return &terraform{bin: bin, env: env}
}

func (tf *terraform) dir(t *testing.T, main string) string {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func (tf *terraform) init(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(tf.bin, "init", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = tf.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out.String())
	}
	return out.String()
}

// progressLines are the "- " lines of terraform's init output, sorted
// (terraform installs providers concurrently, in no set order).
func progressLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "- ") {
			lines = append(lines, l)
		}
	}
	return sortedLines(lines)
}

func sortedLines(lines []string) string {
	s := append([]string(nil), lines...)
	sort.Strings(s)
	return strings.Join(s, "\n")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTerraformSharedCache shares a plugin cache between terraform and
// Tether: what one fills, the other links from (Tether with the mirror
// gone).
func TestTerraformSharedCache(t *testing.T) {
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the interop test needs terraform 1.11")
	}
	tm := providertest.Time(t)
	main := "terraform {\n  required_providers {\n    time = {\n      source  = \"hashicorp/time\"\n      version = \"0.14.2\"\n    }\n  }\n}\n"
	reqs := require("hashicorp/time", "0.14.2")
	for _, first := range []string{"terraform", "tether"} {
		t.Run(first+" fills the cache", func(t *testing.T) {
			mirror := providertest.PackedMirror(t, t.TempDir(), tm)
			cache := t.TempDir()
			cfg := loadConfig(t, "plugin_cache_dir = \""+cache+"\"\n"+mirrorConfig(FilesystemMirror, mirror))
			tf := newTerraform(t, tfBin, cfg.File, "")
			ours := newFixture(t, "", nil)
			ours.cfg = cfg
			theirs := tf.dir(t, main)
			var lock string
			if first == "terraform" {
				tf.init(t, theirs)
				lock = readFile(t, filepath.Join(theirs, LockFileName))
				os.RemoveAll(mirror)
				ours.writeLock(lock)
				if _, _, err := ours.install(reqs); err != nil {
					t.Fatal(err)
				}
				wantLines(t, ours.lines,
					"- Reusing previous version of hashicorp/time from the dependency lock file",
					"- Using hashicorp/time v0.14.2 from the shared cache directory")
				return
			}
			if _, _, err := ours.install(reqs); err != nil {
				t.Fatal(err)
			}
			lock = readFile(t, filepath.Join(ours.dir, LockFileName))
			// terraform asks its sources even for a locked, cached
			// provider, so the mirror stays.
			os.WriteFile(filepath.Join(theirs, LockFileName), []byte(lock), 0o644)
			out := tf.init(t, theirs)
			if !strings.Contains(out, "- Using hashicorp/time v0.14.2 from the shared cache directory") {
				t.Errorf("terraform did not use the cache Tether filled:\n%s", out)
			}
		})
	}
}

// TestTerraformUnpackedMirrorThroughCache installs from an unpacked
// filesystem mirror with a plugin cache set, by terraform and by Tether,
// each with a cache of its own: both leave the same links, the cache's
// entry to the mirror's folder (nothing is copied) and the providers
// folder's to the cache's entry.
func TestTerraformUnpackedMirrorThroughCache(t *testing.T) {
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the interop test needs terraform 1.11")
	}
	tm := providertest.Time(t)
	main := "terraform {\n  required_providers {\n    time = {\n      source  = \"hashicorp/time\"\n      version = \"0.14.2\"\n    }\n  }\n}\n"
	mirror := providertest.UnpackedMirror(t, t.TempDir(), tm)
	pkgPath := filepath.Join("registry.terraform.io/hashicorp/time/0.14.2", hostPlatform)
	// links describes the two links an install through the cache left
	// for the providers folder of one tool, naming the cache and the
	// mirror by their roles, so that both tools' layouts compare.
	links := func(t *testing.T, providers, cache string) string {
		t.Helper()
		var out []string
		for _, l := range []struct{ role, path string }{
			{"providers folder", filepath.Join(providers, pkgPath)},
			{"cache", filepath.Join(cache, pkgPath)},
		} {
			target, err := os.Readlink(l.path)
			if err != nil {
				t.Fatalf("the %s's entry: %v", l.role, err)
			}
			out = append(out, l.role+" -> "+strings.NewReplacer(cache, "CACHE", mirror, "MIRROR").Replace(target))
		}
		return strings.Join(out, "\n")
	}

	theirCache := t.TempDir()
	tf := newTerraform(t, tfBin, loadConfig(t, "plugin_cache_dir = \""+theirCache+"\"\n"+mirrorConfig(FilesystemMirror, mirror)).File, "")
	theirs := tf.dir(t, main)
	tf.init(t, theirs)
	want := links(t, filepath.Join(theirs, ".terraform/providers"), theirCache)

	ourCache := t.TempDir()
	ours := newFixture(t, "plugin_cache_dir = \""+ourCache+"\"\n"+mirrorConfig(FilesystemMirror, mirror), nil)
	if _, _, err := ours.install(require("hashicorp/time", "0.14.2")); err != nil {
		t.Fatal(err)
	}
	got := links(t, filepath.Join(ours.dir, ProvidersDir), ourCache)
	if got != want {
		t.Errorf("Tether left the links\n%s\nterraform left\n%s", got, want)
	}
}

// TestTerraformPluginCacheMayBreakLock sets
// plugin_cache_may_break_dependency_lock_file: a folder with no lock
// file takes the package the plugin cache has, and locks only its hash
// (not the registry's signed "zh:" hashes a full install records), as
// terraform does, saying so in the same words. A lock the cached package
// does not match is still refused.
func TestTerraformPluginCacheMayBreakLock(t *testing.T) {
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the interop test needs terraform 1.11")
	}
	tm := providertest.Time(t)
	srv := providertest.NewServer(t, tm)
	addr := srv.Address("hashicorp", "time")
	main := "terraform {\n  required_providers {\n    time = {\n      source  = \"" + addr.String() + "\"\n      version = \"0.14.2\"\n    }\n  }\n}\n"
	reqs := []config.ProviderRequirement{{Source: addr, Constraints: []string{"0.14.2"}}}
	cache := t.TempDir()
	cfg := loadConfig(t, "plugin_cache_dir = \""+cache+"\"\nplugin_cache_may_break_dependency_lock_file = true\nprovider_installation {\n  direct {}\n}\n")
	if !cfg.PluginCacheMayBreakLock {
		t.Fatal("plugin_cache_may_break_dependency_lock_file = true not read")
	}

	// The first folder fills the cache from the registry, locking the
	// registry's hashes too.
	fill := newFixture(t, "", srv.Client)
	fill.cfg = cfg
	if _, _, err := fill.install(reqs); err != nil {
		t.Fatal(err)
	}
	if n := len(fill.locks()[addr].Hashes); n < 2 {
		t.Fatalf("the install from the registry locked %d hashes, want its h1 and the signed zh", n)
	}

	tf := newTerraform(t, tfBin, cfg.File, srv.CAFile)
	theirs := tf.dir(t, main)
	out := tf.init(t, theirs)
	ours := newFixture(t, "", srv.Client)
	ours.cfg = cfg
	if _, _, err := ours.install(reqs); err != nil {
		t.Fatal(err)
	}
	ourLock, theirLock := readFile(t, filepath.Join(ours.dir, LockFileName)), readFile(t, filepath.Join(theirs, LockFileName))
	if ourLock != theirLock {
		t.Errorf("lock files differ; ours:\n%s\nterraform's:\n%s", ourLock, theirLock)
	}
	if got := ours.locks()[addr].Hashes; len(got) != 1 || got[0] != h1(t, tm) {
		t.Errorf("locked %v, want only the cached package's %s", got, h1(t, tm))
	}
	if got, want := sortedLines(ours.lines), progressLines(out); got != want {
		t.Errorf("progress lines differ; ours:\n%s\nterraform's:\n%s", got, want)
	}

	// A locked hash the cached package does not have.
	other := newFixture(t, "", srv.Client)
	other.cfg = cfg
	other.writeLock(strings.Replace(theirLock, h1(t, tm), "h1:"+strings.Repeat("A", 43)+"=", 1))
	if _, _, err := other.install(reqs); err == nil || !strings.Contains(err.Error(), "plugin cache") || !strings.Contains(err.Error(), h1(t, tm)) {
		t.Errorf("a cached package the lock does not allow: %v", err)
	}
}
