package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/protocol"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GetFunctions returns the provider's functions (provider-defined
// functions, protocol 5.5 and 6.5), as cty functions that call the
// provider: ready for an hcl.EvalContext, under whatever namespaced name
// the caller chooses (Terraform's provider::NAME::FUNCTION).
//
// The signatures are the ones the provider declared in its schema, read
// at start (or from the schema cache). A provider that declared none there
// is asked through the GetFunctions call; one too old to have it has no
// functions, and an empty map is no error. A function whose signature
// cannot be decoded is left out, with an error diagnostic.
//
// A function's parameters allow null and unknown arguments as the
// provider declared; an unknown argument where that is not allowed makes
// the result unknown without a call. Calls use the client's life, not a
// caller's context: cty functions take none. After Close they fail.
func (c *Client) GetFunctions(ctx context.Context) (map[string]function.Function, hcl.Diagnostics) {
	defs, diags := c.functionDefs(ctx)
	out := make(map[string]function.Function, len(defs))
	for name, def := range defs {
		sig, err := c.signature(name, def)
		if err != nil {
			diags = append(diags, diagnostic.Error("Invalid provider function",
				fmt.Sprintf("The provider plugin %s declared a function %q that Tether cannot use: %s.", c.path, name, err)))
			continue
		}
		out[name] = function.New(sig.spec(c, name))
	}
	return out, diags
}

// CallFunction calls the provider's function name with args, which are
// converted to the declared parameter types first. An error the function
// reports about one argument is a function.ArgError for that argument, as
// cty's own functions report them; hcl then points at that argument.
func (c *Client) CallFunction(ctx context.Context, name string, args []cty.Value) (cty.Value, error) {
	defs, diags := c.functionDefs(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diagsError(diags)
	}
	def, ok := defs[name]
	if !ok {
		return cty.NilVal, fmt.Errorf("the provider plugin %s has no function named %q", c.path, name)
	}
	sig, err := c.signature(name, def)
	if err != nil {
		return cty.NilVal, err
	}
	return sig.call(ctx, c, name, args)
}

// functionDefs returns the declared functions: from the schema, else
// from the GetFunctions call, whose answer is then kept.
func (c *Client) functionDefs(ctx context.Context) (map[string]*tfprotov6.Function, hcl.Diagnostics) {
	c.funcMu.Lock()
	defer c.funcMu.Unlock()
	if c.functions != nil {
		return c.functions, nil
	}
	resp, err := c.rpc.GetFunctions(ctx)
	switch {
	case status.Code(err) == codes.Unimplemented:
		c.functions = map[string]*tfprotov6.Function{}
		return c.functions, nil
	case err != nil:
		return nil, c.rpcDiags(ctx, "GetFunctions", err)
	}
	diags := protocol.DiagnosticsFromTF(resp.Diagnostics)
	if !diags.HasErrors() {
		c.functions = resp.Functions
		if c.functions == nil {
			c.functions = map[string]*tfprotov6.Function{}
		}
	}
	return resp.Functions, diags
}

// signature is a function's declaration in cty types.
type signature struct {
	params   []function.Parameter
	variadic *function.Parameter
	ret      cty.Type
	summary  string
}

func (c *Client) signature(name string, def *tfprotov6.Function) (*signature, error) {
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
