package funcs

import (
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// allTrueFunc is Terraform's alltrue: true for an empty list, false as
// soon as an element is false or null.
var allTrueFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		for it := args[0].ElementIterator(); it.Next(); {
			_, v := it.Element()
			switch {
			case !v.IsKnown():
				return cty.UnknownVal(cty.Bool), nil
			case v.IsNull() || v.False():
				return cty.False, nil
			}
		}
		return cty.True, nil
	},
	RefineResult: refineNotNull,
})

// anyTrueFunc is Terraform's anytrue: true as soon as an element is true,
// even when others are unknown; nulls count as false.
var anyTrueFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		unknown := false
		for it := args[0].ElementIterator(); it.Next(); {
			_, v := it.Element()
			switch {
			case !v.IsKnown():
				unknown = true
			case !v.IsNull() && v.True():
				return cty.True, nil
			}
		}
		if unknown {
			return cty.UnknownVal(cty.Bool), nil
		}
		return cty.False, nil
	},
	RefineResult: refineNotNull,
})

// sumFunc is Terraform's sum: the total of a non-empty list, set or tuple
// of numbers.
var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (total cty.Value, err error) {
		l := args[0]
		ty := l.Type()
		if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple. Received %s", ty.FriendlyName())
		}
		if l.LengthInt() == 0 {
			return cty.NilVal, function.NewArgErrorf(0, "cannot sum an empty list")
		}
		if !l.IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		// Adding opposite infinities panics in math/big.
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(big.ErrNaN); !ok {
					panic(r)
				}
				total, err = cty.NilVal, errors.New("can't compute sum of opposing infinities")
			}
		}()
		total = cty.NilVal
		for it := l.ElementIterator(); it.Next(); {
			_, v := it.Element()
			n, err := convert.Convert(v, cty.Number)
			if err != nil || n.IsNull() {
				return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple of number values")
			}
			if total == cty.NilVal {
				total = n
			} else {
				total = total.Add(n)
			}
		}
		return total, nil
	},
	RefineResult: refineNotNull,
})

// lookupFunc is Terraform's lookup: the element of a map or attribute of
// an object by key, or the default when there is one and the key is
// absent.
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "inputMap", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true},
		{Name: "key", Type: cty.String, AllowMarked: true, AllowUnknown: true},
	},
	VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true, AllowNull: true, AllowMarked: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		if len(args) > 3 {
			return cty.NilType, fmt.Errorf("lookup() takes two or three arguments, got %d", len(args))
		}
		ty := args[0].Type()
		switch {
		case ty.IsObjectType():
			if !args[1].IsKnown() {
				return cty.DynamicPseudoType, nil
			}
			k, _ := args[1].Unmark()
			key := k.AsString()
			switch {
			case ty.HasAttribute(key):
				return ty.AttributeType(key), nil
			case len(args) == 3:
				return args[2].Type(), nil
			}
			return cty.DynamicPseudoType, function.NewArgErrorf(0, "the given object has no attribute %q", key)
		case ty.IsMapType():
			if len(args) == 3 {
				if _, err := convert.Convert(args[2], ty.ElementType()); err != nil {
					return cty.NilType, function.NewArgErrorf(2, "the default value must have the same type as the map elements")
				}
			}
			return ty.ElementType(), nil
		case ty == cty.DynamicPseudoType:
			return cty.DynamicPseudoType, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "lookup() requires a map as the first argument")
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		m, mapMarks := args[0].Unmark()
		k, keyMarks := args[1].Unmark()
		if !m.IsKnown() || !k.IsKnown() {
			return cty.UnknownVal(ty).WithMarks(mapMarks, keyMarks), nil
		}
		key := k.AsString()
		switch {
		case m.Type().IsObjectType() && m.Type().HasAttribute(key):
			return m.GetAttr(key).WithMarks(mapMarks, keyMarks), nil
		case m.Type().IsMapType() && m.HasIndex(cty.StringVal(key)) == cty.True:
			return m.Index(cty.StringVal(key)).WithMarks(mapMarks, keyMarks), nil
		case len(args) == 3:
			d, err := convert.Convert(args[2], ty)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(2, "the default value must have the same type as the map elements")
			}
			return d.WithMarks(mapMarks, keyMarks), nil
		}
		return cty.UnknownVal(ty).WithMarks(mapMarks, keyMarks), fmt.Errorf("lookup failed to find key %q", key)
	},
})

