package provider

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Functions are the functions a provider declares (provider-defined
// functions), by their names without a namespace, each ready to call
// during evaluation: a call reaches the provider instance that declared
// it. A plugin's are decoded one at a time, on first lookup, as Types
// are; a function that is declared but cannot be decoded is an error
// from Get, never a missing function.
//
// The zero Functions, and a nil *Functions, hold no function.
type Functions = ByName[function.Function]

// NewFunctions holds the functions of m, by name.
func NewFunctions(m map[string]function.Function) *Functions {
	return newByName("the signature of function", m)
}

// LazyFunctions holds the functions named by names, which decode returns
// on first lookup (once each, whatever it returns).
func LazyFunctions(names []string, decode func(name string) (function.Function, error)) *Functions {
	return lazyByName("the signature of function", names, decode)
}

// Callable returns the function name of fns for an evaluation context,
// which needs every function it offers up front: the function itself
// or, when it is declared but cannot be decoded, one whose every call
// fails with that error. So the error is reported at a call, the place
// it matters, and a configuration that calls no such function is not
// refused for it. ok is false when there is no such function.
func Callable(fns *Functions, name string) (f function.Function, ok bool) {
	f, ok, err := fns.Get(name)
	if err == nil {
		return f, ok
	}
	any := &function.Parameter{
		Name:             "args",
		Type:             cty.DynamicPseudoType,
		AllowNull:        true,
		AllowUnknown:     true,
		AllowDynamicType: true,
		AllowMarked:      true,
	}
	return function.New(&function.Spec{
		VarParam: any,
		Type:     func([]cty.Value) (cty.Type, error) { return cty.NilType, err },
		Impl:     func([]cty.Value, cty.Type) (cty.Value, error) { return cty.NilVal, err },
	}), true
}
