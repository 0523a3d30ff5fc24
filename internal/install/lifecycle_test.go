package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestPluginCache installs through a plugin cache: the first folder fills
// it and links to it, the second links to it without asking any source.
// As in Terraform, a package from an unpacked filesystem mirror is not
// copied into the cache: the cache's entry is a link to the mirror's
// folder (a packed mirror's zip is unpacked there, TestTerraformSharedCache).
func TestPluginCache(t *testing.T) {
	tm := providertest.Time(t)
	mirror := providertest.UnpackedMirror(t, t.TempDir(), tm)
	source := filepath.Join(mirror, "registry.terraform.io/hashicorp/time/0.14.2", hostPlatform)
	cache := t.TempDir()
	reqs := require("hashicorp/time", "0.14.2")

	a := newFixture(t, "plugin_cache_dir = \""+cache+"\"\n"+mirrorConfig(FilesystemMirror, mirror), nil)
	pkgs, _, err := a.install(reqs)
	if err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(cache, "registry.terraform.io/hashicorp/time/0.14.2", hostPlatform)
	if target, err := os.Readlink(pkgs[tm.Source].Dir); err != nil || target != cached {
		t.Errorf("package folder links to %q (%v), want %q", target, err, cached)
	}
	if target, err := os.Readlink(cached); err != nil || target != source {
		t.Errorf("the cache's entry links to %q (%v), want the mirror's %s", target, err, source)
	}
	if _, err := os.Stat(filepath.Join(cached, tm.BinaryName())); err != nil {
		t.Errorf("cache not filled: %v", err)
	}

	// The second folder has the first one's lock, and a mirror with
	// nothing in it: only the cache can serve it.
	b := newFixture(t, "plugin_cache_dir = \""+cache+"\"\n"+mirrorConfig(FilesystemMirror, t.TempDir()), nil)
	lock, _ := os.ReadFile(filepath.Join(a.dir, LockFileName))
	b.writeLock(string(lock))
	pkgs, _, err = b.install(reqs)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, b.lines,
		"- Reusing previous version of hashicorp/time from the dependency lock file",
		"- Using hashicorp/time v0.14.2 from the shared cache directory")
	if target, _ := os.Readlink(pkgs[tm.Source].Dir); target != cached {
		t.Errorf("second folder links to %q", target)
	}
	if _, _, err := b.ensure(reqs); err != nil {
		t.Errorf("Ensure through the cache link: %v", err)
	}
}

