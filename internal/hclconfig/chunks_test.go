package hclconfig

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestParseChunkedIsParseConfig holds parseChunked to hclsyntax's parse of
// the whole file: the same syntax tree, ranges included, for every *.tf
// file of the repository and a file with every construct the cuts must
// not fall inside, cut as small as the scan allows; and no tree at all
// where the whole parse reports anything.
func TestParseChunkedIsParseConfig(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 1

	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, `# comment {
resource "x" "a%d" {
  s    = "quote \" brace { ${upper("}")} %%{ if true }x%%{ endif }"
  h    = <<-EOT
    }
resource "x" "inside" {
    ${jsonencode({ a = "{" })}
  EOT
  /* block
comment } */
  list = [
    1, // {
  ]
  nested {
    v = (1 + 2)
  }
}
// line comment
data "x" "d%d" {}
`, i, i)
	}
	check := func(t *testing.T, name string, src []byte) {
		want, wantDiags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		got, ok := parseChunked(src, name)
		switch {
		case ok && len(wantDiags) > 0:
			t.Errorf("%s: parsed in pieces where the whole parse reports %v", name, wantDiags)
		case ok && !reflect.DeepEqual(got, want):
			t.Errorf("%s: the pieces' tree differs from the whole parse's", name)
		}
	}
	src := []byte(b.String())
	check(t, "every.tf", src)
	if cuts := cutPoints(src); len(cuts) < 50 {
		t.Errorf("every.tf cut in %d places, want at least 50", len(cuts))
	}
	if _, ok := parseChunked(src, "every.tf"); !ok {
		t.Error("every.tf was not parsed in pieces")
	}
	check(t, "broken.tf", []byte(strings.Replace(b.String(), "EOT\n  /*", "EOF\n  /*", 1)))
	check(t, "attribute.tf", append([]byte("top = 1\n"), src...))

	eachRepositoryConfig(t, func(path string, src []byte) { check(t, path, src) })
}
