package hclconfig_test

import (
	"testing"

	"github.com/tetherhq/tether/internal/hclconfig"
)

// TestOverrideDiagnostics checks what an override file may not do, each
// reported where it is written, with Terraform's summaries.
func TestOverrideDiagnostics(t *testing.T) {
	base := `
variable "v" {
  default = "a"
}

locals {
  l = 1
}

resource "tether_value" "r" {
  input = "x"
}

output "o" {
  value = tether_value.r.output
}

provider "tether" {
  alias = "west"
}
`
	for _, tc := range []struct {
		name, override, summary, at string
	}{
		{"resource without a base", `
resource "tether_value" "nope" {
  input = "y"
}`, "Missing resource to override", "override.tf:2:1"},
		{"variable without a base", `
variable "nope" {}`, "Missing base variable declaration to override", "override.tf:2:1"},
		{"local without a base", `
locals {
  nope = 2
}`, "Missing base local value definition to override", "override.tf:3:3"},
		{"output without a base", `
output "nope" {
  value = 1
}`, "Missing base output definition to override", "override.tf:2:1"},
		{"aliased provider without a base", `
provider "tether" {
  alias = "east"
}`, "Missing base provider configuration for override", "override.tf:2:1"},
		{"validation", `
variable "v" {
  validation {
    condition     = true
    error_message = "x"
  }
}`, "Can't override validation blocks", "override.tf:3:3"},
		{"precondition in a lifecycle", `
resource "tether_value" "r" {
  lifecycle {
    precondition {
      condition     = true
      error_message = "x"
    }
  }
}`, "Can't override precondition blocks", "override.tf:4:5"},
		{"depends_on", `
resource "tether_value" "r" {
  depends_on = []
}`, "Unsupported override", "override.tf:3:3"},
		{"check block", `
check "c" {
  assert {
    condition     = true
    error_message = "x"
  }
}`, "Can't override check blocks", "override.tf:2:1"},
		{"moved block", `
moved {
  from = tether_value.a
  to   = tether_value.r
}`, "Cannot override 'moved' blocks", "override.tf:2:1"},
		{"unknown argument", `
resource "tether_value" "r" {
  nope = 1
}`, "Unsupported argument", "override.tf:3:3"},
		{"the base still needs what it needs", `
output "o" {
  description = "no value needed in the override"
}
resource "tether_value" "r" {
  input = "overridden"
}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.tf": base, "override.tf": tc.override})
			_, diags := hclconfig.Load(dir, builtinOptions(t))
			if tc.summary == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors: %v", diags)
				}
				return
			}
			for _, d := range diags {
				if d.Summary != tc.summary {
					continue
				}
				if d.Subject == nil || rangeAt(*d.Subject) != tc.at {
					t.Fatalf("%q at %v, want %s", d.Summary, d.Subject, tc.at)
				}
				return
			}
			t.Fatalf("no %q diagnostic; got %v", tc.summary, diags)
		})
	}
}
