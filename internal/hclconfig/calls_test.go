package hclconfig

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestEachCallFindsWhatVisitAllFinds holds eachCall to hclsyntax's own
// walk: the same calls, in a configuration with every kind of expression
// and in every *.tf file of the repository.
func TestEachCallFindsWhatVisitAllFinds(t *testing.T) {
	every := `
locals {
  a = upper("x")
  b = "pre-${lower("Y")}-%{ if length([1]) > 0 }yes%{ else }${title("no")}%{ endif }"
  c = [for i, v in tolist(["a"]) : format("%s", v) if contains(["a"], v)]
  d = { for k, v in tomap({ a = 1 }) : upper(k) => abs(v) }
  e = (max(1, 2)) + -min(3, 4) * length("x")
  f = true ? coalesce(null, "a") : trimspace(" b ")
  g = tolist(["x"])[length("a") - 1]
  h = split(",", "a,b")[*]
  i = [{ x = 1 }][*].x
  j = { (upper("k")) = 1, plain = 2 }
  k = !contains([], 1)
  l = <<-EOT
    ${join(",", ["a"])}
    %{ for s in toset(["z"]) }${s}${chomp("\n")}%{ endfor }
  EOT
  m = upper("a")[0]
  n = jsonencode({ Statement = [{ Resource = ["${lower("ARN")}/*"] }] })
}

resource "tether_value" "v" {
  input = sha256(uuid())
  dynamic "block" {
    for_each = range(2)
    content {
      x = tostring(block.value)
    }
  }
}
`
	check := func(t *testing.T, name string, src []byte) {
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			return // a file that is meant not to parse
		}
		body := f.Body.(*hclsyntax.Body)
		var got, want []string
		eachCall(body, func(c *hclsyntax.FunctionCallExpr) { got = append(got, c.NameRange.String()) })
		hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
			if c, ok := n.(*hclsyntax.FunctionCallExpr); ok {
				want = append(want, c.NameRange.String())
			}
			return nil
		})
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: eachCall found %v\nVisitAll found %v", name, got, want)
		}
	}
	check(t, "every.tf", []byte(every))
	if f, _ := hclsyntax.ParseConfig([]byte(every), "every.tf", hcl.InitialPos); f != nil {
		n := 0
		eachCall(f.Body.(*hclsyntax.Body), func(*hclsyntax.FunctionCallExpr) { n++ })
		if n < 25 {
			t.Errorf("only %d calls found in every.tf", n)
		}
	}

	eachRepositoryConfig(t, func(path string, src []byte) { check(t, path, src) })
}

// eachRepositoryConfig calls f with every *.tf file of the repository.
func eachRepositoryConfig(t *testing.T, f func(path string, src []byte)) {
	t.Helper()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".tf") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		f(path, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("only %d *.tf files found under %s", files, root)
	}
}
