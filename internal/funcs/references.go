package funcs

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/refs"
)

// stringOrReference is a parameter that takes a string or a reference to
// one: the reference functions are the functions that declare reference
// support, so references compose.
func stringOrReference(name string) function.Parameter {
	return function.Parameter{Name: name, Type: cty.DynamicPseudoType, AllowDynamicType: true}
}

func checkStringOrReference(args []cty.Value, i int) error {
	if _, ok := refs.FromValue(args[i]); ok {
		return nil
	}
	if args[i].Type() != cty.String || args[i].IsNull() {
		return function.NewArgErrorf(i, "must be a string or a reference, not %s", args[i].Type().FriendlyName())
	}
	return nil
}

func referenceFunc(kind string, params ...string) function.Function {
	var ps []function.Parameter
	for _, p := range params {
		ps = append(ps, stringOrReference(p))
	}
	return function.New(&function.Spec{
		Params: ps,
		Type:   function.StaticReturnType(refs.Type),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for i := range args {
				if err := checkStringOrReference(args, i); err != nil {
					return cty.NilVal, err
				}
			}
			r, err := refs.New(kind, args...)
			if err != nil {
				return cty.NilVal, err
			}
			return refs.Val(r).Mark(refs.Operand), nil
		},
	})
}

// referenceOfKind is reference(KIND, ARGS...): a reference of a kind a Go
// program registered.
var referenceOfKind = function.New(&function.Spec{
	Params:   []function.Parameter{{Name: "kind", Type: cty.String}},
	VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowDynamicType: true},
	Type:     function.StaticReturnType(refs.Type),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		r, err := refs.New(args[0].AsString(), args[1:]...)
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return refs.Val(r).Mark(refs.Operand), nil
	},
})
