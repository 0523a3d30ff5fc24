package ctytype

import (
	"encoding/json"

	"github.com/zclconf/go-cty/cty"
)

// FromJSON decodes a type in cty's JSON form from one json.Unmarshal. It
// says false for anything that is not plainly valid, for cty to decide.
func FromJSON(b []byte) (cty.Type, bool) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return cty.NilType, false
	}
	return FromDecoded(v)
}

// FromDecoded is FromJSON for a type already decoded by encoding/json
// (strings, []any and map[string]any), as inside a larger document.
func FromDecoded(v any) (cty.Type, bool) {
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
			ety, ok := FromDecoded(v[1])
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
				if atys[name], ok = FromDecoded(a); !ok {
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
				if etys[i], ok = FromDecoded(e); !ok {
					return cty.NilType, false
				}
			}
			return cty.Tuple(etys), true
		}
	}
	return cty.NilType, false
}
