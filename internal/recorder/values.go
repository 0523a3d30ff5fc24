package recorder

import (
	"encoding/base64"
	"encoding/json"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	ctymsgpack "github.com/zclconf/go-cty/cty/msgpack"
)

// Unknown is how the log writes a value not known yet: an object no
// schema can produce, so it cannot be mistaken for a known value.
var Unknown = map[string]any{"$unknown": true}

// decodeDynamic decodes a DynamicValue's MessagePack or JSON form as ty.
func decodeDynamic(msgpack, js []byte, ty cty.Type) (cty.Value, error) {
	if len(msgpack) > 0 {
		return ctymsgpack.Unmarshal(msgpack, ty)
	}
	if len(js) > 0 {
		return ctyjson.Unmarshal(js, ty)
	}
	return cty.NullVal(ty), nil
}

// jsonOf is v as plain JSON data: unknowns as Unknown, numbers exactly as
// written, sets in cty's order (fixed for a given set's elements), values
// of dynamic type as their value alone.
func jsonOf(v cty.Value) any {
	switch {
	case !v.IsKnown():
		return Unknown
	case v.IsNull():
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString()
	case ty == cty.Number:
		return json.Number(v.AsBigFloat().Text('f', -1))
	case ty == cty.Bool:
		return v.True()
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, jsonOf(e))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = jsonOf(e)
		}
		return out
	}
	return nil
}

// bytesJSON is how the log writes opaque bytes (private state, raw
// state): the JSON they hold when they are JSON, else base64.
func bytesJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	return map[string]any{"$base64": base64.StdEncoding.EncodeToString(b)}
}
