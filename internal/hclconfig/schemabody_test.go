package hclconfig_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
)

// groupSchema is a small provider schema in the shape of hashicorp/aws's
// aws_security_group and aws_s3_bucket_lifecycle_configuration: ingress
// and egress are list-of-object ATTRIBUTES that configurations write as
// blocks (the SDK's attributes as blocks), rule is a nested block type
// with nested blocks of its own (transition, and header with a label) and
// an attribute written as blocks (tag).
func groupSchema() *provider.Schema {
	rule := cty.Object(map[string]cty.Type{"from": cty.Number, "to": cty.Number, "cidrs": cty.List(cty.String)})
	tag := cty.Object(map[string]cty.Type{"key": cty.String, "value": cty.String})
	group := &provider.Block{
		Attributes: map[string]*provider.Attribute{
			"id":      {Type: cty.String, Computed: true},
			"name":    {Type: cty.String, Optional: true},
			"ingress": {Type: cty.Set(rule), Optional: true, Computed: true},
			"egress":  {Type: cty.Set(rule), Optional: true, Computed: true},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"rule": {Nesting: provider.NestingList, Block: provider.Block{
				Attributes: map[string]*provider.Attribute{
					"id":  {Type: cty.String, Optional: true},
					"tag": {Type: cty.List(tag), Optional: true},
				},
				BlockTypes: map[string]*provider.NestedBlock{
					"transition": {Nesting: provider.NestingList, Block: provider.Block{
						Attributes: map[string]*provider.Attribute{"days": {Type: cty.Number, Optional: true}},
					}},
					"header": {Nesting: provider.NestingMap, Block: provider.Block{
						Attributes: map[string]*provider.Attribute{"value": {Type: cty.String, Optional: true}},
					}},
				},
			}},
		},
	}
	return &provider.Schema{
		Provider:    &provider.Block{Attributes: map[string]*provider.Attribute{"region": {Type: cty.String, Optional: true}}, BlockTypes: map[string]*provider.NestedBlock{"assume_role": {Nesting: provider.NestingList, Block: provider.Block{Attributes: map[string]*provider.Attribute{"role": {Type: cty.String, Optional: true}}}}}},
		Resources:   provider.NewTypes(map[string]*provider.ResourceSchema{"x_group": {Block: group}}),
		DataSources: provider.NewTypes(map[string]*provider.ResourceSchema{"x_group": {Block: group}}),
	}
}

const groupSource = "registry.terraform.io/example/x"

const groupRequired = `terraform {
  required_providers {
    x = { source = "example/x" }
  }
}
`

// groupScope answers var.ports and var.names; every other reference is
// unknown, as a resource's attributes are before apply.
var groupScope = config.ScopeFunc(func(addr string) cty.Value {
	switch addr {
	case "var.ports":
		return cty.ListVal([]cty.Value{cty.NumberIntVal(80), cty.NumberIntVal(443)})
	case "var.names":
		return cty.MapVal(map[string]cty.Value{"a": cty.StringVal("A"), "b": cty.StringVal("B")})
	}
	return cty.DynamicVal
})

