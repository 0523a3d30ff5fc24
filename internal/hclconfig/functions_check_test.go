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
