package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
		if err := copyTree(filepath.Join("testdata", "adopt"), dir, ""); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	must := func(r cmdResult, want int) cmdResult {
		t.Helper()
		if r.err != nil || r.code != want {
			t.Fatalf("want exit %d\n%s", want, r)
		}
		return r
	}
	tf := func(dir string, args ...string) cmdResult {
		return side{name: "terraform", bin: tools.terraform, dir: dir, env: env}.run(args...)
	}
	tt := func(dir string, args ...string) cmdResult {
		return side{name: "tether", bin: tools.tether, dir: dir, env: env}.run(args...)
	}

	t.Run("terraform then tether", func(t *testing.T) {
		dir := folder()
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		must(tf(dir, tfApply...), 0)
		r := tt(dir, "init")
		if r.code != 1 || !strings.Contains(r.stderr, "-force-copy") {
			t.Errorf("tether init with terraform state and no terminal: want a refusal naming -force-copy\n%s", r)
		}
		r = must(tt(dir, "init", "-force-copy"), 0)
		if !strings.Contains(r.stdout, "Tether took over 11 resource instances, 1 data source results and 3 outputs") {
			t.Errorf("init does not say what it took over\n%s", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate.adopted")); err != nil {
			t.Errorf("terraform.tfstate was not renamed: %v", err)
		}
		r = tt(dir, "plan", "--detailed-exitcode")
		if r.code != 0 || !strings.Contains(r.stdout, "No changes.") {
			t.Errorf("tether plan after taking over terraform's state: want no changes\n%s", r)
		}
		noCanary(t, filepath.Join(dir, ".tether"))
		r = must(tt(dir, "output", "password"), 0)
		if !strings.Contains(r.stdout, adoptCanary) {
			t.Errorf("the adopted sensitive output does not open\n%s", r)
		}

		// And back: terraform plans on what state pull writes.
		r = must(tt(dir, "state", "pull"), 0)
		if !strings.Contains(r.stdout, adoptCanary) {
			t.Errorf("state pull does not write the sensitive values in clear text, as Terraform's state has them\n%s", r)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		// Tether's lock file has no entry for its own built-in provider,
		// which terraform runs as a plugin: terraform init adds it back.
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		r = tf(dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		if r.code != 0 || !strings.Contains(r.stdout, "No changes.") {
			t.Errorf("terraform plan on the state tether pulled back: want no changes\n%s", r)
		}
	})

	t.Run("terraform pg backend then tether", func(t *testing.T) {
		srv, err := postgresServer()
		if errors.Is(err, pgtest.ErrNotFound) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		dir := folder()
		backendTF := fmt.Sprintf("terraform {\n  backend \"pg\" {\n    schema_name = %q\n  }\n}\n", freshSchema("tf_adopted"))
		if err := os.WriteFile(filepath.Join(dir, "backend.tf"), []byte(backendTF), 0o644); err != nil {
			t.Fatal(err)
		}
		// Both read the connection string from PG_CONN_STR.
		pgEnv := append(append([]string{}, env...), "PG_CONN_STR="+srv.ConnString(""))
		tf := func(args ...string) cmdResult {
			return side{name: "terraform", bin: tools.terraform, dir: dir, env: pgEnv}.run(args...)
		}
		tt := func(args ...string) cmdResult {
			return side{name: "tether", bin: tools.tether, dir: dir, env: pgEnv}.run(args...)
		}
		must(tf("init", "-input=false", "-no-color"), 0)
		must(tf(tfApply...), 0)
		if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
			t.Fatal("terraform wrote terraform.tfstate: the pg backend was not used")
		}
		takeOver(t, tt, "Terraform's state of workspace \"default\"", "tether_terraform_adopted")
		noCanary(t, filepath.Join(dir, ".tether"))
		// Terraform no longer finds the state it kept, and a second init
		// offers nothing.
		if r := tf("state", "list", "-no-color"); r.code != 1 || !strings.Contains(r.stderr, "No state file was found") {
			t.Errorf("terraform state list after tether took its state over: want no state found\n%s", r)
		}
		if r := must(tt("init"), 0); strings.Contains(r.stdout, "Terraform state found") {
			t.Errorf("a second tether init offers the adopted state again\n%s", r)
		}
	})

	t.Run("tether then terraform", func(t *testing.T) {
		dir := folder()
		must(tt(dir, "init"), 0)
		must(tt(dir, ttApply...), 0)
		r := must(tt(dir, "state", "pull"), 0)
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		must(tf(dir, "init", "-input=false", "-no-color"), 0)
		r = tf(dir, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		if r.code != 0 || !strings.Contains(r.stdout, "No changes.") {
			t.Errorf("terraform plan on tether's pulled state: want no changes\n%s", r)
		}
	})
}

// adoptionTools skips a test of taking over Terraform state where it
// cannot run, and otherwise gives it terraform, tether and the real
// providers, with a key folder of its own.
// takeOver checks that tether init refuses to take the state at where
// over without a terminal, that init -force-copy takes it over saying it
// went to aside, and that tether plan then finds nothing to change, with
// the sensitive output still opening.
func takeOver(t *testing.T, tt func(args ...string) cmdResult, where, aside string) {
	t.Helper()
	r := tt("init")
	if r.code != 1 || !strings.Contains(r.stderr, where) || !strings.Contains(r.stderr, "-force-copy") {
		t.Errorf("tether init with terraform's state and no terminal: want a refusal naming %s and -force-copy\n%s", where, r)
	}
	r = tt("init", "-force-copy")
	if r.code != 0 || !strings.Contains(r.stdout, "Tether took over 11 resource instances, 1 data source results and 3 outputs") || !strings.Contains(r.stdout, aside) {
		t.Fatalf("init -force-copy does not take the state over saying what it took and where Terraform's went (%s)\n%s", aside, r)
	}
	r = tt("plan", "--detailed-exitcode")
	if r.code != 0 || !strings.Contains(r.stdout, "No changes.") {
		t.Errorf("tether plan after taking over terraform's state: want no changes\n%s", r)
	}
	r = tt("output", "password")
	if r.code != 0 || !strings.Contains(r.stdout, adoptCanary) {
		t.Errorf("the adopted sensitive output does not open\n%s", r)
	}
}

func adoptionTools(t *testing.T) (diffTools, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds real providers and runs terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: taking over Terraform state is checked with the terraform 1.11 binary")
	}
	tools, env := realProviders(t)
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
