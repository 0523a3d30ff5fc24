package hclconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
)

// TestValidationConditionCallsFunctions: a variable's validation condition
// may call built-in functions, as in Terraform (found by FuzzLoad's seeds).
func TestValidationConditionCallsFunctions(t *testing.T) {
	dir := t.TempDir()
	src := `
variable "name" {
  type    = string
  default = "x"
  validation {
    condition     = length(trimspace(var.name)) > 0
    error_message = "The name must not be blank."
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	eval := func(vars []hclconfig.VarArg) hcl.Diagnostics {
		cfg, diags := hclconfig.Load(dir, hclconfig.Options{Vars: vars})
		if diags.HasErrors() || cfg == nil {
			return diags
		}
		for _, n := range cfg.Nodes {
			if n.Addr == "var.name" {
				_, d := n.Eval(config.ScopeFunc(nil), config.NoInstance)
				diags = append(diags, d...)
			}
		}
		return diags
	}
	if diags := eval(nil); diags.HasErrors() {
		t.Fatalf("the default passes the validation, got %v", diags)
	}
	diags := eval([]hclconfig.VarArg{{Name: "name", Value: "  "}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "The name must not be blank.") {
		t.Fatalf("a blank name must fail the validation with its message, got %v", diags)
	}
}
