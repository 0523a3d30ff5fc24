package jsonplan

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
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
