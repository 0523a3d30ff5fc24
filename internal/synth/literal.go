package synth

import (
	"encoding/json"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// These helpers are for front-ends writing their nodes' Terraform forms
// (config.Node.Terraform).

// JSON writes a known value as a JSON value of Terraform's JSON syntax.
// In an expression (template set) strings are templates, so theirs are
// escaped to mean themselves; a variable's default is literal and is not.
// Null and unknown values are null.
func JSON(v cty.Value, template bool) any {
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		if template {
			return Escape(v.AsString())
		}
		return v.AsString()
	case ty == cty.Number:
		return json.Number(v.AsBigFloat().Text('f', -1))
	case ty == cty.Bool:
		return v.True()
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, JSON(e, template))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			key := k.AsString()
			if template {
				key = Escape(key)
			}
			out[key] = JSON(e, template)
		}
		return out
	}
	return nil
}

// Native writes a known value in Terraform's native syntax, for use
// inside an interpolation.
func Native(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	return strings.TrimSpace(string(hclwrite.TokensForValue(v).Bytes()))
}

// Escape makes literal text a template that means itself.
func Escape(s string) string {
	s = strings.ReplaceAll(s, "${", "$${")
	return strings.ReplaceAll(s, "%{", "%%{")
}
