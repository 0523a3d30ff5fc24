package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestRealProvidersDifferential runs testdata/realdiff, which uses the real
// time and local providers beside the built-in one (and the test provider,
// for an ephemeral resource journaling its opens and closes under out/),
// with terraform and
// with tether from the same filesystem mirror: init, apply, a clean second
// plan and destroy must agree in files, outputs and summaries, and the
// lock file each writes must be the other's, accepted as it is.
func TestRealProvidersDifferential(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds real providers and runs terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	tools, env := realProviders(t)
	tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "terraform"), env: env}
	tt := side{name: "tether", bin: tools.tether, dir: filepath.Join(t.TempDir(), "tether"), env: env}
	for _, s := range []side{tf, tt} {
		if err := copyTree(filepath.Join("testdata", "realdiff"), s.dir, ""); err != nil {
			t.Fatal(err)
		}
	}

	initBoth(t, tf, tt, "init")
	tfLock, ttLock := readLock(t, tf), readLock(t, tt)
	if tfOnly := dropLocked(tfLock, "registry.terraform.io/tetherhq/tether"); !bytes.Equal(tfOnly, ttLock) {
		t.Errorf("the lock files differ (apart from terraform's entry for the built-in provider's plugin)\nterraform:\n%s\ntether:\n%s", tfOnly, ttLock)
	}

	// A saved plan's configuration section, with the version constraints
	// of real providers in it.
	tfRes, ttRes := both(tf, tt, planAndShow)
	mustSucceed(t, "plan -out, show -json", tfRes, ttRes)
	compareJSON(t, "configuration", configurationOf(t, tfRes.stdout), configurationOf(t, ttRes.stdout))

	tfRes, ttRes = applyBoth(tf, tt)
	checkApplied(t, "apply", tf, tt, tfRes, ttRes)

	// For a configuration of the time and local providers alone, the two
	// tools write the same lock file, and each takes the other's as it is.
	fresh := func(s side, lock []byte) side {
		s.dir = filepath.Join(t.TempDir(), s.name)
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.dir, "main.tf"), []byte(timeAndLocal), 0o644); err != nil {
			t.Fatal(err)
		}
		if lock != nil {
			if err := os.WriteFile(filepath.Join(s.dir, ".terraform.lock.hcl"), lock, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	tfOwn, ttOwn := fresh(tf, nil), fresh(tt, nil)
	initBoth(t, tfOwn, ttOwn, "init of time and local")
	tfLock, ttLock = readLock(t, tfOwn), readLock(t, ttOwn)
	if !bytes.Equal(tfLock, ttLock) {
		t.Errorf("the lock files differ\nterraform:\n%s\ntether:\n%s", tfLock, ttLock)
	}
	tfSwap, ttSwap := fresh(tf, ttLock), fresh(tt, tfLock)
	initBoth(t, tfSwap, ttSwap, "init with the other's lock file")
	if got := readLock(t, ttSwap); !bytes.Equal(got, tfLock) {
		t.Errorf("tether init rewrote terraform's lock file\nbefore:\n%s\nafter:\n%s", tfLock, got)
	}
	if got := readLock(t, tfSwap); !bytes.Equal(got, ttLock) {
		t.Errorf("terraform init rewrote tether's lock file\nbefore:\n%s\nafter:\n%s", ttLock, got)
	}

	destroyBoth(t, tf, tt)
}

const timeAndLocal = `
terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = ">= 0.14, < 0.15"
    }
    local = {
      source = "hashicorp/local"
    }
  }
}

resource "time_static" "t" {
  rfc3339 = "2024-01-02T03:04:05Z"
}

resource "local_file" "f" {
  filename = "out/t.txt"
  content  = time_static.t.rfc3339
}
`

// realProviders builds the time and local providers and the built-in
// one's plugin into a filesystem mirror both tools install from, and
// returns the built tools with the environment that uses the mirror.
func realProviders(t *testing.T) (diffTools, []string) {
	t.Helper()
	timeP, localP := providertest.Time(t), providertest.Local(t)
	tools := buildDiffTools(t)
	// Terraform installs the built-in provider's plugin build from the
	// mirror too; tether runs its own in process and never locks it.
	tetherP := providertest.Provider{
		Source:     tfaddr.MustParseProviderSource("tetherhq/tether"),
		Version:    "0.0.1",
		Executable: filepath.Join(filepath.Dir(tools.tether), "plugins", "terraform-provider-tether"),
	}
	// The test provider has what those two lack: an ephemeral resource
	// and a write-only attribute.
	testingP, err := providertest.BuildTestProvider(1)
	if err != nil {
		t.Fatal(err)
	}
	mirror := providertest.UnpackedMirror(t, t.TempDir(), timeP, localP, tetherP, testingP)
	rc := filepath.Join(t.TempDir(), "terraformrc")
	text := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return tools, append(diffEnv(tools), "TF_CLI_CONFIG_FILE="+rc)
}

// dropLocked removes one provider's block from a lock file's text.
func dropLocked(lock []byte, source string) []byte {
	start := bytes.Index(lock, []byte("provider \""+source+"\" {"))
	if start < 0 {
		return lock
	}
	end := bytes.Index(lock[start:], []byte("\n}\n"))
	if end < 0 {
		return lock
	}
	end += start + len("\n}\n")
	// The blank line between blocks goes with the block.
	if end < len(lock) && lock[end] == '\n' {
		end++
	} else if start > 0 && lock[start-1] == '\n' && start > 1 && lock[start-2] == '\n' {
		start--
	}
	return append(append([]byte{}, lock[:start]...), lock[end:]...)
}

func readLock(t *testing.T, s side) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatalf("%s wrote no lock file: %v", s.name, err)
	}
	return b
}

// initBoth runs init with terraform and with tether, each in its folder;
// both must succeed.
func initBoth(t *testing.T, tf, tt side, label string) {
	t.Helper()
	tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
		if s.name == "terraform" {
			return s.run("init", "-input=false", "-no-color")
		}
		return s.run("init")
	})
	mustSucceed(t, label, tfRes, ttRes)
}

// planAndShow saves a plan and shows it as JSON (show -json).
func planAndShow(s side) cmdResult {
	plan := []string{"plan", "-out", "p.tfplan"}
	if s.name == "terraform" {
		plan = []string{"plan", "-input=false", "-no-color", "-out", "p.tfplan"}
	}
	if r := s.run(plan...); r.code != 0 || r.err != nil {
		return r
	}
	return s.run("show", "-json", "p.tfplan")
}
