package jsonplan

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

func TestExpression(t *testing.T) {
	tests := []struct {
		src  string
		want string // the JSON of the Expression
	}{
		{`"a"`, `{"constant_value":"a"}`},
		{`null`, `{"constant_value":null}`},
		{`[1, "x"]`, `{"constant_value":[1,"x"]}`},
		{`upper("a")`, `{}`},
		{`var.a`, `{"references":["var.a"]}`},
		{`var.a.b[0]`, `{"references":["var.a.b[0]","var.a.b","var.a"]}`},
		{`tether_value.n`, `{"references":["tether_value.n"]}`},
		{`tether_value.n[0].output.x`, `{"references":["tether_value.n[0].output.x","tether_value.n[0].output","tether_value.n[0]","tether_value.n"]}`},
		{`tether_value.n["k"]`, `{"references":["tether_value.n[\"k\"]","tether_value.n"]}`},
		{`tether_value.n[*].output`, `{"references":["tether_value.n"]}`},
		{`data.tether_file.d.content`, `{"references":["data.tether_file.d.content","data.tether_file.d"]}`},
		{`module.m`, `{"references":["module.m"]}`},
		{`module.m.out.x`, `{"references":["module.m.out.x","module.m.out","module.m"]}`},
		{`module.m["k"]`, `{"references":["module.m[\"k\"]","module.m"]}`},
		{`module.m["k"].out`, `{"references":["module.m[\"k\"].out","module.m[\"k\"]"]}`},
		{`"${each.value.a}-${each.value.a}"`, `{"references":["each.value.a","each.value","each.value.a","each.value"]}`},
		{`[for x in var.l : x if x != count.index]`, `{"references":["var.l","count.index"]}`},
		{`{ p = path.module, w = terraform.workspace }`, `{"references":["path.module","terraform.workspace"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tt.src), "test.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got, err := json.Marshal(expression(e))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal([]byte(tt.want), &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestExpressions checks a body's expressions as Terraform's configuration
// section shows them: an attribute written as blocks (an SDKv2 provider's
// list of objects) is one attribute, its constant value the blocks'
// objects, or the references inside them; dynamic blocks are left out.
func TestExpressions(t *testing.T) {
	rule := cty.Object(map[string]cty.Type{"from": cty.Number, "cidrs": cty.List(cty.String)})
	schema := &provider.Block{
		Attributes: map[string]*provider.Attribute{
			"name":    {Type: cty.String, Optional: true},
			"ingress": {Type: cty.Set(rule), Optional: true, Computed: true},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"rule": {Nesting: provider.NestingList, Block: provider.Block{Attributes: map[string]*provider.Attribute{
				"egress": {Type: cty.List(rule), Optional: true},
			}}},
		},
	}
	for _, tc := range []struct{ name, src, want string }{
		{"blocks", `
ingress {
  from = 1
}
ingress {
  from  = 2
  cidrs = ["a"]
}
`, `{"ingress":{"constant_value":[{"cidrs":null,"from":1},{"cidrs":["a"],"from":2}]}}`},
		{"references inside blocks", `
ingress {
  from  = var.port
  cidrs = [aws_vpc.main.cidr_block]
}
`, `{"ingress":{"references":["var.port","aws_vpc.main.cidr_block","aws_vpc.main"]}}`},
		{"attribute form", `ingress = []`, `{"ingress":{"constant_value":[]}}`},
		{"dynamic blocks", `
name = "n"
dynamic "ingress" {
  for_each = var.ports
  content {
    from = ingress.value
  }
}
`, `{"name":{"constant_value":"n"}}`},
		{"in a nested block", `
rule {
  egress {
    from = 3
  }
}
`, `{"rule":[{"egress":{"constant_value":[{"cidrs":null,"from":3}]}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tc.src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got, err := json.Marshal(expressions(f.Body, schema))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal([]byte(tc.want), &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
