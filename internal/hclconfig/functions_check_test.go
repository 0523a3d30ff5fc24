package hclconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tetherhq/tether/internal/hclconfig"
)

// TestUnknownFunctionsAtAnyDepth checks that Load reports a call to a
// function that does not exist wherever the call is: in an argument, a
// template, a for expression, a nested block or a collection, and that a
// type constraint such as list(string) is no call.
func TestUnknownFunctionsAtAnyDepth(t *testing.T) {
	dir := t.TempDir()
	src := `
locals {
  a = nope1(1)
  b = "x-${nope2("y")}"
  c = [for x in [1] : nope3(x)]
  d = "plain (parenthesised) text"
}

variable "v" {
  type = list(string)
}

output "o" {
  value = { k = [upper(nope4())] }
}

resource "tether_value" "v" {
  input = <<EOT
  ${nope5()}
EOT
  lifecycle {
    precondition {
      condition     = nope6()
      error_message = "x"
    }
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := hclconfig.Load(dir, builtinOptions(t))
	var got []string
	for _, d := range diags {
		if d.Summary == "Call to unknown function" && d.Subject != nil {
			got = append(got, fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column))
		}
	}
	slices.Sort(got)
	want := []string{"14:24", "19:5", "23:23", "3:7", "4:12", "5:23"}
	if !slices.Equal(got, want) {
		t.Errorf("unknown calls reported at %v, want %v\n%v", got, want, diags)
	}
}

// TestUnknownFunctionsFoundOnce loads a configuration with the command's
// Files after Backend has read it (the walks share each file's calls,
// found once): an unknown call, a plain function's or a provider
// function's of a provider the module does not require, is reported once,
// at its place, by the check that owns it.
func TestUnknownFunctionsFoundOnce(t *testing.T) {
	for _, c := range []struct{ name, call, want string }{
		{"plain", `nope(upper("x"))`, `3:7 There is no function named "nope". Did you mean "one"?`},
		{"provider", `provider::other::f(upper("x"))`, `3:7 The function "provider::other::f" belongs to provider "other", which this module does not list in required_providers; provider functions need the provider required by that local name.`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "\nlocals {\n  a = " + c.call + "\n}\n"
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := builtinOptions(t)
			opts.Files = &hclconfig.Files{}
			hclconfig.Backend(dir, opts)
			_, diags := hclconfig.Load(dir, opts)
			var got []string
			for _, d := range diags {
				if d.Summary == "Call to unknown function" && d.Subject != nil {
					got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Detail))
				}
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("unknown calls reported:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