// matchKeysFunc is Terraform's matchkeys: the elements of values whose
// counterpart in keys is in searchset, in order.
var matchKeysFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "values", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "keys", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "searchset", Type: cty.List(cty.DynamicPseudoType)},
	},
	Type: func(args []cty.Value) (cty.Type, error) {
		if ty, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()}); ty == cty.NilType {
			return cty.NilType, errors.New("keys and searchset must be of the same type")
		}
		return args[0].Type(), nil
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		values := args[0]
		if !values.IsKnown() {
			return cty.UnknownVal(ty), nil
		}
		if values.LengthInt() != args[1].LengthInt() {
			return cty.NilVal, errors.New("length of keys and values should be equal")
		}
		common, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()})
		keys, _ := convert.Convert(args[1], common)
		search, _ := convert.Convert(args[2], common)
		if search.LengthInt() == 0 {
			return cty.ListValEmpty(ty.ElementType()), nil
		}
		if !values.IsWhollyKnown() || !keys.IsWhollyKnown() {
			return cty.UnknownVal(ty), nil
		}
		var out []cty.Value
		i := 0
		for it := keys.ElementIterator(); it.Next(); i++ {
			_, key := it.Element()
			for st := search.ElementIterator(); st.Next(); {
				_, s := st.Element()
				eq, err := stdlib.Equal(key, s)
				if err != nil {
					return cty.NilVal, err
				}
				if !eq.IsKnown() {
					return cty.UnknownVal(ty), nil
				}
				if eq.True() {
					out = append(out, values.Index(cty.NumberIntVal(int64(i))))
					break
				}
			}
		}
		if len(out) == 0 {
			return cty.ListValEmpty(ty.ElementType()), nil
		}
		return cty.ListVal(out), nil
	},
	RefineResult: refineNotNull,
})

// transposeFunc is Terraform's transpose: a map of lists of strings with
// keys and values swapped, each list sorted.
var transposeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "values", Type: cty.Map(cty.List(cty.String))}},
	Type:   function.StaticReturnType(cty.Map(cty.List(cty.String))),
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		in := args[0]
		if !in.IsWhollyKnown() {
			return cty.UnknownVal(ty), nil
		}
		swapped := map[string][]string{}
		for it := in.ElementIterator(); it.Next(); {
			k, list := it.Element()
			if list.IsNull() {
				return cty.NilVal, errors.New("input must not contain null list")
			}
			for lt := list.ElementIterator(); lt.Next(); {
				_, v := lt.Element()
				if v.IsNull() {
					return cty.NilVal, errors.New("input list must not contain null string")
				}
				swapped[v.AsString()] = append(swapped[v.AsString()], k.AsString())
			}
		}
		if len(swapped) == 0 {
			return cty.MapValEmpty(cty.List(cty.String)), nil
		}
		out := make(map[string]cty.Value, len(swapped))
		for k, keys := range swapped {
			sort.Strings(keys)
			vals := make([]cty.Value, len(keys))
			for i, s := range keys {
				vals[i] = cty.StringVal(s)
			}
			out[k] = cty.ListVal(vals)
		}
		return cty.MapVal(out), nil
	},
	RefineResult: refineNotNull,
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

// containsFunc is cty's contains, refusing a null value as Terraform 1.11
// does.
var containsFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: stdlib.ContainsFunc.ReturnTypeForValues,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return stdlib.Contains(args[0], args[1])
	},
})
