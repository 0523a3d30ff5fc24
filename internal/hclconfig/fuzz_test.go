package hclconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// fuzzModule is a module every fuzz input can call as "./mod", so that
// module calls reach past "Module not found".
const fuzzModule = `
variable "name" {
  type    = string
  default = "m"
}

variable "items" {
  type    = list(string)
  default = []
}

resource "tether_file" "f" {
  for_each = toset(var.items)
  path     = "out/${var.name}/${each.key}"
  content  = each.value
}

module "inner" {
  source = "./inner"
  value  = var.name
}

output "path" {
  value = [for f in tether_file.f : f.path]
}

output "inner" {
  value = module.inner.value
}
`

const fuzzInnerModule = `
variable "value" {}

resource "tether_value" "v" {
  input = var.value
}

output "value" {
  value = tether_value.v.output
}
`

// fuzzSeeds are realistic configurations covering every construct the
// front-end reads; testdata/fuzz/FuzzLoad holds more in Go's corpus
// format.
var fuzzSeeds = []string{
	// Resources, references, outputs, a data source.
	`
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

provider "tether" {}

resource "tether_file" "a" {
  path            = "out/a.txt"
  content         = "hello\n"
  file_permission = "0640"
}

data "tether_file" "a" {
  path = tether_file.a.path
}

output "sha" {
  value     = data.tether_file.a.sha256
  sensitive = true
}
`,
	// Variables of every type, with validation, and locals with functions.
	`
variable "name" {
  type    = string
  default = "x"
  validation {
    condition     = length(var.name) > 0
    error_message = "The name must not be empty."
  }
}

variable "obj" {
  type = object({ a = number, b = optional(list(string), []) })
  default = { a = 1 }
}

variable "secret" {
  type      = string
  default   = "s"
  sensitive = true
}

locals {
  upper = upper(var.name)
  m     = merge({ a = 1 }, { b = 2 })
  j     = jsonencode({ x = [1, 2, 3], y = var.obj })
  f     = format("%s-%03d", local.upper, var.obj.a)
  l     = lookup(local.m, "c", 3)
  s     = toset(["a", "b", "a"])
  r     = [for i in range(3) : i * 2 if i != 1]
  t     = <<-EOT
    %{for k, v in local.m}${k}=${v}
    %{endfor}
  EOT
}

output "all" {
  value = [local.upper, local.j, local.f, local.l, local.r, local.t, nonsensitive(var.secret)]
}
`,
	// count, count.index, splat and for expressions.
	`
resource "tether_file" "n" {
  count   = 3
  path    = "out/${count.index}.txt"
  content = "${count.index}"
}

resource "tether_value" "v" {
  count = length(tether_file.n)
  input = tether_file.n[count.index].sha256
}

output "paths" {
  value = tether_file.n[*].path
}

output "map" {
  value = { for i, f in tether_file.n : f.path => tether_value.v[i].output }
}
`,
	// for_each over a set and a map, each.key and each.value.
	`
variable "files" {
  type    = map(string)
  default = { a = "1", b = "2" }
}

resource "tether_file" "m" {
  for_each = var.files
  path     = "out/${each.key}"
  content  = each.value
}

resource "tether_file" "s" {
  for_each = toset(["x", "y"])
  path     = "out/s/${each.value}"
  content  = each.key
}

resource "tether_file" "chain" {
  for_each = tether_file.m
  path     = "${each.value.path}.copy"
  content  = each.value.content
}

output "keys" {
  value = keys(tether_file.m)
}
`,
	// dynamic blocks with and without an iterator, mixed with static ones.
	`
variable "pages" {
  default = ["a", "b"]
}

resource "tether_bundle" "b" {
  dir = "out/b"

  file {
    path    = "index"
    content = "i"
  }

  dynamic "file" {
    for_each = var.pages
    content {
      path    = file.value
      content = "${file.key}"
    }
  }

  dynamic "file" {
    for_each = { x = "1" }
    iterator = it
    labels   = []
    content {
      path    = it.key
      content = it.value
    }
  }
}
`,
	// Modules: arguments, count, for_each, depends_on, outputs.
	`
resource "tether_file" "first" {
  path    = "out/first"
  content = "1"
}

module "one" {
  source = "./mod"
  name   = "one"
  items  = ["a"]
}

module "many" {
  source     = "./mod"
  for_each   = toset(["x", "y"])
  name       = each.key
  depends_on = [tether_file.first, module.one]
}

module "counted" {
  source = "./mod"
  count  = 2
  name   = "c${count.index}"
}

output "paths" {
  value = [module.one.path, module.many["x"].inner, module.counted[*].path]
}
`,
	// lifecycle settings.
	`
resource "tether_value" "trigger" {
  input = "v1"
}

resource "tether_random" "r" {
  length = 8
  keepers = { a = "b" }
  lifecycle {
    create_before_destroy = true
    prevent_destroy       = false
    ignore_changes        = [keepers]
    replace_triggered_by  = [tether_value.trigger, tether_value.trigger.output]
  }
}

resource "tether_file" "f" {
  path    = "out/f"
  content = tether_random.r.result
  lifecycle {
    ignore_changes = all
  }
}
`,
	// moved blocks.
	`
moved {
  from = tether_file.old
  to   = tether_file.new
}

moved {
  from = tether_file.c[0]
  to   = tether_file.k["a"]
}

moved {
  from = module.a
  to   = module.b
}

resource "tether_file" "new" {
  path    = "out/new"
  content = "n"
}
`,
	// Conditions and check blocks.
	`
resource "tether_file" "f" {
  path    = "out/f"
  content = "x"
  lifecycle {
    precondition {
      condition     = length("x") == 1
      error_message = "Must be one."
    }
    postcondition {
      condition     = self.sha256 != ""
      error_message = "No digest: ${self.path}."
    }
  }
}

data "tether_file" "f" {
  path = tether_file.f.path
}

check "exists" {
  assert {
    condition     = data.tether_file.f.content == "x"
    error_message = "Wrong content."
  }
}

output "o" {
  value = tether_file.f.id
  precondition {
    condition     = tether_file.f.id != null
    error_message = "No id."
  }
}
`,
	// Unknown collections: for_each, count and dynamic over computed values.
	`
resource "tether_random" "r" {
  length = 4
}

resource "tether_file" "x" {
  for_each = toset([for i in range(4) : substr(tether_random.r.result, i, 1)])
  path     = "out/${each.key}"
  content  = each.value
}

resource "tether_value" "n" {
  input = length(tether_random.r.result)
}

resource "tether_file" "c" {
  count   = tether_value.n.output
  path    = "out/c${count.index}"
  content = ""
}

resource "tether_bundle" "b" {
  dir = "out/b"
  dynamic "file" {
    for_each = tether_file.x
    content {
      path    = file.key
      content = file.value.sha256
    }
  }
}
`,
	// Misuse the front-end must diagnose: count with for_each, each outside
	// for_each, duplicate names, a missing module, dynamic without content.
	`
resource "tether_file" "bad" {
  count    = 1
  for_each = toset(["a"])
  path     = each.key
  content  = count.index
}

resource "tether_file" "bad" {
  path    = "x"
  content = each.value
}

module "missing" {
  source = "./nope"
}

resource "tether_bundle" "b" {
  dir = "d"
  dynamic "file" {
    for_each = [1, 2]
  }
}

output "o" {
  value = tether_file.nope.id
}
`,
	// A JSON-like mix of expressions: conditionals, templates, try, can.
	`
locals {
  a = true ? { x = 1 } : { x = 2 }
  b = try(local.a.y, "none")
  c = can(regex("^x", "xyz"))
  d = "%{if local.c}yes%{else}no%{endif}"
  e = [for k, v in local.a : "${k}:${v}"]
  f = { for s in ["a", "b", "a"] : s => s... }
  g = local.a.x > 0 && !false || null == null
  h = -1 * 2 % 3 / 4
  i = [1, 2, 3][1]
  j = { a = [{ b = "c" }] }.a[0].b
  k = [{ n = 1 }, { n = 2 }][*].n
}

output "o" {
  value = [local.b, local.c, local.d, local.e, local.f, local.g, local.h, local.i, local.j, local.k]
}
`,
	// Syntax errors of several kinds.
	`resource "tether_file" {`,
	`resource "tether_file" "a" { path = "${" }`,
	`locals { a = [for x in : x] }`,
	"resource \"tether_file\" \"a\" {\n  path = <<EOT\nunterminated\n",
}