// TestSchemaBodies checks how Load reads resource and provider bodies by
// their schema: dynamic blocks at any depth, attributes written as blocks,
// and both forms of one argument in one body (the error Terraform gives,
// at the same place). Each case is a main.tf and, where it says so, the
// same configuration as main.tf.json, with the same expectations.
func TestSchemaBodies(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string // x_group.g's body
		json string // the same resource in JSON syntax, if any
		// node is the address evaluated, x_group.g unless set.
		node string
		// want are the node's value at paths, written by show.
		want map[string]string
		// refs are references the node must have, for the graph.
		refs []string
		// summary, detail and at (file:line:column of the subject) are
		// the first error's, from Load or else from evaluation.
		summary, detail, at string
	}{
		{
			name: "attribute as blocks",
			body: `
  ingress {
    from  = 22
    to    = 22
    cidrs = [x_group.other.id]
  }
  ingress {
    from = 80
    to   = 80
  }
`,
			json: `{"ingress": [{"from": 22, "to": 22, "cidrs": ["${x_group.other.id}"]}, {"from": 80, "to": 80, "cidrs": null}]}`,
			want: map[string]string{"ingress": "{{cidrs = [?], from = 22, to = 22}, {cidrs = null, from = 80, to = 80}}", "egress": "null"},
			refs: []string{"x_group.other"},
		},
		{
			name: "attribute form, empty",
			body: "\n  ingress = []\n",
			json: `{"ingress": []}`,
			want: map[string]string{"ingress": "{}", "egress": "null"},
		},
		{
			name: "dynamic blocks of an attribute",
			body: `
  dynamic "ingress" {
    for_each = var.ports
    iterator = port
    content {
      from = port.value
      to   = port.value
    }
  }
  egress {
    from = 0
    to   = 0
  }
`,
			json: `{"dynamic": {"ingress": {"for_each": "${var.ports}", "iterator": "port", "content": {"from": "${port.value}", "to": "${port.value}"}}}, "egress": [{"from": 0, "to": 0, "cidrs": null}]}`,
			want: map[string]string{"ingress": "{{cidrs = null, from = 443, to = 443}, {cidrs = null, from = 80, to = 80}}", "egress": "{{cidrs = null, from = 0, to = 0}}"},
			refs: []string{"var.ports"},
		},
		{
			name: "dynamic blocks of an attribute over nothing",
			body: `
  dynamic "ingress" {
    for_each = []
    content {
      from = 1
    }
  }
`,
			json: `{"dynamic": {"ingress": {"for_each": [], "content": {"from": 1}}}}`,
			// As in Terraform: no blocks is no argument.
			want: map[string]string{"ingress": "null"},
		},
		{
			name: "dynamic block nested in a static block",
			body: `
  rule {
    id = "archive"
    dynamic "transition" {
      for_each = var.ports
      content {
        days = transition.value
      }
    }
    dynamic "header" {
      for_each = var.names
      labels   = [header.key]
      content {
        value = header.value
      }
    }
    dynamic "tag" {
      for_each = var.names
      content {
        key   = tag.key
        value = x_group.other.name
      }
    }
  }
`,
			json: `{"rule": [{"id": "archive", "dynamic": {
  "transition": {"for_each": "${var.ports}", "content": {"days": "${transition.value}"}},
  "header": {"for_each": "${var.names}", "labels": ["${header.key}"], "content": {"value": "${header.value}"}},
  "tag": {"for_each": "${var.names}", "content": {"key": "${tag.key}", "value": "${x_group.other.name}"}}
}}]}`,
			want: map[string]string{
				"rule.0.transition": "[{days = 80}, {days = 443}]",
				"rule.0.header":     "{a = {value = A}, b = {value = B}}",
				"rule.0.tag":        "[{key = a, value = ?}, {key = b, value = ?}]",
			},
			refs: []string{"var.ports", "var.names", "x_group.other"},
		},
		{
			name: "dynamic block in a dynamic block in a static block",
			body: `
  rule {
    dynamic "transition" {
      for_each = var.ports
      iterator = outer
      content {
        days = outer.value
      }
    }
  }
  dynamic "rule" {
    for_each = var.names
    content {
      id = rule.key
      dynamic "transition" {
        for_each = var.ports
        content {
          days = transition.value + length(rule.value)
        }
      }
    }
  }
`,
			want: map[string]string{
				"rule.0.transition": "[{days = 80}, {days = 443}]",
				"rule.1.id":         "a",
				"rule.2.transition": "[{days = 81}, {days = 444}]",
			},
		},
		{
			name: "nested dynamic block over an unknown collection",
			body: `
  rule {
    id = "archive"
    dynamic "transition" {
      for_each = x_group.other.id == "" ? [] : [1]
      content {
        days = 30
      }
    }
    dynamic "header" {
      for_each = x_group.other.tags
      labels   = [header.key]
      content {
        value = header.value
      }
    }
  }
`,
			json: `{"rule": [{"id": "archive", "dynamic": {
  "transition": {"for_each": "${x_group.other.id == \"\" ? [] : [1]}", "content": {"days": 30}},
  "header": {"for_each": "${x_group.other.tags}", "labels": ["${header.key}"], "content": {"value": "${header.value}"}}
}}]}`,
			// The blocks are unknown as a whole; the rule is known.
			want: map[string]string{"rule.0.id": "archive", "rule.0.transition": "?", "rule.0.header": "?"},
			refs: []string{"x_group.other"},
		},
		{
			// Beyond Terraform, which plans a block per element: a set
			// whose number of elements is unknown generates nested blocks
			// unknown as a whole, and its blocks' labels, unknown, are no
			// error. A list's elements, unknown or not, are as many blocks.
			name: "nested dynamic block over a set of unknown length",
			body: `
  rule {
    dynamic "transition" {
      for_each = toset([x_group.other.id, "b"])
      content {
        days = 1
      }
    }
    dynamic "header" {
      for_each = toset([x_group.other.id, "b"])
      labels   = [header.value]
      content {
        value = header.value
      }
    }
  }
  rule {
    dynamic "transition" {
      for_each = [x_group.other.id, "b"]
      content {
        days = length(transition.value)
      }
    }
  }
`,
			want: map[string]string{"rule.0.transition": "?", "rule.0.header": "?", "rule.1.transition": "[{days = ?}, {days = 1}]"},
		},
		{
			name: "both forms of an attribute",
			body: `
  ingress = []
  ingress {
    from = 1
  }
`,
			summary: "Unsupported block type",
			detail:  `Blocks of type "ingress" are not expected here. Did you mean "egress"?`,
			at:      "main.tf:8:3",
		},
		{
			name: "both forms of an attribute in a nested block",
			body: `
  rule {
    tag = []
    tag {
      key = "k"
    }
  }
`,
			summary: "Unsupported block type",
			detail:  `Blocks of type "tag" are not expected here. Did you mean to define argument "tag"? If so, use the equals sign to assign it a value.`,
			at:      "main.tf:9:5",
		},
		{
			name: "attribute form and a dynamic block",
			body: `
  dynamic "ingress" {
    for_each = [1]
    content {
      from = 1
    }
  }
  ingress = []
`,
			json:    `{"ingress": [], "dynamic": {"ingress": {"for_each": [1], "content": {"from": 1}}}}`,
			summary: "Unsupported block type",
			detail:  `Blocks of type "ingress" are not expected here.`,
			at:      "main.tf:7:11",
		},
		{
			name: "nested dynamic block over a number",
			body: `
  rule {
    dynamic "transition" {
      for_each = 3
      content {
        days = 1
      }
    }
  }
`,
			summary: "Invalid dynamic for_each value",
			detail:  "Cannot use a number value in for_each. An iterable collection is required.",
			at:      "main.tf:9:18",
		},
		{
			name: "data source",
			node: "data.x_group.d",
			body: "\n  name = \"g\"\n",
			want: map[string]string{"rule.0.transition": "[{days = 80}, {days = 443}]", "ingress": "{{cidrs = null, from = 1, to = null}}"},
			refs: []string{"var.ports"},
		},
		{
			name: "dynamic block in a provider block",
			node: `provider["registry.terraform.io/example/x"]`,
			body: "\n  name = \"g\"\n",
			want: map[string]string{"assume_role": "[{role = a}, {role = b}]"},
			refs: []string{"var.names"},
		},
	} {
		for _, syntax := range []string{"native", "json"} {
			if syntax == "json" && tc.json == "" {
				continue
			}
			t.Run(tc.name+"/"+syntax, func(t *testing.T) {
				dir := t.TempDir()
				files := map[string]string{"versions.tf": groupRequired, "vars.tf": `
variable "ports" {}
variable "names" {}

provider "x" {
  dynamic "assume_role" {
    for_each = var.names
    content {
      role = assume_role.key
    }
  }
}

resource "x_group" "other" {}

data "x_group" "d" {
  rule {
    dynamic "transition" {
      for_each = var.ports
      content {
        days = transition.value
      }
    }
  }
  ingress {
    from = 1
  }
}
`}
				if syntax == "native" {
					files["main.tf"] = "\n\n\n\n\nresource \"x_group\" \"g\" {" + tc.body + "}\n"
				} else {
					files["main.tf.json"] = `{"resource": {"x_group": {"g": ` + tc.json + `}}}`
				}
				for name, text := range files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				cfg, diags := hclconfig.Load(dir, hclconfig.Options{
					Schemas: map[string]*provider.Schema{groupSource: groupSchema()},
					Vars:    []hclconfig.VarArg{{Name: "ports", Value: "[80, 443]"}, {Name: "names", Value: `{a = "A", b = "B"}`}},
				})
				want := tc.node
				if want == "" {
					want = "x_group.g"
				}
				var n *config.Node
				if !diags.HasErrors() {
					for _, c := range cfg.Nodes {
						if c.Addr == want {
							n = c
						}
					}
					if n == nil {
						t.Fatalf("no node %s", want)
					}
					var v cty.Value
					v, diags = n.Eval.Evaluate(groupScope, config.NoInstance)
					if !diags.HasErrors() {
						for path, w := range tc.want {
							if got := show(at(t, v, path)); got != w {
								t.Errorf("%s = %s, want %s", path, got, w)
							}
						}
					}
				}
				if tc.summary == "" {
					if diags.HasErrors() {
						t.Fatalf("unexpected errors: %v", diags)
					}
					var refs []string
					for _, r := range n.Refs {
						refs = append(refs, r.Addr)
					}
					for _, r := range tc.refs {
						if !slices.Contains(refs, r) {
							t.Errorf("references %v, want %s among them", refs, r)
						}
					}
					return
				}
				checkFirstError(t, diags, syntax, tc.summary, tc.detail, tc.at)
			})
		}
	}
}

