package sdk

import (
	"reflect"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
)

// fieldInfo is how a struct field maps to an attribute.
type fieldInfo struct {
	index    int
	goName   string
	name     string
	required bool
	optional bool
	computed bool
}

var fieldCache sync.Map // reflect.Type -> []fieldInfo

// structFields lists the fields of a struct that make attributes: those
// tagged `tether:"name[,required|computed]"` (generated bindings), and in
// untagged structs every exported field under its Go name.
func structFields(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		fi := fieldInfo{index: i, goName: sf.Name, name: sf.Name}
		if tag, ok := sf.Tag.Lookup("tether"); ok {
			name, opt, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			fi.name = name
			switch opt {
			case "required":
				fi.required = true
			case "computed":
				fi.computed = true
			default:
				fi.optional = true
			}
		}
		out = append(out, fi)
	}
	fieldCache.Store(t, out)
	return out
}

// ctyTypeOf is the cty type that values of a Go type convert to. Object
// types in it have optional attributes, for conversion; values of it are
// made with its WithoutOptionalAttributesDeep.
func ctyTypeOf(t reflect.Type) cty.Type { return typeOf(t, false) }

// typeOf is ctyTypeOf; resolved makes a Reference[T] stand for T, as in
// the value a reference resolves to, instead of any type.
func typeOf(t reflect.Type, resolved bool) cty.Type {
	if resolved && t.Implements(refHolderType) {
		return typeOf(zeroRef(t).refElem(), true)
	}
	switch t {
	case numberType, numberInputType, bigFloatType, bigIntType:
		return cty.Number
	}
	switch t.Kind() {
	case reflect.String:
		return cty.String
	case reflect.Bool:
		return cty.Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return cty.Number
	case reflect.Pointer:
		return typeOf(t.Elem(), resolved)
	case reflect.Slice, reflect.Array:
		return cty.List(typeOf(t.Elem(), resolved))
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return cty.Map(typeOf(t.Elem(), resolved))
		}
	case reflect.Struct:
		if t.Implements(lazyHolderType) {
			return cty.DynamicPseudoType
		}
		// Every attribute is optional, so that a struct built with zero
		// fields left out converts.
		attrs := map[string]cty.Type{}
		var names []string
		for _, f := range structFields(t) {
			attrs[f.name] = typeOf(t.Field(f.index).Type, resolved)
			names = append(names, f.name)
		}
		return cty.ObjectWithOptionalAttrs(attrs, names)
	}
	return cty.DynamicPseudoType
}