// FuzzLoad feeds arbitrary text to the front-end as main.tf: loading must
// never panic, whatever the input, and neither may evaluating anything it
// loaded, with every value unknown. Diagnostics are fine.
func FuzzLoad(f *testing.F) {
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		f.Fatal(diags)
	}
	opts := hclconfig.Options{
		Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema},
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	// The modules are written once; each input replaces main.tf. Inputs
	// run one at a time in each process, and Load writes nothing.
	dir := f.TempDir()
	for name, text := range map[string]string{
		"mod/main.tf":       fuzzModule,
		"mod/inner/main.tf": fuzzInnerModule,
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := hclconfig.Load(dir, opts)
		checkDiagnostics(t, diags)
		if cfg == nil || diags.HasErrors() {
			return
		}
		evalAll(t, cfg)
	})
}

// checkDiagnostics requires every diagnostic to say something.
func checkDiagnostics(t *testing.T, diags hcl.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d == nil {
			t.Fatal("a nil diagnostic")
		}
		if d.Summary == "" {
			t.Errorf("a diagnostic without a summary: %+v", d)
		}
	}
}

// unknownScope answers every reference with an unknown value of unknown
// type, as a plan does before anything is known.
var unknownScope = config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal })

// instancesOf returns the instances the engine may evaluate a node as:
// NoInstance when it is not repeated, a count index for count, for_each
// keys with an unknown and a known value for for_each. A module's
// argument is evaluated as any instance of its call.
func instancesOf(n *config.Node) []config.Instance {
	count := config.Instance{Key: cty.NumberIntVal(0), Each: cty.NilVal}
	eachUnknown := config.Instance{Key: cty.StringVal("k"), Each: cty.DynamicVal}
	eachKnown := config.Instance{Key: cty.StringVal("k"), Each: cty.StringVal("v")}
	switch {
	case n.Argument:
		return []config.Instance{config.NoInstance, count, eachUnknown, eachKnown}
	case n.Repeat == nil:
		return []config.Instance{config.NoInstance}
	case n.Repeat.ForEach:
		return []config.Instance{eachUnknown, eachKnown}
	}
	return []config.Instance{count}
}

