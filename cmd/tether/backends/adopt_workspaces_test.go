package backends

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/pgtest"
)

// workspacesConfig gives each workspace objects of its own, named after it.
const workspacesConfig = `terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "f" {
  path    = "out/${terraform.workspace}.txt"
  content = "workspace ${terraform.workspace}\n"
}

resource "tether_value" "v" {
  input = terraform.workspace
}

output "ws" {
  value = tether_value.v.output
}
`

// TestTerraformWorkspacesAdopted: terraform applies in its default
// workspace and in staging, and creates a workspace it never applies
// (empty); one tether init -force-copy takes default and staging over into
// Tether's workspaces of the same names, each planning no changes with its
// own objects, and leaves the empty one, which has nothing to take over.
// Once with Terraform's local backend (terraform.tfstate and
// terraform.tfstate.d/staging/terraform.tfstate), once with its pg
// backend (rows of its states table).
func TestTerraformWorkspacesAdopted(t *testing.T) {
	t.Parallel()
	tools, env := adoptionTools(t)

	for _, pg := range []bool{false, true} {
		name := "local"
		if pg {
			name = "pg"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			env := append([]string{}, env...)
			config := workspacesConfig
			if pg {
				srv, err := e2e.PostgresServer()
				if errors.Is(err, pgtest.ErrNotFound) {
					t.Skip(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				// Both read where from PG_CONN_STR and PG_SCHEMA_NAME.
				env = append(env, "PG_CONN_STR="+srv.ConnString(""), "PG_SCHEMA_NAME="+e2e.FreshSchema("tf_workspaces"))
				config += "\nterraform {\n  backend \"pg\" {}\n}\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(bin string, ws string, want int, args ...string) e2e.CmdResult {
				t.Helper()
				e := env
				if ws != "" {
					e = append(append([]string{}, env...), "TF_WORKSPACE="+ws)
				}
				r := e2e.Side{Name: filepath.Base(bin), Bin: bin, Dir: dir, Env: e}.Run(args...)
				if want >= 0 && (r.Err != nil || r.Code != want) {
					t.Fatalf("want exit %d\n%s", want, r)
				}
				return r
			}
			tf := func(ws string, args ...string) e2e.CmdResult { return run(tools.Terraform, ws, 0, args...) }
			tf("", "init", "-input=false", "-no-color")
			tf("", e2e.TFApply...)
			tf("", "workspace", "new", "-no-color", "staging")
			tf("staging", e2e.TFApply...)
			tf("", "workspace", "new", "-no-color", "empty")
			tf("", "workspace", "select", "-no-color", "default")

			r := run(tools.Tether, "", 0, "init", "-force-copy")
			for _, want := range []string{
				"Tether took over 2 resource instances and 1 outputs;",
				`Tether took over 2 resource instances and 1 outputs into workspace "staging"`,
			} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("init does not say %q\n%s", want, r)
				}
			}
			if strings.Contains(r.Stdout, `"empty"`) {
				t.Errorf("init offers terraform's empty workspace, which records nothing\n%s", r)
			}
			r = run(tools.Tether, "", 0, "workspace", "list")
			if got := strings.Fields(strings.ReplaceAll(r.Stdout, "*", "")); strings.Join(got, ",") != "default,staging" {
				t.Errorf("tether workspaces after the takeover: %v, want default and staging\n%s", got, r)
			}
			for _, ws := range []string{"default", "staging"} {
				r = run(tools.Tether, ws, -1, "plan", "--detailed-exitcode")
				if r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
					t.Errorf("tether plan in workspace %s after the takeover: want no changes\n%s", ws, r)
				}
				r = run(tools.Tether, ws, 0, "output", "--raw", "ws")
				if r.Stdout != ws {
					t.Errorf("output ws in workspace %s is %q: the workspaces' states were mixed up", ws, r.Stdout)
				}
				r = run(tools.Tether, ws, 0, "state", "show", "tether_file.f")
				if !strings.Contains(r.Stdout, "out/"+ws+".txt") {
					t.Errorf("workspace %s records another workspace's file\n%s", ws, r)
				}
				// Terraform no longer finds the state it kept.
				r = run(tools.Terraform, ws, -1, "state", "list", "-no-color")
				if strings.TrimSpace(r.Stdout) != "" {
					t.Errorf("terraform still lists state in workspace %s after tether took it over\n%s", ws, r)
				}
			}
			if !pg {
				for _, p := range []string{"terraform.tfstate.adopted", "terraform.tfstate.d/staging/terraform.tfstate.adopted"} {
					if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
						t.Errorf("terraform's state was not set aside as %s: %v", p, err)
					}
				}
			}
			if r := run(tools.Tether, "", 0, "init"); strings.Contains(r.Stdout, "Terraform state found") {
				t.Errorf("a second tether init offers the adopted state again\n%s", r)
			}
		})
	}
}
