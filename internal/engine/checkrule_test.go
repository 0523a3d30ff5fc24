package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/engine"
)

// TestConditionFailuresNameTheirRule: the diagnostic of each failed custom
// condition carries the object and the kind of its rule in its Extra, as
// Terraform's check rules do: terraform test's expect_failures matches on
// it, whatever the summary says.
func TestConditionFailuresNameTheirRule(t *testing.T) {
	for _, tc := range []struct {
		name, tf, object string
		kind             diagnostic.CheckKind
	}{
		{"variable validation", `
variable "v" {
  default = "x"
  validation {
    condition     = var.v == "y"
    error_message = "no"
  }
}`, "var.v", diagnostic.Validation},
		{"resource precondition", `
resource "tether_file" "f" {
  count   = 1
  path    = "out.txt"
  content = "x"
  lifecycle {
    precondition {
      condition     = count.index > 0
      error_message = "no"
    }
  }
}`, "tether_file.f[0]", diagnostic.Precondition},
		{"output precondition", `
locals {
  n = 1
}

output "o" {
  value = 1
  precondition {
    condition     = local.n > 2
    error_message = "no"
  }
}`, "output.o", diagnostic.Precondition},
		{"check assertion", `
locals {
  n = 1
}

check "c" {
  assert {
    condition     = local.n > 2
    error_message = "no"
  }
}`, "check.c", diagnostic.Assertion},
		{"module output precondition", `
module "m" {
  source = "./m"
}`, "module.m.output.o", diagnostic.Precondition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.tf)
			if err := os.MkdirAll(filepath.Join(f.dir, "m"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(f.dir, "m", "main.tf"), []byte(moduleOutput), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(f.dir)
			_, diags := f.engine.Plan(context.Background(), f.config(), engine.PlanOptions{})
			var found []string
			for _, d := range diags {
				if object, kind, ok := diagnostic.CheckRuleOf(d); ok {
					found = append(found, object+" "+string(kind))
				}
			}
			if want := tc.object + " " + string(tc.kind); len(found) != 1 || found[0] != want {
				t.Errorf("condition failures name %q, want [%q]; diagnostics: %v", found, want, diags)
			}
		})
	}
}

const moduleOutput = `
locals {
  n = 1
}

output "o" {
  value = 1
  precondition {
    condition     = local.n > 2
    error_message = "no"
  }
}`
