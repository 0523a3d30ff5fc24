package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// A function that is declared but cannot be decoded is callable in an
// evaluation context, and its every call is an error at that call,
// saying why; nothing is decoded before its first lookup.
func TestCallable(t *testing.T) {
	decoded := 0
	fns := LazyFunctions([]string{"upper", "broken"}, func(name string) (function.Function, error) {
		decoded++
		if name == "broken" {
			return function.Function{}, errors.New(`return type: invalid type "strang"`)
		}
		return stdlib.UpperFunc, nil
	})
	if decoded != 0 {
		t.Fatalf("%d functions decoded before any lookup", decoded)
	}
	ctx := &hcl.EvalContext{
		Functions: map[string]function.Function{},
		Variables: map[string]cty.Value{"unknown": cty.UnknownVal(cty.String)},
	}
	for _, name := range fns.Names() {
		f, ok := Callable(fns, name)
		if !ok {
			t.Fatalf("%s is not callable", name)
		}
		ctx.Functions["provider::p::"+name] = f
	}
	if _, ok := Callable(fns, "nope"); ok {
		t.Error("a function that is not declared is callable")
	}

	eval := func(src string) (cty.Value, hcl.Diagnostics) {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "main.tf", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return expr.Value(ctx)
	}
	if v, diags := eval(`provider::p::upper("a")`); diags.HasErrors() || !v.RawEquals(cty.StringVal("A")) {
		t.Errorf("upper: %#v %v", v, diags)
	}
	for _, src := range []string{`provider::p::broken()`, `provider::p::broken(1, "x")`, `provider::p::broken(unknown)`} {
		_, diags := eval(src)
		if len(diags) != 1 || diags[0].Summary != "Error in function call" || diags[0].Subject == nil || diags[0].Subject.Start.Column != 1 ||
			!strings.Contains(diags[0].Detail, `the signature of function "broken" cannot be used: return type: invalid type "strang"`) {
			t.Errorf("%s: %v", src, diags)
		}
	}
}