// checkFirstError checks the first error's summary and detail and, for
// the native syntax, its subject's start.
func checkFirstError(t *testing.T, diags hcl.Diagnostics, syntax, summary, detail, at string) {
	t.Helper()
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Summary != summary || d.Detail != detail {
			t.Fatalf("first error %q: %q, want %q: %q", d.Summary, d.Detail, summary, detail)
		}
		if syntax != "native" {
			return
		}
		if d.Subject == nil {
			t.Fatalf("%q has no subject", d.Summary)
		}
		got := fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
		if got != at {
			t.Errorf("%q at %s, want %s", d.Summary, got, at)
		}
		return
	}
	t.Fatalf("no error; want %q", summary)
}

// at is the value at a dotted path of attribute names and indexes.
func at(t *testing.T, v cty.Value, path string) cty.Value {
	t.Helper()
	for _, step := range strings.Split(path, ".") {
		switch {
		case !v.IsKnown() || v.IsNull():
			t.Fatalf("%s: no %s in %s", path, step, show(v))
		case v.Type().IsObjectType():
			v = v.GetAttr(step)
		default:
			var i int
			fmt.Sscan(step, &i)
			v = v.Index(cty.NumberIntVal(int64(i)))
		}
	}
	return v
}

// show writes a value briefly: ? for unknown, lists in [], sets in {}
// (in cty's order), objects and maps as {k = v} by key.
func show(v cty.Value) string {
	switch {
	case !v.IsKnown():
		return "?"
	case v.IsNull():
		return "null"
	case v.Type() == cty.String:
		return v.AsString()
	case v.Type() == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case v.Type() == cty.Bool:
		return fmt.Sprint(v.True())
	case v.Type().IsObjectType() || v.Type().IsMapType():
		m := v.AsValueMap()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + show(m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	var parts []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		parts = append(parts, show(e))
	}
	if v.Type().IsSetType() {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TestTerraformJSONOfSchemaBodies checks how a resource body is written
// back in Terraform's JSON syntax (tether synth): blocks of an attribute
// become dynamic blocks of one element, since Terraform's JSON reads a
// list under the attribute's name as the attribute form, whose objects
// need every attribute; a dynamic block's iterator is a name and its
// labels an array, as Terraform's JSON syntax reads them.
func TestTerraformJSONOfSchemaBodies(t *testing.T) {
	dir := t.TempDir()
	main := `
resource "x_group" "g" {
  ingress {
    from = 22
  }
  dynamic "ingress" {
    for_each = var.ports
    iterator = port
    content {
      from = port.value
    }
  }
  rule {
    dynamic "header" {
      for_each = var.names
      labels   = [header.key]
      content {
        value = header.value
      }
    }
    tag {
      key = "k"
    }
  }
}
`
	for name, text := range map[string]string{"versions.tf": groupRequired, "main.tf": main, "vars.tf": "variable \"ports\" {\n  default = []\n}\nvariable \"names\" {\n  default = {}\n}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{groupSource: groupSchema()}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, n := range cfg.Nodes {
		if n.Addr != "x_group.g" {
			continue
		}
		v, diags := n.Terraform.TerraformJSON()
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got, _ := json.Marshal(v)
		want := `{"dynamic":{"ingress":[` +
			`{"content":[{"from":22}],"for_each":[0]},` +
			`{"content":[{"from":"${port.value}"}],"for_each":"${var.ports}","iterator":"port"}]},` +
			`"rule":[{"dynamic":{"header":[{"content":[{"value":"${header.value}"}],"for_each":"${var.names}","labels":["${header.key}"]}],` +
			`"tag":[{"content":[{"key":"k"}],"for_each":[0]}]}}]}`
		if string(got) != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		return
	}
	t.Fatal("no x_group.g")
}
