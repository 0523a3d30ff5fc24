package hclconfig_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/hclconfig"
)

// TestReadInterface reads a module's variables and the types of its
// outputs, found by evaluating them with nothing known.
func TestReadInterface(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.tf": `
variable "prefix" {
  type        = string
  description = "Prefix of every file."
}

variable "names" {
  type    = set(string)
  default = ["a"]
}

variable "secret" {
  type      = string
  sensitive = true
  default   = null
  nullable  = true
}

variable "anything" {}

variable "settings" {
  type = object({
    mode = optional(string, "0644")
    tags = map(string)
  })
  nullable = false
  default  = { tags = {} }
}

resource "tether_file" "one" {
  path    = "${var.prefix}.txt"
  content = "x"
}

resource "tether_file" "many" {
  for_each = var.names
  path     = each.key
  content  = "x"
}

module "inner" {
  source = "./inner"
  n      = 2
}

locals {
  sizes = { a = 1, b = 2 }
}

output "path" {
  value       = tether_file.one.path
  description = "Where the file is."
}

output "file" {
  value = tether_file.one
}

output "count" {
  value = length(tether_file.many)
}

output "sorted" {
  value = sort([for f in tether_file.many : f.path])
}

output "many" {
  value = tether_file.many
}

output "pair" {
  value = [tether_file.one.path, var.prefix]
}

output "sizes" {
  value = local.sizes
}

output "inner" {
  value     = module.inner.doubled
  sensitive = true
}

output "echo" {
  value = var.anything
}
`,
		"inner/main.tf": `
variable "n" {
  type = number
}

output "doubled" {
  value = [var.n * 2]
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	iface, diags := hclconfig.ReadInterface(dir, builtinOptions(t))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type variable struct {
		typ                           string
		required, nullable, sensitive bool
		desc                          string
	}
	wantVars := map[string]variable{
		"prefix":   {typ: "string", required: true, nullable: true, desc: "Prefix of every file."},
		"names":    {typ: "set(string)", nullable: true},
		"secret":   {typ: "string", nullable: true, sensitive: true},
		"anything": {typ: "any", required: true, nullable: true},
		"settings": {typ: "object({mode=string,tags=map(string)})"},
	}
	var order []string
	for _, v := range iface.Variables {
		order = append(order, v.Name)
		got := variable{typeexpr.TypeString(v.Type), v.Required(), v.Nullable, v.Sensitive, v.Description}
		if v.Name == "settings" && (!v.Type.AttributeOptional("mode") || v.Type.AttributeOptional("tags")) {
			t.Errorf("variable settings: the optional attributes of %#v are lost", v.Type)
		}
		if got != wantVars[v.Name] {
			t.Errorf("variable %s: got %+v, want %+v", v.Name, got, wantVars[v.Name])
		}
	}
	if len(order) != len(wantVars) || order[0] != "prefix" || order[4] != "settings" {
		t.Errorf("variables in order %v, want declaration order", order)
	}
	file, ok, err := builtinOptions(t).Schemas["registry.terraform.io/tetherhq/tether"].Resources.Get("tether_file")
	if !ok || err != nil {
		t.Fatal("no tether_file", err)
	}
	fileType := file.Block.ImpliedType()
	wantOutputs := map[string]cty.Type{
		"path":   cty.String,
		"file":   fileType,
		"count":  cty.Number,
		"sorted": cty.List(cty.String),
		"many":   cty.DynamicPseudoType,
		"pair":   cty.Tuple([]cty.Type{cty.String, cty.String}),
		"sizes":  cty.Object(map[string]cty.Type{"a": cty.Number, "b": cty.Number}),
		"inner":  cty.Tuple([]cty.Type{cty.Number}),
		"echo":   cty.DynamicPseudoType,
	}
	if len(iface.Outputs) != len(wantOutputs) {
		t.Errorf("%d outputs, want %d", len(iface.Outputs), len(wantOutputs))
	}
	for _, o := range iface.Outputs {
		if want, ok := wantOutputs[o.Name]; !ok || !o.Type.Equals(want) {
			t.Errorf("output %s: type %s, want %s", o.Name, typeexpr.TypeString(o.Type), typeexpr.TypeString(want))
		}
		if o.Sensitive != (o.Name == "inner") {
			t.Errorf("output %s: sensitive %v", o.Name, o.Sensitive)
		}
		if (o.Description != "") != (o.Name == "path") {
			t.Errorf("output %s: description %q", o.Name, o.Description)
		}
	}
}
