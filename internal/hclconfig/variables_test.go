package hclconfig_test

import (
	"fmt"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/hclconfig"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestVariableValues checks Terraform 1.11's rules for a variable's value:
// a null given to a variable that is not nullable takes its default, and
// validation rules may refer to other variables and to locals.
func TestVariableValues(t *testing.T) {
	decl := `
variable "size" {
  type     = number
  default  = 3
  nullable = false
}

variable "label" {
  type    = string
  default = "x"
}

variable "strict" {
  type     = string
  nullable = false
}

variable "min" {
  type    = number
  default = 2
}

locals {
  max = var.min * 10
}

variable "count_of" {
  type    = number
  default = 5
  validation {
    condition     = var.count_of >= var.min && var.count_of <= local.max
    error_message = "count_of must be between ${var.min} and ${local.max}."
  }
}
`
	for _, tc := range []struct {
		name   string
		tfvars string
		vars   []hclconfig.VarArg
		want   map[string]cty.Value
		err    string // a diagnostic's detail, "" for none
		at     string // file:line:column of that diagnostic
	}{
		{
			name:   "null takes the default of a variable that is not nullable",
			tfvars: "size = null\nlabel = null\nstrict = \"s\"\n",
			want:   map[string]cty.Value{"var.size": cty.NumberIntVal(3), "var.label": cty.NullVal(cty.String)},
		},
		{
			name:   "a null for a required variable that is not nullable",
			tfvars: "strict = null\n",
			err:    `The variable "strict" is not nullable and has no default, so it may not be set to null.`,
			at:     "terraform.tfvars:1:10",
		},
		{
			name:   "validation refers to another variable and a local",
			tfvars: "strict = \"s\"\n",
			vars:   []hclconfig.VarArg{{Name: "count_of", Value: "7"}, {Name: "min", Value: "1"}},
			want:   map[string]cty.Value{"var.count_of": cty.NumberIntVal(7), "local.max": cty.NumberIntVal(10)},
		},
		{
			name:   "validation fails with a message from other values",
			tfvars: "strict = \"s\"\ncount_of = 50\n",
			err:    "count_of must be between 2 and 20.",
			at:     "terraform.tfvars:2:12",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.tf": decl, "terraform.tfvars": tc.tfvars})
			cfg, diags := hclconfig.Load(dir, hclconfig.Options{Vars: tc.vars})
			var vals map[string]cty.Value
			if !diags.HasErrors() {
				var d = diags
				vals, d = evalValues(t, cfg)
				diags = append(diags, d...)
			}
			if tc.err == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors: %v", diags)
				}
				for a, want := range tc.want {
					if got := vals[a]; !got.RawEquals(want) {
						t.Errorf("%s = %#v, want %#v", a, got, want)
					}
				}
				return
			}
			for _, d := range diags {
				if strings.Contains(d.Detail, tc.err) {
					if d.Subject == nil || rangeAt(*d.Subject) != tc.at {
						t.Fatalf("%q reported at %v, want %s", tc.err, d.Subject, tc.at)
					}
					return
				}
			}
			t.Fatalf("want an error saying %q, got %v", tc.err, diags)
		})
	}
}

func rangeAt(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}
