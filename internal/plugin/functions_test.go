package plugin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tetherhq/tether/internal/plugin/tfplugin5"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providertest"
	"github.com/tetherhq/tether/provider/tether"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
	"google.golang.org/protobuf/proto"
)

// functionsOf returns c's functions, from its schema.
func functionsOf(t *testing.T, c *Client) *provider.Functions {
	t.Helper()
	sch, diags := c.GetSchema()
	noErrors(t, "schema", diags)
	return sch.Functions
}

// functionNamed returns the function name of fns, failing the test without one.
func functionNamed(t *testing.T, fns *provider.Functions, name string) function.Function {
	t.Helper()
	f, ok, err := fns.Get(name)
	if err != nil || !ok {
		t.Fatalf("function %s among %v: %v", name, fns.Names(), err)
	}
	return f
}

// The functions of a provider come with its schema, from the provider or
// from the schema cache, and are called there: the client never asks
// GetFunctions, as Terraform never does, and from the cache it makes no
// call at all before the first function call.
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
			fns := functionsOf(t, c)

			// The provider's own count of the calls it has had.
			calls, err := functionNamed(t, fns, "received").Call(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]cty.Value{"CallFunction": cty.NumberIntVal(1)}
			if run == "fresh" {
				want["GetProviderSchema"] = cty.NumberIntVal(1)
			}
			if !calls.RawEquals(cty.MapVal(want)) {
				t.Errorf("the provider received %#v, want %#v", calls, cty.MapVal(want))
			}

			if got := strings.Join(fns.Names(), ","); got != "describe,join,next,pair,positive,received" {
				t.Fatalf("functions %s", got)
			}
			if p := functionNamed(t, fns, "next").Params(); len(p) != 1 || p[0].Name != "n" || p[0].Type != cty.Number {
				t.Errorf("next's parameters: %#v", p)
			}
			if vp := functionNamed(t, fns, "join").VarParam(); vp == nil || vp.Type != cty.String {
				t.Errorf("join's variadic parameter: %#v", vp)
			}
			if p := functionNamed(t, fns, "describe").Params(); !p[0].AllowNull || p[0].Type != cty.DynamicPseudoType {
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
				got, err := functionNamed(t, fns, tc.name).Call(tc.args)
				if err != nil {
					t.Errorf("%s%#v: %v", tc.name, tc.args, err)
					continue
				}
				if !got.RawEquals(tc.want) {
					t.Errorf("%s%#v = %#v, want %#v", tc.name, tc.args, got, tc.want)
				}
			}

			// The provider's error about an argument is cty's, so hcl
			// points at the argument.
			positive := functionNamed(t, fns, "positive")
			_, err = positive.Call([]cty.Value{cty.NumberIntVal(-3)})
			var argErr function.ArgError
			if !errors.As(err, &argErr) || argErr.Index != 0 || !strings.Contains(err.Error(), "-3 is not positive") {
				t.Errorf("positive(-3): %#v", err)
			}
			src := "provider::functions::positive(1) + provider::functions::positive(-3)"
			expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
			noErrors(t, "parse", diags)
			_, diags = expr.Value(&hcl.EvalContext{Functions: map[string]function.Function{"provider::functions::positive": positive}})
			if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Column != strings.LastIndex(src, "-3")+1 || !strings.Contains(diags[0].Detail, "-3 is not positive") {
				t.Errorf("diagnostics %v (subject %v)", diags, diags[0].Subject)
			}

			if _, ok, err := fns.Get("nope"); ok || err != nil {
				t.Errorf("unknown function: %v %v", ok, err)
			}
			c.Close()
			if _, err := functionNamed(t, fns, "next").Call([]cty.Value{large}); err == nil || !strings.Contains(err.Error(), "shut down") {
				t.Errorf("call after Close: %v", err)
			}
		})
	}
}

