package sdk

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// cty values to Go: what Get, Apply's functions, a data source read in
// direct form and a reference's Resolve receive. As gocty's out.go, one
// helper per kind of Go variable; every error says where in the value it
// happened.

// fromCty stores a known, unmarked value into a Go variable. A null value
// stores the zero value. An unknown value, or one that does not fit the
// variable's type, is an error that names the place in the value (at
// tags["env"]: ...) and unwraps to a cty.PathError.
func fromCty(v cty.Value, dst reflect.Value) error {
	err := fromCtyAt(v, dst, nil)
	var pe cty.PathError
	if errors.As(err, &pe) {
		return outError{pe}
	}
	return err
}

// outError is a conversion error whose message starts with its path.
type outError struct{ cty.PathError }

func (e outError) Error() string {
	if len(e.Path) == 0 {
		return e.PathError.Error()
	}
	return "at " + pathString(e.Path) + ": " + e.PathError.Error()
}

func (e outError) Unwrap() error { return e.PathError }

var (
	bigFloatType = reflect.TypeFor[big.Float]()
	bigIntType   = reflect.TypeFor[big.Int]()
	numberType   = reflect.TypeFor[Number]()
	// numberInputType is what number arguments of bindings are: a Number
	// or an Output[Number]; a value read into one is a Number.
	numberInputType = reflect.TypeFor[NumberInput]()
)

func fromCtyAt(v cty.Value, dst reflect.Value, path cty.Path) error {
	if v.IsNull() {
		dst.SetZero()
		return nil
	}
	if !v.IsKnown() {
		return path.NewErrorf("it is not known yet")
	}
	t := dst.Type()
	switch {
	case t.Implements(refHolderType):
		// An argument of a reference being resolved, or a field of a
		// resolved struct: it holds its value.
		dst.Set(zeroRef(t).withInfo(resolvedInfo(v)))
		return nil
	case t.Implements(lazyHolderType):
		return path.NewErrorf("%s cannot receive a value: functions given to Apply get plain values, so use %s's type argument instead", t, t)
	case t == bigFloatType || t == bigIntType:
		return fromCtyBig(v, dst, path)
	case t == numberType || t == numberInputType:
		n, err := numberAt(v, path)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(BigNumber(n)))
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		return fromCtyInterface(v, dst, path)
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := fromCtyAt(v, p.Elem(), path); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	case reflect.String, reflect.Bool:
		return fromCtyPrimitive(v, dst, path)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return fromCtyNumber(v, dst, path)
	case reflect.Slice:
		return fromCtySlice(v, dst, path)
	case reflect.Map:
		return fromCtyMap(v, dst, path)
	case reflect.Struct:
		return fromCtyStruct(v, dst, path)
	}
	return path.NewErrorf("cannot store into %s", t)
}

// fromCtyPrimitive stores a value into a string or a bool, converting it
// as Terraform would (a number into its decimal text, "true" into true).
func fromCtyPrimitive(v cty.Value, dst reflect.Value, path cty.Path) error {
	want := cty.String
	if dst.Kind() == reflect.Bool {
		want = cty.Bool
	}
	cv, err := convert.Convert(v, want)
	if err != nil {
		return path.NewError(err)
	}
	if want == cty.Bool {
		dst.SetBool(cv.True())
	} else {
		dst.SetString(cv.AsString())
	}
	return nil
}

func fromCtyInterface(v cty.Value, dst reflect.Value, path cty.Path) error {
	if dst.Type().NumMethod() > 0 {
		return path.NewErrorf("cannot store into %s", dst.Type())
	}
	g, err := natural(v)
	if err != nil {
		return path.NewError(err)
	}
	if g != nil {
		dst.Set(reflect.ValueOf(g))
	}
	return nil
}

// fromCtyNumber stores a number into an integer, which must hold it
// exactly, or a float, the nearest one.
func fromCtyNumber(v cty.Value, dst reflect.Value, path cty.Path) error {
	n, err := numberAt(v, path)
	if err != nil {
		return err
	}
	switch dst.Kind() {
	case reflect.Float32, reflect.Float64:
		f, _ := n.Float64()
		dst.SetFloat(f)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, acc := n.Uint64()
		if acc != big.Exact || dst.OverflowUint(u) {
			return path.NewErrorf("%s is not a whole number that fits %s", n.Text('g', -1), dst.Type())
		}
		dst.SetUint(u)
		return nil
	}
	i, acc := n.Int64()
	if acc != big.Exact || dst.OverflowInt(i) {
		return path.NewErrorf("%s is not a whole number that fits %s", n.Text('g', -1), dst.Type())
	}
	dst.SetInt(i)
	return nil
}

