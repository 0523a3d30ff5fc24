package plugin

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/providertest"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestProviderFunctions(t *testing.T) {
	t.Parallel()
	cacheDir := t.TempDir()
	for _, run := range []string{"fresh", "cached"} {
		t.Run(run, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := StartWith(ctx, funcsBin, StartOptions{SchemaCacheDir: cacheDir})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.schemaFromCache != (run == "cached") {
				t.Errorf("schema from cache: %v", c.schemaFromCache)
			}
			fns, diags := c.GetFunctions(ctx)
			noErrors(t, "functions", diags)
			if len(fns) != 5 {
				t.Fatalf("%d functions", len(fns))
			}
			if p := fns["next"].Params(); len(p) != 1 || p[0].Name != "n" || p[0].Type != cty.Number {
				t.Errorf("next's parameters: %#v", p)
			}
			if vp := fns["join"].VarParam(); vp == nil || vp.Type != cty.String {
				t.Errorf("join's variadic parameter: %#v", vp)
			}
			if p := fns["describe"].Params(); !p[0].AllowNull || p[0].Type != cty.DynamicPseudoType {
				t.Errorf("describe's parameter: %#v", p[0])
			}

			large := cty.NumberIntVal(7227701560655103598)
			for _, tc := range []struct {
				name string
				args []cty.Value
				want cty.Value
			}{
				{"next", []cty.Value{large}, cty.NumberIntVal(7227701560655103599)},
				{"next", []cty.Value{cty.UnknownVal(cty.Number)}, cty.UnknownVal(cty.Number)},
				{"join", []cty.Value{cty.StringVal("-"), cty.StringVal("a"), cty.StringVal("b")}, cty.StringVal("a-b")},
				{"join", []cty.Value{cty.StringVal("-")}, cty.StringVal("")},
				{"describe", []cty.Value{cty.NullVal(cty.DynamicPseudoType)}, cty.StringVal("null")},
				{"describe", []cty.Value{cty.ListVal([]cty.Value{large})}, cty.StringVal("list of number")},
				{"pair", []cty.Value{cty.StringVal("x"), cty.ListVal([]cty.Value{large})}, cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.ListVal([]cty.Value{large})})},
			} {
				got, err := fns[tc.name].Call(tc.args)
				if err != nil {
					t.Errorf("%s%#v: %v", tc.name, tc.args, err)
					continue
				}
				if !got.RawEquals(tc.want) {
					t.Errorf("%s%#v = %#v, want %#v", tc.name, tc.args, got, tc.want)
				}
			}
			if got, err := c.CallFunction(ctx, "next", []cty.Value{large}); err != nil || got.AsBigFloat().Cmp(new(big.Float).SetInt64(7227701560655103599)) != 0 {
				t.Errorf("CallFunction next: %#v %v", got, err)
			}

			// The provider's error about an argument is cty's, so hcl
			// points at the argument.
			_, err = fns["positive"].Call([]cty.Value{cty.NumberIntVal(-3)})
			var argErr function.ArgError
			if !errors.As(err, &argErr) || argErr.Index != 0 || !strings.Contains(err.Error(), "-3 is not positive") {
				t.Errorf("positive(-3): %#v", err)
			}
			src := "provider::functions::positive(1) + provider::functions::positive(-3)"
			expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
			noErrors(t, "parse", diags)
			_, diags = expr.Value(&hcl.EvalContext{Functions: map[string]function.Function{"provider::functions::positive": fns["positive"]}})
			if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Column != strings.LastIndex(src, "-3")+1 || !strings.Contains(diags[0].Detail, "-3 is not positive") {
				t.Errorf("diagnostics %v (subject %v)", diags, diags[0].Subject)
			}

			if _, err := c.CallFunction(ctx, "nope", nil); err == nil || !strings.Contains(err.Error(), `no function named "nope"`) {
				t.Errorf("unknown function: %v", err)
			}
			c.Close()
			if _, err := fns["next"].Call([]cty.Value{large}); err == nil || !strings.Contains(err.Error(), "shut down") {
				t.Errorf("call after Close: %v", err)
			}
		})
	}
}

// Over protocol 5, and from the GetFunctions call for a provider whose
// schema declares none.
func TestFunctionsFromGetFunctions5(t *testing.T) {
	msg, err := ctymsgpack.Marshal(cty.StringVal("hi"), cty.String)
	if err != nil {
		t.Fatal(err)
	}
	conn := &recordingConn{answer: func(method string, reply any) error {
		switch r := reply.(type) {
		case *tfplugin5.GetFunctions_Response:
			r.Functions = map[string]*tfplugin5.Function{"greet": {
				Parameters: []*tfplugin5.Function_Parameter{{Name: "who", Type: []byte(`"string"`)}},
				Return:     &tfplugin5.Function_Return{Type: []byte(`"string"`)},
			}}
		case *tfplugin5.CallFunction_Response:
			r.Result = &tfplugin5.DynamicValue{Msgpack: msg}
		}
		return nil
	}}
	c := fakeClient(5, conn)
	fns, diags := c.GetFunctions(context.Background())
	noErrors(t, "functions", diags)
	got, err := fns["greet"].Call([]cty.Value{cty.StringVal("you")})
	if err != nil || !got.RawEquals(cty.StringVal("hi")) {
		t.Errorf("greet: %#v %v", got, err)
	}
	req, ok := conn.reqs["CallFunction"].(*tfplugin5.CallFunction_Request)
	if !ok || req.Name != "greet" || len(req.Arguments) != 1 {
		t.Errorf("request %v", conn.reqs["CallFunction"])
	}

	// A provider from before functions has none.
	old := fakeClient(5, &recordingConn{answer: func(string, any) error {
		return status.Error(codes.Unimplemented, "unknown method GetFunctions")
	}})
	if fns, diags := old.GetFunctions(context.Background()); len(fns) != 0 || len(diags) != 0 {
		t.Errorf("old provider: %v %v", fns, diags)
	}
}

// The time provider's rfc3339_parse, a function of a real provider
// (terraform-plugin-framework, protocol 5).
func TestTimeProviderFunction(t *testing.T) {
	t.Parallel()
	c := startClient(t, providertest.Time(t).Executable)
	if c.protocolVersion != 5 {
		t.Errorf("negotiated protocol %d, want 5", c.protocolVersion)
	}
	fns, diags := c.GetFunctions(context.Background())
	noErrors(t, "functions", diags)
	parse, ok := fns["rfc3339_parse"]
	if !ok {
		t.Fatalf("no rfc3339_parse among %d functions", len(fns))
	}
	got, err := parse.Call([]cty.Value{cty.StringVal("2023-07-25T23:43:16-04:00")})
	if err != nil {
		t.Fatal(err)
	}
	if y := got.GetAttr("year"); !y.RawEquals(cty.NumberIntVal(2023)) {
		t.Errorf("year %#v", y)
	}
	if u := got.GetAttr("unix"); !u.RawEquals(cty.NumberIntVal(1690342996)) {
		t.Errorf("unix %#v", u)
	}
	_, err = parse.Call([]cty.Value{cty.StringVal("yesterday")})
	var argErr function.ArgError
	if !errors.As(err, &argErr) || argErr.Index != 0 {
		t.Errorf("bad timestamp: %#v", err)
	}
}