// evalAll calls every evaluation function the configuration holds, as
// the engine would: preconditions and check assertions without self,
// resource postconditions with an unknown self.
func evalAll(t *testing.T, cfg *config.Config) {
	t.Helper()
	for _, n := range cfg.Nodes {
		if n == nil {
			t.Fatal("a nil node")
		}
		what := fmt.Sprintf("%s %s", n.Kind, n.Addr)
		if n.Repeat != nil {
			if n.Repeat.Eval == nil {
				t.Fatalf("%s: Repeat without Eval", what)
			}
			v, d := n.Repeat.Eval(unknownScope)
			checkDiagnostics(t, d)
			if v == cty.NilVal && !d.HasErrors() {
				t.Errorf("%s: Repeat.Eval returned no value and no error", what)
			}
		}
		postSelf := cty.DynamicVal
		if n.Kind == config.Check {
			postSelf = cty.NilVal
		}
		for _, inst := range instancesOf(n) {
			if n.Eval != nil {
				_, d := n.Eval.Evaluate(unknownScope, inst)
				checkDiagnostics(t, d)
			}
			for _, c := range n.Preconditions {
				if c.Eval != nil {
					_, _, d := c.Eval(unknownScope, inst, cty.NilVal)
					checkDiagnostics(t, d)
				}
			}
			for _, c := range n.Postconditions {
				if c.Eval != nil {
					_, _, d := c.Eval(unknownScope, inst, postSelf)
					checkDiagnostics(t, d)
				}
			}
		}
	}
}