// TestDevOverrides uses the override folder's binary with a warning, and
// locks nothing for it.
func TestDevOverrides(t *testing.T) {
	tm := providertest.Time(t)
	local := providertest.Local(t)
	dev := t.TempDir()
	if err := os.WriteFile(filepath.Join(dev, "terraform-provider-time"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mirror := providertest.UnpackedMirror(t, t.TempDir(), local)
	f := newFixture(t, "provider_installation {\n  dev_overrides {\n    \"hashicorp/time\" = \""+dev+"\"\n  }\n  filesystem_mirror {\n    path = \""+mirror+"\"\n  }\n}\n", nil)
	reqs := require("hashicorp/time", "0.14.2", "hashicorp/local", "")
	for _, run := range []struct {
		name string
		do   func([]config.ProviderRequirement) (map[tfaddr.Provider]Package, []string, error)
	}{{"Install", f.install}, {"Ensure", f.ensure}} {
		t.Run(run.name, func(t *testing.T) {
			pkgs, warnings, err := run.do(reqs)
			if err != nil {
				t.Fatal(err)
			}
			p := pkgs[tm.Source]
			if !p.Dev || p.Executable != filepath.Join(dev, "terraform-provider-time") || p.Version != "" {
				t.Errorf("override package %+v", p)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "hashicorp/time in "+dev) {
				t.Errorf("warnings %q", warnings)
			}
			locks := f.locks()
			if _, ok := locks[tm.Source]; ok {
				t.Error("the override is locked")
			}
			if e := locks[local.Source]; e == nil || e.Version != "1.4.1" {
				t.Errorf("hashicorp/local lock %+v", e)
			}
		})
	}
	// An override folder without the binary is an error naming it.
	os.Remove(filepath.Join(dev, "terraform-provider-time"))
	_, _, err := f.install(reqs)
	wantErr(t, err, "dev override of provider hashicorp/time", dev, "terraform-provider-time*")
}

// TestUpgrade keeps the locked version until -upgrade, which selects the
// newest allowed; prereleases are chosen only when named exactly.
func TestUpgrade(t *testing.T) {
	tm := providertest.Time(t)
	srv := providertest.NewServer(t, tm, tm.As("0.15.0"), tm.As("0.16.0-beta1"))
	addr := srv.Address("hashicorp", "time")
	f := newFixture(t, "", srv.Client)
	name := addr.ForDisplay()
	f.writeLock("provider \"" + addr.String() + "\" {\n  version = \"0.14.2\"\n}\n")

	pkgs, _, err := f.install(requireAt(addr, ""))
	if err != nil {
		t.Fatal(err)
	}
	if v := pkgs[addr].Version; v != "0.14.2" {
		t.Errorf("without -upgrade: %s", v)
	}
	pkgs, _, err = f.upgrade(requireAt(addr, ""))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.lines,
		"- Finding latest version of "+name+"...",
		"- Installing "+name+" v0.15.0...",
		"- Installed "+name+" v0.15.0 (self-signed, key ID "+srv.KeyID+")")
	if v := pkgs[addr].Version; v != "0.15.0" || f.locks()[addr].Version != "0.15.0" {
		t.Errorf("with -upgrade: %s, locked %s", v, f.locks()[addr].Version)
	}
	if h := h1Hashes(f.locks()[addr].Hashes); len(h) != 1 || h[0] != h1(t, tm.As("0.15.0")) {
		t.Errorf("hashes of the old version kept: %q", h)
	}
	pkgs, _, err = f.upgrade(requireAt(addr, "0.16.0-beta1"))
	if err != nil {
		t.Fatal(err)
	}
	if v := pkgs[addr].Version; v != "0.16.0-beta1" {
		t.Errorf("prerelease named exactly: %s", v)
	}
	// Back down: a lock that no longer meets the constraints is refused
	// without -upgrade.
	_, _, err = f.install(requireAt(addr, "< 0.16.0"))
	wantErr(t, err, name+" is locked at version 0.16.0-beta1", "tether init -upgrade")
}

// TestEnsure covers what plan and up meet: a new provider is installed and
// locked, a missing package reinstalled, a changed one refused.
func TestEnsure(t *testing.T) {
	tm := providertest.Time(t)
	local := providertest.Local(t)
	mirror := providertest.UnpackedMirror(t, t.TempDir(), tm, local)
	f := newFixture(t, mirrorConfig(FilesystemMirror, mirror), nil)
	if _, _, err := f.install(require("hashicorp/time", "")); err != nil {
		t.Fatal(err)
	}

	// A provider new to the configuration is installed and added.
	both := require("hashicorp/time", "", "hashicorp/local", "")
	pkgs, _, err := f.ensure(both)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.lines,
		"- Finding latest version of hashicorp/local...",
		"- Installing hashicorp/local v1.4.1...",
		"- Installed hashicorp/local v1.4.1 (unauthenticated)")
	if len(pkgs) != 2 || f.locks()[local.Source] == nil {
		t.Fatalf("packages %v, locks %v", pkgs, f.locks())
	}

	// A package removed by hand is installed again from the lock.
	os.RemoveAll(filepath.Join(f.dir, ".tether"))
	if _, _, err := f.ensure(both); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(f.lines, "\n"), "- Installed hashicorp/time v0.14.2") {
		t.Errorf("not reinstalled: %q", f.lines)
	}

	// A binary changed after installation is refused, naming both hashes.
	exe := pkgs[tm.Source].Executable
	if err := os.WriteFile(exe, []byte("tampered"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.ensure(both)
	wantErr(t, err, "provider hashicorp/time 0.14.2", "does not match the dependency lock file", "allows only "+h1(t, tm), "tether init -upgrade", "restore")
	if strings.Contains(err.Error(), "hashicorp/local") {
		t.Errorf("error names a provider that is fine: %v", err)
	}

	// Requirements tightened past the lock are refused too.
	_, _, err = f.ensure(require("hashicorp/time", "> 0.14.2"))
	wantErr(t, err, "hashicorp/time is locked at version 0.14.2", "tether init -upgrade")
}

// TestLocked: before the configuration is read, what the lock file
// selects and is installed with a locked hash, the very packages Ensure
// returns; nothing else, and nothing installed or printed.
func TestLocked(t *testing.T) {
	tm := providertest.Time(t)
	local := providertest.Local(t)
	mirror := providertest.UnpackedMirror(t, t.TempDir(), tm, local)
	f := newFixture(t, mirrorConfig(FilesystemMirror, mirror), nil)
	if got, err := Locked(f.opts(false)); err != nil || len(got) != 0 {
		t.Fatalf("no lock file: got %v, %v", got, err)
	}
	both := require("hashicorp/time", "", "hashicorp/local", "")
	want, _, err := f.install(both)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Locked(f.opts(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[tm.Source] != want[tm.Source] || got[local.Source] != want[local.Source] {
		t.Fatalf("Locked gave %v, Ensure's packages are %v", got, want)
	}

	// A changed binary is left out, and so is a package not installed:
	// neither is installed again, and nothing is printed.
	if err := os.WriteFile(want[tm.Source].Executable, []byte("tampered"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(filepath.Dir(want[local.Source].Dir))); err != nil {
		t.Fatal(err)
	}
	before := f.files()
	got, err = Locked(f.opts(false))
	if err != nil || len(got) != 0 {
		t.Fatalf("tampered and missing: got %v, %v", got, err)
	}
	if after := f.files(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("Locked changed the folder:\nbefore %q\nafter  %q", before, after)
	}
	if len(f.lines) != 0 {
		t.Errorf("Locked printed %q", f.lines)
	}
}

// TestLockFileUpkeep: no providers, no lock file; a provider dropped from
// the configuration leaves the lock at init; concurrent Ensure calls (a
// command starting providers one by one) lose no entry.
func TestLockFileUpkeep(t *testing.T) {
	tm := providertest.Time(t)
	local := providertest.Local(t)
	mirror := providertest.UnpackedMirror(t, t.TempDir(), tm, local)
	f := newFixture(t, mirrorConfig(FilesystemMirror, mirror), nil)

	builtin := []config.ProviderRequirement{{Source: config.BuiltinSource}}
	if pkgs, _, err := f.install(builtin); err != nil || len(pkgs) != 0 {
		t.Fatalf("%v %v", pkgs, err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, LockFileName)); !os.IsNotExist(err) {
		t.Errorf("lock file written for no providers: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".tether")); !os.IsNotExist(err) {
		t.Errorf(".tether made for no providers: %v", err)
	}

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, addr := range []string{"hashicorp/time", "hashicorp/local"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = Ensure(context.Background(), require(addr, ""), Options{Dir: f.dir, Config: f.cfg})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if l := f.locks(); len(l) != 2 {
		t.Errorf("locks after concurrent Ensure: %v", l)
	}

	if _, _, err := f.install(require("hashicorp/local", "")); err != nil {
		t.Fatal(err)
	}
	if l := f.locks(); len(l) != 1 || l[local.Source] == nil {
		t.Errorf("locks after dropping time: %v", l)
	}
}
