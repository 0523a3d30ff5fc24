package hclconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// TestProviderReferenceDiagnostics checks Load's diagnostics for provider
// configurations that are missing, not passed, or not expected, each at
// the place a user would fix.
func TestProviderReferenceDiagnostics(t *testing.T) {
	mod := `
variable "n" {
  default = 1
}

resource "tether_value" "v" {
  provider = tether.extra
  input    = "x"
}
`
	aliased := `
terraform {
  required_providers {
    tether = {
      source                = "tetherhq/tether"
      configuration_aliases = [tether.extra]
    }
  }
}

resource "tether_value" "v" {
  provider = tether.extra
  input    = "x"
}
`
	for _, tc := range []struct {
		name    string
		files   map[string]string
		summary string
		at      string // file:line:column of the diagnostic's subject
	}{
		{
			name: "alias not declared",
			files: map[string]string{"main.tf": `
resource "tether_value" "v" {
  provider = tether.nope
  input    = "x"
}
`},
			summary: "Provider configuration not present",
			at:      "main.tf:3:14",
		},
		{
			name: "quoted provider reference",
			files: map[string]string{"main.tf": `
resource "tether_value" "v" {
  provider = "tether"
  input    = "x"
}
`},
			summary: "Invalid provider reference",
			at:      "main.tf:3:14",
		},
		{
			name: "alias used in a module, not passed",
			files: map[string]string{"main.tf": `
module "m" {
  source = "./mod"
}
`, "mod/main.tf": mod},
			summary: "Provider configuration not passed",
			at:      "mod/main.tf:7:14",
		},
		{
			name: "configuration alias not passed",
			files: map[string]string{"main.tf": `
module "m" {
  source = "./mod"
}
`, "mod/main.tf": aliased},
			summary: "Provider configuration not passed",
			at:      "main.tf:2:1",
		},
		{
			name: "passed but not expected",
			files: map[string]string{"main.tf": `
provider "tether" {
  alias = "b"
}

module "m" {
  source    = "./mod"
  providers = { tether.extra = tether.b }
}
`, "mod/main.tf": `
resource "tether_value" "v" {
  input = "x"
}
`},
			summary: "Provider configuration not expected",
			at:      "main.tf:8:15",
		},
		{
			name: "repeated configuration without alias",
			files: map[string]string{"main.tf": `
provider "tether" {
  for_each = toset(["a"])
}
`},
			summary: "Provider for_each without alias",
			at:      "main.tf:3:3",
		},
		{
			name: "repeated configuration named without a key",
			files: map[string]string{"main.tf": `
provider "tether" {
  alias    = "each"
  for_each = toset(["a"])
}

resource "tether_value" "v" {
  provider = tether.each
  input    = "x"
}
`},
			summary: "Provider instance key missing",
			at:      "main.tf:8:14",
		},
		{
			name: "key on a configuration that is not repeated",
			files: map[string]string{"main.tf": `
provider "tether" {
  alias = "b"
}

resource "tether_value" "v" {
  provider = tether.b["x"]
  input    = "x"
}
`},
			summary: "Provider configuration not repeated",
			at:      "main.tf:7:22",
		},
		{
			name: "reserved variable name",
			files: map[string]string{"main.tf": `
variable "version" {}
`},
			summary: "Invalid variable name",
			at:      "main.tf:2:10",
		},
		{
			name: "invalid alias",
			files: map[string]string{"main.tf": `
provider "tether" {
  alias = "2b"
}
`},
			summary: "Invalid provider alias",
			at:      "main.tf:3:11",
		},
		{
			name: "provider that was not started",
			files: map[string]string{"main.tf": `
resource "tether_value" "v" {
  input = "x"
}

resource "time_static" "t" {}
`},
			summary: "Provider not available",
			at:      "main.tf:6:10",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, diags := hclconfig.Load(dir, builtinOptions(t))
			for _, d := range diags {
				if d.Summary != tc.summary {
					continue
				}
				if d.Subject == nil {
					t.Fatalf("%q has no subject", d.Summary)
				}
				got := fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
				if got != tc.at {
					t.Errorf("%q at %s, want %s (%s)", d.Summary, got, tc.at, d.Detail)
				}
				return
			}
			t.Errorf("no %q diagnostic; got %v", tc.summary, diags)
		})
	}
}

func builtinOptions(t *testing.T) hclconfig.Options {
	t.Helper()
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}}
}
