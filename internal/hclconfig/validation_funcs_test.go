package hclconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
)

// evalValues evaluates the variables and locals of the root module in an
// order their references allow, checking each variable's validation rules
// as the engine does, and returns their values by address.
func evalValues(t *testing.T, cfg *config.Config) (map[string]cty.Value, hcl.Diagnostics) {
	t.Helper()
	vals := map[string]cty.Value{}
	scope := config.ScopeFunc(func(a string) cty.Value {
		if v, ok := vals[a]; ok {
			return v
		}
		return cty.DynamicVal
	})
	var diags hcl.Diagnostics
	for round := 0; round < len(cfg.Nodes)+1; round++ {
	nodes:
		for _, n := range cfg.Nodes {
			if _, done := vals[n.Addr]; done || n.Module != "" || (n.Kind != config.Variable && n.Kind != config.Local) {
				continue
			}
			for _, r := range n.Refs {
				if _, ok := vals[r.Addr]; !ok {
					continue nodes
				}
			}
			v, d := n.Eval.Evaluate(scope, config.NoInstance)
			diags = append(diags, d...)
			for _, c := range n.Postconditions {
				ok, msg, d := c.Eval(scope, config.NoInstance, v)
				diags = append(diags, d...)
				if ok.IsKnown() && ok.False() {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable", Detail: msg, Subject: c.Range.Ptr()})
				}
			}
			vals[n.Addr] = v
		}
	}
	return vals, diags
}

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
		_, d := evalValues(t, cfg)
		return append(diags, d...)
	}
	if diags := eval(nil); diags.HasErrors() {
		t.Fatalf("the default passes the validation, got %v", diags)
	}
	diags := eval([]hclconfig.VarArg{{Name: "name", Value: "  "}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "The name must not be blank.") {
		t.Fatalf("a blank name must fail the validation with its message, got %v", diags)
	}
}
