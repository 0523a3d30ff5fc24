package statejson

import (
	"bytes"
	"encoding/json"

	"github.com/tetherhq/tether/internal/ctytype"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Unmarshal decodes an object in Terraform's JSON state encoding,
// as ctyjson.Unmarshal does, with one JSON decoder for the whole value:
// ctyjson starts a decoder, with its own buffer, for every attribute and
// every dynamically typed value, which made decoding state the largest
// cost of a no-op plan. Anything this does not handle the same way is
// left to ctyjson, so results and errors are ctyjson's.
func Unmarshal(raw []byte, ty cty.Type) (cty.Value, error) {
	return unmarshal(raw, ty, false)
}

// UnmarshalShared is Unmarshal, but the strings of the value it gives may
// be raw's own bytes rather than copies of them: raw must never change
// once given. The built-in provider reads recorded objects so (what state
// loaded, which nothing changes, and which the engine holds anyway): at
// 100,000 objects, the copies were two allocations each.
func UnmarshalShared(raw []byte, ty cty.Type) (cty.Value, error) {
	return unmarshal(raw, ty, true)
}

func unmarshal(raw []byte, ty cty.Type, shared bool) (cty.Value, error) {
	if v, ok := scanValue(raw, ty, shared); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err == nil && !dec.More() {
		if v, ok := valueFromJSON(doc, ty); ok {
			return v, nil
		}
	}
	return ctyjson.Unmarshal(raw, ty)
}

func valueFromJSON(doc any, ty cty.Type) (cty.Value, bool) {
	if doc == nil {
		return cty.NullVal(ty), true
	}
	switch {
	case ty == cty.String:
		s, ok := doc.(string)
		return cty.StringVal(s), ok
	case ty == cty.Bool:
		b, ok := doc.(bool)
		return cty.BoolVal(b), ok
	case ty == cty.Number:
		n, ok := doc.(json.Number)
		if !ok {
			return cty.NilVal, false
		}
		v, err := cty.ParseNumberVal(string(n))
		return v, err == nil
	case ty == cty.DynamicPseudoType:
		m, ok := doc.(map[string]any)
		if !ok || len(m) != 2 {
			return cty.NilVal, false
		}
		_, hasType := m["type"]
		_, hasValue := m["value"]
		if !hasType || !hasValue {
			return cty.NilVal, false
		}
		t, ok := ctytype.FromDecoded(m["type"])
		if !ok {
			return cty.NilVal, false
		}
		return valueFromJSON(m["value"], t)
	case ty.IsObjectType():
		m, ok := doc.(map[string]any)
		if !ok {
			return cty.NilVal, false
		}
		atys := ty.AttributeTypes()
		if len(m) > len(atys) {
			return cty.NilVal, false
		}
		if len(atys) == 0 {
			return cty.EmptyObjectVal, true
		}
		vals := make(map[string]cty.Value, len(atys))
		for name, aty := range atys {
			av, present := m[name]
			if !present {
				vals[name] = cty.NullVal(aty)
				continue
			}
			v, ok := valueFromJSON(av, aty)
			if !ok {
				return cty.NilVal, false
			}
			vals[name] = v
		}
		for name := range m {
			if _, ok := atys[name]; !ok {
				return cty.NilVal, false
			}
		}
		return cty.ObjectVal(vals), true
	case ty.IsListType(), ty.IsSetType():
		a, ok := doc.([]any)
		if !ok {
			return cty.NilVal, false
		}
		ety := ty.ElementType()
		if ety.HasDynamicTypes() {
			return cty.NilVal, false
		}
		if len(a) == 0 {
			if ty.IsListType() {
				return cty.ListValEmpty(ety), true
			}
			return cty.SetValEmpty(ety), true
		}
		vals := make([]cty.Value, len(a))
		for i, e := range a {
			v, ok := valueFromJSON(e, ety)
			if !ok {
				return cty.NilVal, false
			}
			vals[i] = v
		}
		if ty.IsListType() {
			return cty.ListVal(vals), true
		}
		return cty.SetVal(vals), true
	case ty.IsMapType():
		m, ok := doc.(map[string]any)
		if !ok {
			return cty.NilVal, false
		}
		ety := ty.ElementType()
		if ety.HasDynamicTypes() {
			return cty.NilVal, false
		}
		if len(m) == 0 {
			return cty.MapValEmpty(ety), true
		}
		vals := make(map[string]cty.Value, len(m))
		for k, e := range m {
			v, ok := valueFromJSON(e, ety)
			if !ok {
				return cty.NilVal, false
			}
			vals[k] = v
		}
		return cty.MapVal(vals), true
	case ty.IsTupleType():
		a, ok := doc.([]any)
		etys := ty.TupleElementTypes()
		if !ok || len(a) != len(etys) {
			return cty.NilVal, false
		}
		if len(a) == 0 {
			return cty.EmptyTupleVal, true
		}
		vals := make([]cty.Value, len(a))
		for i, e := range a {
			v, ok := valueFromJSON(e, etys[i])
			if !ok {
				return cty.NilVal, false
			}
			vals[i] = v
		}
		return cty.TupleVal(vals), true
	}
	return cty.NilVal, false
}
