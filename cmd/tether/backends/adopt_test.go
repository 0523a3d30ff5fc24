package backends

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/pgtest"
)

// adoptCanary is the sensitive variable's default in testdata/adopt.
const adoptCanary = "adopt-canary-7f3a9c"

// TestTerraformStateBothWays runs testdata/adopt with the real terraform
// and the real time and local providers beside the built-in one:
//
//   - terraform applies; tether init -force-copy takes the state over and
//     tether plan finds nothing to change, with the secrets sealed;
//   - tether applies; terraform plan on what tether state pull writes
//     finds nothing to change;
//   - state pull after the takeover gives terraform its state back, and
//     terraform plan finds nothing to change;
//   - terraform applies with its pg backend, keeping state in a PostgreSQL
//     schema (the tests' throwaway server); tether init with the same
//     backend block takes the row of Terraform's states table over, moves
//     it out of Terraform's way, and tether plan finds nothing to change.
func TestTerraformStateBothWays(t *testing.T) {
	t.Parallel()
	tools, env := adoptionTools(t)
	folder := func() string {
		dir := filepath.Join(t.TempDir(), "adopt")
		if err := e2e.CopyTree(filepath.Join("testdata", "adopt"), dir, ""); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	must := func(r e2e.CmdResult, want int) e2e.CmdResult {
		t.Helper()
		if r.Err != nil || r.Code != want {
			t.Fatalf("want exit %d\n%s", want, r)
		}
		return r
	}
	tf := func(dir string, args ...string) e2e.CmdResult {
		return e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: dir, Env: env}.Run(args...)
	}
	tt := func(dir string, args ...string) e2e.CmdResult {
		return e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: env}.Run(args...)
	}

	t.Run("terraform then tether", func(t *testing.T) {
		dir := folder()
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		must(tf(dir, e2e.TFApply...), 0)
		r := tt(dir, "init")
		if r.Code != 1 || !strings.Contains(r.Stderr, "-force-copy") {
			t.Errorf("tether init with terraform state and no terminal: want a refusal naming -force-copy\n%s", r)
		}
		r = must(tt(dir, "init", "-force-copy"), 0)
		if !strings.Contains(r.Stdout, "Tether took over 11 resource instances, 1 data source results and 3 outputs") {
			t.Errorf("init does not say what it took over\n%s", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate.adopted")); err != nil {
			t.Errorf("terraform.tfstate was not renamed: %v", err)
		}
		r = tt(dir, "plan", "--detailed-exitcode")
		if r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
			t.Errorf("tether plan after taking over terraform's state: want no changes\n%s", r)
		}
		noCanary(t, filepath.Join(dir, ".tether"))
		r = must(tt(dir, "output", "password"), 0)
		if !strings.Contains(r.Stdout, adoptCanary) {
			t.Errorf("the adopted sensitive output does not open\n%s", r)
		}

		// And back: terraform plans on what state pull writes.
		r = must(tt(dir, "state", "pull"), 0)
		if !strings.Contains(r.Stdout, adoptCanary) {
			t.Errorf("state pull does not write the sensitive values in clear text, as Terraform's state has them\n%s", r)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), []byte(r.Stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		// Tether's lock file has no entry for its own built-in provider,
		// which terraform runs as a plugin: terraform init adds it back.
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		r = tf(dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		if r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
			t.Errorf("terraform plan on the state tether pulled back: want no changes\n%s", r)
		}
	})

	t.Run("terraform pg backend then tether", func(t *testing.T) {
		srv, err := e2e.PostgresServer()
		if errors.Is(err, pgtest.ErrNotFound) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		dir := folder()
		backendTF := fmt.Sprintf("terraform {\n  backend \"pg\" {\n    schema_name = %q\n  }\n}\n", e2e.FreshSchema("tf_adopted"))
		if err := os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(backendTF), 0o644); err != nil {
			t.Fatal(err)
		}
		// Both read the connection string from PG_CONN_STR.
		pgEnv := append(append([]string{}, env...), "PG_CONN_STR="+srv.ConnString(""))
		tf := func(args ...string) e2e.CmdResult {
			return e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: dir, Env: pgEnv}.Run(args...)
		}
		tt := func(args ...string) e2e.CmdResult {
			return e2e.Side{Name: "tether", Bin: tools.Tether, Dir: dir, Env: pgEnv}.Run(args...)
		}
		must(tf("init", "-input=false", "-no-color"), 0)
		must(tf(e2e.TFApply...), 0)
		if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
			t.Fatal("terraform wrote terraform.tfstate: the pg backend was not used")
		}
		takeOver(t, tt, "Terraform's state of workspace \"default\"", "tether_terraform_adopted")
		noCanary(t, filepath.Join(dir, ".tether"))
		// Terraform no longer finds the state it kept, and a second init
		// offers nothing.
		if r := tf("state", "list", "-no-color"); r.Code != 1 || !strings.Contains(r.Stderr, "No state file was found") {
			t.Errorf("terraform state list after tether took its state over: want no state found\n%s", r)
		}
		if r := must(tt("init"), 0); strings.Contains(r.Stdout, "Terraform state found") {
			t.Errorf("a second tether init offers the adopted state again\n%s", r)
		}
	})

	t.Run("tether then terraform", func(t *testing.T) {
		dir := folder()
		must(tt(dir, "init"), 0)
		must(tt(dir, e2e.TTApply...), 0)
		r := must(tt(dir, "state", "pull"), 0)
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), []byte(r.Stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		r = tf(dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		if r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
			t.Errorf("terraform plan on tether's pulled state: want no changes\n%s", r)
		}
	})
}

// takeOver checks that tether init refuses to take the state at where
// over without a terminal, that init -force-copy takes it over saying it
// went to aside, and that tether plan then finds nothing to change, with
// the sensitive output still opening.
func takeOver(t *testing.T, tt func(args ...string) e2e.CmdResult, where, aside string) {
	t.Helper()
	r := tt("init")
	if r.Code != 1 || !strings.Contains(r.Stderr, where) || !strings.Contains(r.Stderr, "-force-copy") {
		t.Errorf("tether init with terraform's state and no terminal: want a refusal naming %s and -force-copy\n%s", where, r)
	}
	r = tt("init", "-force-copy")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Tether took over 11 resource instances, 1 data source results and 3 outputs") || !strings.Contains(r.Stdout, aside) {
		t.Fatalf("init -force-copy does not take the state over saying what it took and where Terraform's went (%s)\n%s", aside, r)
	}
	r = tt("plan", "--detailed-exitcode")
	if r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
		t.Errorf("tether plan after taking over terraform's state: want no changes\n%s", r)
	}
	r = tt("output", "password")
	if r.Code != 0 || !strings.Contains(r.Stdout, adoptCanary) {
		t.Errorf("the adopted sensitive output does not open\n%s", r)
	}
}

// adoptionTools skips a test of taking over Terraform state where it
// cannot run, and otherwise gives it terraform, tether and the real
// providers, with a key folder of its own.
func adoptionTools(t *testing.T) (e2e.DiffTools, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds real providers and runs terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: taking over Terraform state is checked with the terraform 1.11 binary")
	}
	tools, env := e2e.RealProviders(t)
	return tools, append(env, "XDG_CONFIG_HOME="+t.TempDir())
}

// noCanary fails when a file under dir holds the sensitive variable's
// value in clear text.
func noCanary(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(path, string(filepath.Separator)+"providers"+string(filepath.Separator)) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), adoptCanary) {
			t.Errorf("%s holds the sensitive value in clear text", path)
		}
		return nil
	})
}
