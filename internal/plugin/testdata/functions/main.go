// Command functions is a provider with functions and nothing else, for
// the plugin client's tests of provider-defined functions. It speaks
// protocol version 6 through terraform-plugin-go.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/zclconf/go-cty/cty"
)

func main() {
	err := tf6server.Serve("registry.terraform.io/tether/functions", func() tfprotov6.ProviderServer { return server{} })
	if err != nil {
		fmt.Fprintln(os.Stderr, "functions:", err)
		os.Exit(1)
	}
}

// server implements what the client calls of a provider without
// resources; the embedded nil interface stands for the rest.
type server struct {
	tfprotov6.ProviderServer
}

// received counts the calls the provider has had, by RPC, for the
// function received: so that a test sees which calls a client makes.
var received struct {
	sync.Mutex
	calls map[string]int64
}

func receive(rpc string) {
	received.Lock()
	defer received.Unlock()
	if received.calls == nil {
		received.calls = map[string]int64{}
	}
	received.calls[rpc]++
}

func param(name string, ty tftypes.Type) *tfprotov6.FunctionParameter {
	return &tfprotov6.FunctionParameter{Name: name, Type: ty}
}

var functions = map[string]*tfprotov6.Function{
	// next(n) is n + 1, exactly.
	"next": {
		Summary:    "The next number",
		Parameters: []*tfprotov6.FunctionParameter{param("n", tftypes.Number)},
		Return:     &tfprotov6.FunctionReturn{Type: tftypes.Number},
	},
	// join(sep, parts...) joins strings.
	"join": {
		Parameters:        []*tfprotov6.FunctionParameter{param("sep", tftypes.String)},
		VariadicParameter: param("parts", tftypes.String),
		Return:            &tfprotov6.FunctionReturn{Type: tftypes.String},
	},
	// describe(v) names v's type, or says null; v may be anything.
	"describe": {
		Parameters: []*tfprotov6.FunctionParameter{{Name: "v", Type: tftypes.DynamicPseudoType, AllowNullValue: true}},
		Return:     &tfprotov6.FunctionReturn{Type: tftypes.String},
	},
	// pair(a, b) is an object of both, to return a structure.
	"pair": {
		Parameters: []*tfprotov6.FunctionParameter{param("a", tftypes.String), param("b", tftypes.List{ElementType: tftypes.Number})},
		Return: &tfprotov6.FunctionReturn{Type: tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"a": tftypes.String, "b": tftypes.List{ElementType: tftypes.Number},
		}}},
	},
	// received() is the number of calls the provider has had, by RPC
	// (this one included).
	"received": {
		Return: &tfprotov6.FunctionReturn{Type: tftypes.Map{ElementType: tftypes.Number}},
	},
	// positive(n) is n, or an error about its argument.
	"positive": {
		Parameters: []*tfprotov6.FunctionParameter{param("n", tftypes.Number)},
		Return:     &tfprotov6.FunctionReturn{Type: tftypes.Number},
	},
}

func (server) GetMetadata(context.Context, *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	receive("GetMetadata")
	resp := &tfprotov6.GetMetadataResponse{ServerCapabilities: &tfprotov6.ServerCapabilities{GetProviderSchemaOptional: true}}
	for name := range functions {
		resp.Functions = append(resp.Functions, tfprotov6.FunctionMetadata{Name: name})
	}
	return resp, nil
}

func (server) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	receive("GetProviderSchema")
	return &tfprotov6.GetProviderSchemaResponse{
		ServerCapabilities: &tfprotov6.ServerCapabilities{GetProviderSchemaOptional: true},
		Provider:           &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}},
		Functions:          functions,
	}, nil
}

func (server) GetFunctions(context.Context, *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	receive("GetFunctions")
	return &tfprotov6.GetFunctionsResponse{Functions: functions}, nil
}

func (server) StopProvider(context.Context, *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	receive("StopProvider")
	return &tfprotov6.StopProviderResponse{}, nil
}

func (server) CallFunction(_ context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	receive("CallFunction")
	fail := func(arg int64, format string, a ...any) (*tfprotov6.CallFunctionResponse, error) {
		e := &tfprotov6.FunctionError{Text: fmt.Sprintf(format, a...)}
		if arg >= 0 {
			e.FunctionArgument = &arg
		}
		return &tfprotov6.CallFunctionResponse{Error: e}, nil
	}
	f, ok := functions[req.Name]
	if !ok {
		return fail(-1, "no function %q", req.Name)
	}
	var args []cty.Value
	for i, dv := range req.Arguments {
		p := f.VariadicParameter
		if i < len(f.Parameters) {
			p = f.Parameters[i]
		}
		ty, err := protocol.TypeFromTF(p.Type)
		if err != nil {
			return fail(int64(i), "%s", err)
		}
		v, err := protocol.DecodeValue(dv, ty)
		if err != nil {
			return fail(int64(i), "%s", err)
		}
		args = append(args, v)
	}
	var result cty.Value
	switch req.Name {
	case "next":
		result = args[0].Add(cty.NumberIntVal(1))
	case "join":
		parts := make([]string, 0, len(args)-1)
		for _, a := range args[1:] {
			parts = append(parts, a.AsString())
		}
		result = cty.StringVal(strings.Join(parts, args[0].AsString()))
	case "describe":
		if args[0].IsNull() {
			result = cty.StringVal("null")
		} else {
			result = cty.StringVal(args[0].Type().FriendlyName())
		}
	case "pair":
		result = cty.ObjectVal(map[string]cty.Value{"a": args[0], "b": args[1]})
	case "received":
		received.Lock()
		calls := make(map[string]cty.Value, len(received.calls))
		for rpc, n := range received.calls {
			calls[rpc] = cty.NumberIntVal(n)
		}
		received.Unlock()
		result = cty.MapVal(calls)
	case "positive":
		if args[0].LessThanOrEqualTo(cty.Zero).True() {
			return fail(0, "%s is not positive", args[0].AsBigFloat().Text('f', -1))
		}
		result = args[0]
	}
	ty, _ := protocol.TypeFromTF(f.Return.Type)
	dv, err := protocol.EncodeValue(result, ty)
	if err != nil {
		return fail(-1, "%s", err)
	}
	return &tfprotov6.CallFunctionResponse{Result: dv}, nil
}
