package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// functions are the functions ls declares (provider-defined functions,
// protocol 5.5 and 6.5), each decoded on first lookup into a cty function
// that calls the provider: ready for an hcl.EvalContext, under whatever
// namespaced name the caller chooses (Terraform's
// provider::NAME::FUNCTION).
//
// They come from the GetProviderSchema response, read at start or from
// the schema cache, as Terraform 1.11 takes them: like it, the client
// never calls GetFunctions, which would be one more call on the way to
// every plan. A provider that declares none there has none. A function
// whose signature cannot be decoded is an error where it is looked up.
//
// A function's parameters allow null and unknown arguments as the
// provider declared; an unknown argument where that is not allowed makes
// the result unknown without a call. Calls use the client's life, not a
// caller's context: cty functions take none. After Close they fail.
func (c *Client) functions(ls *loadedSchema) *provider.Functions {
	names := make([]string, 0, len(ls.functions))
	for name := range ls.functions {
		names = append(names, name)
	}
	return provider.LazyFunctions(names, func(name string) (function.Function, error) {
		def, err := ls.function(ls.functions[name])
		if err != nil {
			return function.Function{}, fmt.Errorf("%w (declared by the provider plugin %s)", err, c.path)
		}
		sig, err := signatureOf(def)
		if err != nil {
			return function.Function{}, fmt.Errorf("%w (declared by the provider plugin %s)", err, c.path)
		}
		return function.New(sig.spec(c, name)), nil
	})
}

// signature is a function's declaration in cty types.
type signature struct {
	params   []function.Parameter
	variadic *function.Parameter
	ret      cty.Type
	summary  string
}

func signatureOf(def *tfprotov6.Function) (*signature, error) {
	sig := &signature{summary: def.Summary}
	for _, p := range def.Parameters {
		fp, err := parameter(p)
		if err != nil {
			return nil, err
		}
		sig.params = append(sig.params, fp)
	}
	if def.VariadicParameter != nil {
		fp, err := parameter(def.VariadicParameter)
		if err != nil {
			return nil, err
		}
		sig.variadic = &fp
	}
	if def.Return == nil {
		return nil, errors.New("no return type")
	}
	ret, err := protocol.TypeFromTF(def.Return.Type)
	if err != nil {
		return nil, fmt.Errorf("return type: %w", err)
	}
	sig.ret = ret
	return sig, nil
}

func parameter(p *tfprotov6.FunctionParameter) (function.Parameter, error) {
	ty, err := protocol.TypeFromTF(p.Type)
	if err != nil {
		return function.Parameter{}, fmt.Errorf("parameter %s: %w", p.Name, err)
	}
	return function.Parameter{
		Name:         p.Name,
		Description:  p.Description,
		Type:         ty,
		AllowNull:    p.AllowNullValue,
		AllowUnknown: p.AllowUnknownValues,
		// A null literal has the dynamic type; it must reach the type
		// check to be refused or allowed as AllowNull says.
		AllowDynamicType: true,
	}, nil
}

func (sig *signature) spec(c *Client, name string) *function.Spec {
	return &function.Spec{
		Description: sig.summary,
		Params:      sig.params,
		VarParam:    sig.variadic,
		Type:        function.StaticReturnType(sig.ret),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return sig.call(c.life, c, name, args)
		},
	}
}

// call sends args, each encoded in its parameter's type, and decodes the
// result in the return type.
func (sig *signature) call(ctx context.Context, c *Client, name string, args []cty.Value) (cty.Value, error) {
	if len(args) < len(sig.params) || (sig.variadic == nil && len(args) > len(sig.params)) {
		return cty.NilVal, fmt.Errorf("function %q takes %d arguments, not %d", name, len(sig.params), len(args))
	}
	req := &tfprotov6.CallFunctionRequest{Name: name, Arguments: make([]*tfprotov6.DynamicValue, len(args))}
	for i, arg := range args {
		p := sig.variadic
		if i < len(sig.params) {
			p = &sig.params[i]
		}
		dv, err := protocol.EncodeValue(arg, p.Type)
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(i, "cannot send this argument to the provider: %s", err)
		}
		req.Arguments[i] = dv
	}
	resp, err := c.rpc.CallFunction(ctx, req)
	if err != nil {
		return cty.NilVal, diagsError(c.rpcDiags(ctx, "CallFunction", err))
	}
	if e := resp.Error; e != nil {
		if i := e.FunctionArgument; i != nil && *i >= 0 && int(*i) < len(args) {
			return cty.NilVal, function.NewArgError(int(*i), errors.New(e.Text))
		}
		return cty.NilVal, errors.New(e.Text)
	}
	v, err := protocol.DecodeValue(resp.Result, sig.ret)
	if err != nil {
		return cty.NilVal, fmt.Errorf("the provider plugin %s returned a result of function %q that does not conform to its declared type: %s", c.path, name, err)
	}
	return v, nil
}

// diagsError is the first error of diags as a Go error, for the callers
// that take one: its detail says what happened, and to which provider.
func diagsError(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			if d.Detail == "" {
				return errors.New(d.Summary)
			}
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return nil
}