// fromCtyBig stores a number exactly: into a big.Float as it is, into a
// big.Int when it is whole.
func fromCtyBig(v cty.Value, dst reflect.Value, path cty.Path) error {
	n, err := numberAt(v, path)
	if err != nil {
		return err
	}
	if dst.Type() == bigFloatType {
		dst.Set(reflect.ValueOf(*n))
		return nil
	}
	if !n.IsInt() {
		return path.NewErrorf("%s is not a whole number", n.Text('g', -1))
	}
	i, _ := n.Int(nil)
	dst.Set(reflect.ValueOf(*i))
	return nil
}

// numberAt is v as a number.
func numberAt(v cty.Value, path cty.Path) (*big.Float, error) {
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		return nil, path.NewError(err)
	}
	return nv.AsBigFloat(), nil
}

func fromCtySlice(v cty.Value, dst reflect.Value, path cty.Path) error {
	t := dst.Type()
	if !v.CanIterateElements() || v.Type().IsObjectType() || v.Type().IsMapType() {
		return path.NewErrorf("a list is needed for %s, not a %s", t, v.Type().FriendlyName())
	}
	s := reflect.MakeSlice(t, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		ev := reflect.New(t.Elem()).Elem()
		at := path.Index(k)
		if v.Type().IsSetType() {
			at = path // a set's elements have no index
		}
		if err := fromCtyAt(e, ev, at); err != nil {
			return err
		}
		s = reflect.Append(s, ev)
	}
	dst.Set(s)
	return nil
}

func fromCtyMap(v cty.Value, dst reflect.Value, path cty.Path) error {
	t := dst.Type()
	if t.Key().Kind() != reflect.String || !(v.Type().IsMapType() || v.Type().IsObjectType()) {
		return path.NewErrorf("a map is needed for %s, not a %s", t, v.Type().FriendlyName())
	}
	m := reflect.MakeMapWithSize(t, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		ev := reflect.New(t.Elem()).Elem()
		if err := fromCtyAt(e, ev, path.Index(k)); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(k.AsString()).Convert(t.Key()), ev)
	}
	dst.Set(m)
	return nil
}

func fromCtyStruct(v cty.Value, dst reflect.Value, path cty.Path) error {
	t := dst.Type()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return path.NewErrorf("an object is needed for %s, not a %s", t, v.Type().FriendlyName())
	}
	for _, f := range structFields(t) {
		var fv cty.Value
		switch {
		case v.Type().IsObjectType() && v.Type().HasAttribute(f.name):
			fv = v.GetAttr(f.name)
		case v.Type().IsMapType() && v.HasIndex(cty.StringVal(f.name)).True():
			fv = v.Index(cty.StringVal(f.name))
		default:
			continue
		}
		if err := fromCtyAt(fv, dst.Field(f.index), path.GetAttr(f.name)); err != nil {
			return err
		}
	}
	return nil
}

// natural is a value as Go code would write it in an `any`: string,
// float64, bool, []any and map[string]any. A whole number a float64
// cannot hold exactly (an id such as 7227701560655103598) is an int64, or a
// *big.Int beyond that, so that no digit is lost.
func natural(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("it is not known yet")
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString(), nil
	case t == cty.Number:
		n := v.AsBigFloat()
		f, acc := n.Float64()
		if acc == big.Exact || !n.IsInt() {
			return f, nil
		}
		if i, acc := n.Int64(); acc == big.Exact {
			return i, nil
		}
		i, _ := n.Int(nil)
		return i, nil
	case t == cty.Bool:
		return v.True(), nil
	case t.IsListType() || t.IsSetType() || t.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := natural(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case t.IsMapType() || t.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			g, err := natural(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = g
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s has no Go form", strings.TrimSpace(t.FriendlyName()))
}
