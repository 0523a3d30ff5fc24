package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/providertest"
)

// RealProviders builds the time and local providers and the built-in
// one's plugin into a filesystem mirror both tools install from, and
// returns the built tools with the environment that uses the mirror.
func RealProviders(t *testing.T) (DiffTools, []string) {
	t.Helper()
	timeP, localP := providertest.Time(t), providertest.Local(t)
	tools := BuildDiffTools(t)
	// Terraform installs the built-in provider's plugin build from the
	// mirror too; tether runs its own in process and never locks it.
	tetherP := providertest.Provider{
		Source:     tfaddr.MustParseProviderSource("tetherhq/tether"),
		Version:    "0.0.1",
		Executable: filepath.Join(filepath.Dir(tools.Tether), "plugins", "terraform-provider-tether"),
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
	return tools, append(DiffEnv(tools), "TF_CLI_CONFIG_FILE="+rc)
}

// DropLocked removes one provider's block from a lock file's text.
func DropLocked(lock []byte, source string) []byte {
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

func ReadLock(t *testing.T, s Side) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatalf("%s wrote no lock file: %v", s.Name, err)
	}
	return b
}

// InitBoth runs init with terraform and with tether, each in its folder;
// both must succeed.
func InitBoth(t *testing.T, tf, tt Side, label string) {
	t.Helper()
	tfRes, ttRes := Both(tf, tt, func(s Side) CmdResult {
		if s.Name == "terraform" {
			return s.Run("init", "-input=false", "-no-color")
		}
		return s.Run("init")
	})
	MustSucceed(t, label, tfRes, ttRes)
}

// PlanAndShow saves a plan and shows it as JSON (show -json).
func PlanAndShow(s Side) CmdResult {
	plan := []string{"plan", "-out", "p.tfplan"}
	if s.Name == "terraform" {
		plan = []string{"plan", "-input=false", "-no-color", "-out", "p.tfplan"}
	}
	if r := s.Run(plan...); r.Code != 0 || r.Err != nil {
		return r
	}
	return s.Run("show", "-json", "p.tfplan")
}
