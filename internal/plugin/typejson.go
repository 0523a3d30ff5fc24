package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// quickType decodes a type in cty's JSON form (see cty.Type.UnmarshalJSON)
// from one json.Unmarshal, where cty's own decoder starts a new
// json.Decoder at every level: for the AWS provider's 500 distinct types,
// 70 MB of garbage and a fifth of a second. It decodes only what is
// plainly valid, and says false for anything else, which cty then decodes
// or refuses in its own words: the two cannot disagree on a type both
// accept (TestQuickTypeIsCtys).
func quickType(b []byte) (cty.Type, bool) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return cty.NilType, false
	}
	return quickTypeOf(v)
}

func quickTypeOf(v any) (cty.Type, bool) {
	switch v := v.(type) {
	case string:
		switch v {
		case "bool":
			return cty.Bool, true
		case "number":
			return cty.Number, true
		case "string":
			return cty.String, true
		case "dynamic":
			return cty.DynamicPseudoType, true
		}
	case []any:
		if len(v) < 2 {
			return cty.NilType, false
		}
		kind, _ := v[0].(string)
		switch {
		case len(v) == 2 && (kind == "list" || kind == "set" || kind == "map"):
			ety, ok := quickTypeOf(v[1])
			if !ok {
				return cty.NilType, false
			}
			switch kind {
			case "list":
				return cty.List(ety), true
			case "set":
				return cty.Set(ety), true
			default:
				return cty.Map(ety), true
			}
		case kind == "object" && len(v) <= 3:
			attrs, ok := v[1].(map[string]any)
			if !ok {
				return cty.NilType, false
			}
			atys := make(map[string]cty.Type, len(attrs))
			for name, a := range attrs {
				if atys[name], ok = quickTypeOf(a); !ok {
					return cty.NilType, false
				}
			}
			if len(v) == 2 {
				return cty.Object(atys), true
			}
			list, ok := v[2].([]any)
			if !ok {
				return cty.NilType, false
			}
			optional := make([]string, len(list))
			for i, o := range list {
				name, ok := o.(string)
				if _, known := atys[name]; !ok || !known {
					return cty.NilType, false
				}
				optional[i] = name
			}
			return cty.ObjectWithOptionalAttrs(atys, optional), true
		case kind == "tuple" && len(v) == 2:
			list, ok := v[1].([]any)
			if !ok {
				return cty.NilType, false
			}
			etys := make([]cty.Type, len(list))
			for i, e := range list {
				if etys[i], ok = quickTypeOf(e); !ok {
					return cty.NilType, false
				}
			}
			return cty.Tuple(etys), true
		}
	}
	return cty.NilType, false
}

// ctyTypeFromJSON is cty.Type.UnmarshalJSON, with its panic on an object
// type whose optional attributes it does not have turned into the error
// it is: a provider's schema must not crash Tether.
func ctyTypeFromJSON(ty *cty.Type, b []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return ty.UnmarshalJSON(b)
}
