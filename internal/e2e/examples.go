package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

var planCountRE = regexp.MustCompile(`Plan: (\d+) to add, (\d+) to change, (\d+) to destroy`)

func PlanCount(stdout string) string {
	if m := planCountRE.FindString(stdout); m != "" {
		return m
	}
	return ""
}

func SynthTools(t *testing.T) DiffTools {
	t.Helper()
	if testing.Short() {
		t.Skip("builds tether, its provider plugin and examples, and runs terraform: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the synth tests run what tether synth writes with the terraform 1.11 binary")
	}
	return BuildDiffTools(t)
}

// SynthInto runs tether synth on a fresh copy of an example, writing to
// out, and terraform get there, which installs the modules synth wrote
// (init would look the dev-overridden provider up in the registry).
func SynthInto(t *testing.T, tools DiffTools, example, out string) {
	t.Helper()
	s := Side{Name: "tether", Bin: tools.Tether, Dir: CopyExample(t, example), Env: EnvForExample(t, tools, false)}
	if r := s.Run("synth", "--out", out); r.Code != 0 || r.Err != nil {
		t.Fatalf("tether synth failed: %v\n%s", r.Err, r)
	}
	tf := Side{Name: "terraform", Bin: tools.Terraform, Dir: out, Env: EnvForExample(t, tools, true)}
	if r := tf.Run("get", "-no-color"); r.Code != 0 {
		t.Fatalf("terraform get of the synthesised JSON failed:\n%s", r)
	}
}

// CopyExample copies examples/NAME to a temporary folder, without what a
// run there left behind; a Go program gets a go.mod that builds it with
// this repository's SDK, offline.
func CopyExample(t *testing.T, name string) string {
	t.Helper()
	return CopyExampleTo(t, name, filepath.Join(t.TempDir(), name))
}

// CopyExampleTo is CopyExample into dir.
func CopyExampleTo(t *testing.T, name, dir string) string {
	t.Helper()
	// The tests that call it run in cmd/tether/SUBJECT.
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(filepath.Join(repo, "examples", name), dir, ""); err != nil {
		t.Fatal(err)
	}
	for _, leftover := range []string{"out", ".tether", "tether.out"} {
		os.RemoveAll(filepath.Join(dir, leftover))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(m) > 0 {
		providertest.GoModule(t, dir, "example.com/"+name, repo)
	}
	return dir
}

// EnvForExample is DiffEnv with the go command kept offline and building
// with the example's own go.mod. Tether runs its built-in provider in
// process, not the plugin build terraform is pointed at: a plugin's
// schema over the protocol lacks what the SDK's closures need.
func EnvForExample(t testing.TB, tools DiffTools, forTerraform bool) []string {
	var env []string
	for _, kv := range DiffEnv(tools) {
		if forTerraform || !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			env = append(env, kv)
		}
	}
	return append(env, providertest.OfflineGoEnv(t)...)
}
