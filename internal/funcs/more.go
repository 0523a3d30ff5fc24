package funcs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/tetherhq/tether/internal/marks"
)

func stringPredicate(name string, f func(s, sub string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: name, Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(f(args[0].AsString(), args[1].AsString())), nil
		},
		RefineResult: refineNotNull,
	})
}

var strContainsFunc = stringPredicate("substr", strings.Contains)
var startsWithFunc = stringPredicate("prefix", strings.HasPrefix)
var endsWithFunc = stringPredicate("suffix", strings.HasSuffix)

func boolFold(all bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			result := all
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				if v.IsNull() {
					continue
				}
				if !v.IsKnown() {
					return cty.UnknownVal(cty.Bool), nil
				}
				if v.True() != all {
					result = !all
				}
			}
			return cty.BoolVal(result), nil
		},
		RefineResult: refineNotNull,
	})
}

var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		l := args[0]
		if !l.CanIterateElements() {
			return cty.UnknownVal(cty.Number), function.NewArgErrorf(0, "sum needs a list or set of numbers")
		}
		total := cty.Zero
		for it := l.ElementIterator(); it.Next(); {
			_, v := it.Element()
			n, err := convert.Convert(v, cty.Number)
			if err != nil || n.IsNull() {
				return cty.UnknownVal(cty.Number), function.NewArgErrorf(0, "every element of sum's argument must be a number")
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty.IsListType() || ty.IsSetType():
			return ty.ElementType(), nil
		case ty.IsTupleType():
			if et := ty.TupleElementTypes(); len(et) == 1 {
				return et[0], nil
			} else if len(et) == 0 {
				return cty.DynamicPseudoType, nil
			}
		}
		return cty.NilType, function.NewArgErrorf(0, "one needs a list, set or tuple of at most one element")
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		v := args[0]
		switch n := v.LengthInt(); n {
		case 0:
			return cty.NullVal(ty), nil
		case 1:
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				return e, nil
			}
		}
		return cty.NilVal, function.NewArgErrorf(0, "one needs a collection of at most one element, and this one has %d", v.LengthInt())
	},
})

// nonsensitive takes the mark off a value the user says is safe to show.
var nonsensitiveFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true, AllowNull: true, AllowDynamicType: true}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, _ := args[0].Unmark()
		return v, nil
	},
})

// sensitive marks a value so that it is hidden wherever it goes.
var sensitiveFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true, AllowNull: true, AllowDynamicType: true}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Mark(marks.Sensitive), nil
	},
})

// lengthFunc is Terraform's length: the number of elements of a
// collection, or of characters of a string.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true, AllowMarked: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if ty == cty.String || ty == cty.DynamicPseudoType || ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType() {
			return cty.Number, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "length needs a string, list, map, set, tuple or object, not %s", ty.FriendlyName())
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, m := args[0].Unmark()
		if v.Type() == cty.String {
			if !v.IsKnown() {
				return cty.UnknownVal(cty.Number).WithMarks(m), nil
			}
			n, err := stdlib.Strlen(v)
			return n.WithMarks(m), err
		}
		if v.Type().IsObjectType() {
			return cty.NumberIntVal(int64(len(v.Type().AttributeTypes()))).WithMarks(m), nil
		}
		n, err := stdlib.Length(v)
		return n.WithMarks(m), err
	},
})

// indexFunc is Terraform's index: the position of a value in a list.
var indexFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		list := args[0]
		if !(list.Type().IsListType() || list.Type().IsTupleType()) {
			return cty.NilVal, function.NewArgErrorf(0, "index needs a list or tuple, not %s", list.Type().FriendlyName())
		}
		if !list.IsWhollyKnown() || !args[1].IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		for it := list.ElementIterator(); it.Next(); {
			i, v := it.Element()
			if eq := v.Equals(args[1]); eq.IsKnown() && eq.True() {
				return i, nil
			}
		}
		return cty.NilVal, function.NewArgErrorf(1, "the value is not in the list")
	},
})

// replaceFunc is Terraform's replace: a substring wrapped in slashes is a
// regular expression.
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "str", Type: cty.String},
		{Name: "substr", Type: cty.String},
		{Name: "replace", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		sub := args[1].AsString()
		if len(sub) > 1 && strings.HasPrefix(sub, "/") && strings.HasSuffix(sub, "/") {
			return stdlib.RegexReplace(args[0], cty.StringVal(sub[1:len(sub)-1]), args[2])
		}
		return stdlib.Replace(args[0], args[1], args[2])
	},
	RefineResult: refineNotNull,
})

// coalesceFunc is Terraform's coalesce: the first argument that is
// neither null nor an empty string.
var coalesceFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		var types []cty.Type
		for _, a := range args {
			// A bare null has no type of its own and takes any.
			if a.IsNull() && a.Type() == cty.DynamicPseudoType {
				continue
			}
			types = append(types, a.Type())
		}
		if len(types) == 0 {
			return cty.DynamicPseudoType, nil
		}
		ty, _ := convert.UnifyUnsafe(types)
		if ty == cty.NilType {
			return cty.NilType, fmt.Errorf("all arguments of coalesce must be of one type")
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		for _, a := range args {
			if !a.IsKnown() {
				return cty.UnknownVal(ty), nil
			}
			if a.IsNull() {
				continue
			}
			if a.Type() == cty.String && a.AsString() == "" {
				continue
			}
			return convert.Convert(a, ty)
		}
		return cty.NilVal, errors.New("no non-null, non-empty-string arguments")
	},
})
