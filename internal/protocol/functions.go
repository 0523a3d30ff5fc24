package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// FunctionToTF declares a provider-defined function (provider::NAME::F in
// Terraform's language) in the protocol. Its return type is the one the
// function gives for its parameters' types; a function whose return type
// depends on its arguments' values declares a dynamic one.
func FunctionToTF(f function.Function) (*tfprotov6.Function, error) {
	out := &tfprotov6.Function{Description: f.Description(), DescriptionKind: tfprotov6.StringKindPlain}
	var types []cty.Type
	for _, p := range f.Params() {
		tp, err := paramToTF(p)
		if err != nil {
			return nil, err
		}
		out.Parameters = append(out.Parameters, tp)
		types = append(types, p.Type)
	}
	if vp := f.VarParam(); vp != nil {
		tp, err := paramToTF(*vp)
		if err != nil {
			return nil, err
		}
		out.VariadicParameter = tp
	}
	ret, err := f.ReturnType(types)
	if err != nil {
		ret = cty.DynamicPseudoType
	}
	rt, err := TypeToTF(ret)
	if err != nil {
		return nil, fmt.Errorf("its return type: %w", err)
	}
	out.Return = &tfprotov6.FunctionReturn{Type: rt}
	return out, nil
}

func paramToTF(p function.Parameter) (*tfprotov6.FunctionParameter, error) {
	ty, err := TypeToTF(p.Type)
	if err != nil {
		return nil, fmt.Errorf("its parameter %s: %w", p.Name, err)
	}
	return &tfprotov6.FunctionParameter{
		Name:               p.Name,
		Type:               ty,
		AllowNullValue:     p.AllowNull,
		AllowUnknownValues: p.AllowUnknown,
		Description:        p.Description,
		DescriptionKind:    tfprotov6.StringKindPlain,
	}, nil
}

func (s *server) GetFunctions(ctx context.Context, req *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	s.load()
	return &tfprotov6.GetFunctionsResponse{Functions: s.schemaResp.Functions, Diagnostics: s.schemaResp.Diagnostics}, nil
}

// CallFunction decodes the arguments by the declared parameter types,
// calls the function, and sends back its result, or its error (pointing
// at an argument when the function said which one was wrong).
func (s *server) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	s.load()
	f, ok := s.funcs[req.Name]
	decl := s.schemaResp.Functions[req.Name]
	if !ok || decl == nil {
		return &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: "This provider has no function named " + req.Name + "."}}, nil
	}
	params, vp := f.Params(), f.VarParam()
	args := make([]cty.Value, len(req.Arguments))
	for i, dv := range req.Arguments {
		var p function.Parameter
		switch {
		case i < len(params):
			p = params[i]
		case vp != nil:
			p = *vp
		default:
			return &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: fmt.Sprintf("The function %s takes %d arguments, not %d.", req.Name, len(params), len(req.Arguments))}}, nil
		}
		v, err := DecodeValue(dv, p.Type)
		if err != nil {
			return &tfprotov6.CallFunctionResponse{Error: argError(i, fmt.Sprintf("The provider cannot decode argument %s: %s.", p.Name, err))}, nil
		}
		args[i] = v
	}
	res, err := f.Call(args)
	if err != nil {
		var ae function.ArgError
		if errors.As(err, &ae) {
			return &tfprotov6.CallFunctionResponse{Error: argError(ae.Index, ae.Error())}, nil
		}
		return &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: err.Error()}}, nil
	}
	ret, err := TypeFromTF(decl.Return.Type)
	if err == nil {
		var dv *tfprotov6.DynamicValue
		if dv, err = EncodeValue(res, ret); err == nil {
			return &tfprotov6.CallFunctionResponse{Result: dv}, nil
		}
	}
	return &tfprotov6.CallFunctionResponse{Error: &tfprotov6.FunctionError{Text: fmt.Sprintf("The result of %s cannot be encoded: %s. This is a bug in the provider.", req.Name, err)}}, nil
}

func argError(i int, text string) *tfprotov6.FunctionError {
	n := int64(i)
	return &tfprotov6.FunctionError{Text: text, FunctionArgument: &n}
}