// The built-in provider's function apply, as a plugin over each protocol
// version, through the schema cache and without it: its signature is the
// one it has in process, and a call reaches the provider, whose error
// about a program that is not there comes back. (Only the test plugin
// over protocol 5 declares GetProviderSchemaOptional; the other is asked
// for its schema again, as Terraform would.)
func TestBuiltinFunction(t *testing.T) {
	t.Parallel()
	builtin, _ := tether.New().GetSchema()
	want := functionNamed(t, builtin.Functions, "apply")
	for _, tc := range []struct {
		name     string
		bin      *string
		version  int
		optional bool
	}{
		{"protocol5", &tether5Bin, 5, true},
		{"protocol6", &tether6Bin, 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cacheDir := t.TempDir()
			for _, run := range []string{"fresh", "cached"} {
				c, err := StartWith(t.Context(), *tc.bin, StartOptions{SchemaCacheDir: cacheDir})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if c.protocolVersion != tc.version || c.schemaFromCache != (run == "cached" && tc.optional) {
					t.Errorf("%s: protocol %d, schema from cache %v", run, c.protocolVersion, c.schemaFromCache)
				}
				apply := functionNamed(t, functionsOf(t, c), "apply")
				if got, want := signatureString(apply), signatureString(want); got != want {
					t.Errorf("%s: apply's parameters %s, want %s", run, got, want)
				}
				missing := filepath.Join(t.TempDir(), "no-program")
				_, err = apply.Call([]cty.Value{cty.StringVal(missing), cty.StringVal("main.go:1")})
				if err == nil || !strings.Contains(err.Error(), missing) {
					t.Errorf("%s: apply of a missing program: %v", run, err)
				}
			}
		})
	}
}

// signatureString is what f's signature says of its parameters: names,
// types, and whether they take null and unknown values.
func signatureString(f function.Function) string {
	var b strings.Builder
	params := f.Params()
	if vp := f.VarParam(); vp != nil {
		params = append(params, *vp)
	}
	for _, p := range params {
		fmt.Fprintf(&b, "%s %s null=%v unknown=%v; ", p.Name, p.Type.FriendlyName(), p.AllowNull, p.AllowUnknown)
	}
	return b.String()
}

// Over protocol 5, from the schema a provider sends: each function is
// decoded when first looked up, and one whose signature cannot be decoded
// is an error there, and when called, never a missing function; the
// others work.
func TestFunctionsFromSchema5(t *testing.T) {
	msg, err := ctymsgpack.Marshal(cty.StringVal("hi"), cty.String)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := proto.Marshal(&tfplugin5.GetProviderSchema_Response{
		Provider: &tfplugin5.Schema{Block: &tfplugin5.Schema_Block{}},
		Functions: map[string]*tfplugin5.Function{
			"greet": {
				Parameters: []*tfplugin5.Function_Parameter{{Name: "who", Type: []byte(`"string"`)}},
				Return:     &tfplugin5.Function_Return{Type: []byte(`"string"`)},
			},
			"broken": {
				Parameters: []*tfplugin5.Function_Parameter{{Name: "what", Type: []byte(`"strang"`)}},
				Return:     &tfplugin5.Function_Return{Type: []byte(`"string"`)},
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	conn := &recordingConn{answer: func(method string, reply any) error {
		switch r := reply.(type) {
		case *rawMessage:
			*r = schema
		case *tfplugin5.CallFunction_Response:
			r.Result = &tfplugin5.DynamicValue{Msgpack: msg}
		}
		return nil
	}}
	c := fakeClient(5, conn)
	ls, err := c.readSchema(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.useSchema(ls)
	fns := functionsOf(t, c)
	if got := strings.Join(fns.Names(), ","); got != "broken,greet" {
		t.Errorf("functions %s", got)
	}
	got, err := functionNamed(t, fns, "greet").Call([]cty.Value{cty.StringVal("you")})
	if err != nil || !got.RawEquals(cty.StringVal("hi")) {
		t.Errorf("greet: %#v %v", got, err)
	}
	req, ok := conn.reqs["CallFunction"].(*tfplugin5.CallFunction_Request)
	if !ok || req.Name != "greet" || len(req.Arguments) != 1 {
		t.Errorf("request %v", conn.reqs["CallFunction"])
	}
	if _, asked := conn.reqs["GetFunctions"]; asked {
		t.Error("the client asked GetFunctions")
	}

	const wantErr = `the signature of function "broken" cannot be used: parameter 1: invalid type "\"strang\""`
	if _, ok, err := fns.Get("broken"); !ok || err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), "fake-provider") {
		t.Errorf("Get(broken) = %v, %v; want the function, with an error naming it and the provider", ok, err)
	}
	broken, ok := provider.Callable(fns, "broken")
	if !ok {
		t.Fatal("broken is not callable")
	}
	if _, err := broken.Call([]cty.Value{cty.StringVal("x")}); err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Errorf("calling broken: %v", err)
	}
	if _, ok := provider.Callable(fns, "nope"); ok {
		t.Error("a function that is not declared is callable")
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
	parse := functionNamed(t, functionsOf(t, c), "rfc3339_parse")
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
