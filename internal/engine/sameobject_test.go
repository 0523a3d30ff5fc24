package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
)

// TestSameObjectDeleteBeforeCreate: a plan that destroys files at old
// addresses and creates the same files (the same paths, so the same ids)
// at new ones, with no moved block: every create waits for the destroy of
// its file, so that every file exists after the apply that reported them
// created. Across resources (a rename) and within one (for_each keys that
// changed). Unordered, as Terraform leaves them, some destroys run last
// and remove the files just written.
func TestSameObjectDeleteBeforeCreate(t *testing.T) {
	out := t.TempDir()
	const n = 8
	config := func(renamed, keyed string) string {
		return fmt.Sprintf(`
locals {
  n = range(%d)
}

resource "tether_file" "%s" {
  for_each = toset([for i in local.n : tostring(i)])
  path     = "%s/renamed-${each.key}.txt"
  content  = "renamed\n"
}

resource "tether_file" "keyed" {
  for_each = { for i in local.n : "%s${i}" => i }
  path     = "%s/keyed-${each.value}.txt"
  content  = "keyed\n"
}
`, n, renamed, out, keyed, out)
	}
	f := newFixture(t, config("old", "a"))
	f.run(false)
	if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte(config("new", "b")), 0o644); err != nil {
		t.Fatal(err)
	}
	f.events = nil
	res := f.run(false)
	if res.Added != 2*n || res.Destroyed != 2*n {
		t.Fatalf("added %d, destroyed %d; want %d of each", res.Added, res.Destroyed, 2*n)
	}
	for i := 0; i < n; i++ {
		for _, name := range []string{fmt.Sprintf("renamed-%d.txt", i), fmt.Sprintf("keyed-%d.txt", i)} {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil {
				t.Errorf("%s was reported created, but: %v", name, err)
			}
		}
		f.before(fmt.Sprintf(`tether_file.old["%d"]`, i), plan.Succeeded, fmt.Sprintf(`tether_file.new["%d"]`, i), plan.Started)
		f.before(fmt.Sprintf(`tether_file.keyed["a%d"]`, i), plan.Succeeded, fmt.Sprintf(`tether_file.keyed["b%d"]`, i), plan.Started)
	}
}

// TestSameObjectOrderThatCannotBeKept: the destroy of the old file must
// wait for the update of what depended on it, which waits for the create
// of the same file at its new address: no order keeps the file, and the
// plan says so instead of losing it.
func TestSameObjectOrderThatCannotBeKept(t *testing.T) {
	out := t.TempDir()
	config := func(name string) string {
		return fmt.Sprintf(`
resource "tether_file" "%s" {
  path    = "%s/f.txt"
  content = "f\n"
}

resource "tether_value" "user" {
  input = tether_file.%s.sha256
}
`, name, out, name)
	}
	f := newFixture(t, config("old"))
	f.run(false)
	if err := os.WriteFile(filepath.Join(f.dir, "main.tf"), []byte(config("new")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{})
	if len(diags) != 1 || diags[0].Summary != "Cannot order the destroy and create of the same object" {
		t.Fatalf("diagnostics %v, want the error that the order cannot be kept", diags)
	}
	if !strings.Contains(diags[0].Detail, `tether_file.new creates the object "`+out+`/f.txt" that the destroy of tether_file.old removes`) {
		t.Errorf("detail does not name the two addresses and the object: %s", diags[0].Detail)
	}
}
