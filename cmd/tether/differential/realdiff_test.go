package differential

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
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
	tools, env := e2e.RealProviders(t)
	tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
	tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
	for _, s := range []e2e.Side{tf, tt} {
		if err := e2e.CopyTree(filepath.Join("testdata", "realdiff"), s.Dir, ""); err != nil {
			t.Fatal(err)
		}
	}

	e2e.InitBoth(t, tf, tt, "init")
	tfLock, ttLock := e2e.ReadLock(t, tf), e2e.ReadLock(t, tt)
	if tfOnly := e2e.DropLocked(tfLock, "registry.terraform.io/tetherhq/tether"); !bytes.Equal(tfOnly, ttLock) {
		t.Errorf("the lock files differ (apart from terraform's entry for the built-in provider's plugin)\nterraform:\n%s\ntether:\n%s", tfOnly, ttLock)
	}

	// A saved plan's configuration section, with the version constraints
	// of real providers in it.
	tfRes, ttRes := e2e.Both(tf, tt, e2e.PlanAndShow)
	e2e.MustSucceed(t, "plan -out, show -json", tfRes, ttRes)
	e2e.CompareJSON(t, "configuration", e2e.ConfigurationOf(t, tfRes.Stdout), e2e.ConfigurationOf(t, ttRes.Stdout))

	tfRes, ttRes = e2e.ApplyBoth(tf, tt)
	checkApplied(t, "apply", tf, tt, tfRes, ttRes)

	// For a configuration of the time and local providers alone, the two
	// tools write the same lock file, and each takes the other's as it is.
	fresh := func(s e2e.Side, lock []byte) e2e.Side {
		s.Dir = filepath.Join(t.TempDir(), s.Name)
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, "main.tf"), []byte(timeAndLocal), 0o644); err != nil {
			t.Fatal(err)
		}
		if lock != nil {
			if err := os.WriteFile(filepath.Join(s.Dir, ".terraform.lock.hcl"), lock, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	tfOwn, ttOwn := fresh(tf, nil), fresh(tt, nil)
	e2e.InitBoth(t, tfOwn, ttOwn, "init of time and local")
	tfLock, ttLock = e2e.ReadLock(t, tfOwn), e2e.ReadLock(t, ttOwn)
	if !bytes.Equal(tfLock, ttLock) {
		t.Errorf("the lock files differ\nterraform:\n%s\ntether:\n%s", tfLock, ttLock)
	}
	tfSwap, ttSwap := fresh(tf, ttLock), fresh(tt, tfLock)
	e2e.InitBoth(t, tfSwap, ttSwap, "init with the other's lock file")
	if got := e2e.ReadLock(t, ttSwap); !bytes.Equal(got, tfLock) {
		t.Errorf("tether init rewrote terraform's lock file\nbefore:\n%s\nafter:\n%s", tfLock, got)
	}
	if got := e2e.ReadLock(t, tfSwap); !bytes.Equal(got, ttLock) {
		t.Errorf("terraform init rewrote tether's lock file\nbefore:\n%s\nafter:\n%s", ttLock, got)
	}

	e2e.DestroyBoth(t, tf, tt)
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
