package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// BackendSetting converts one evaluated argument of a backend (from its
// block or a -backend-config file) to the string Settings keep: strings as
// they are, booleans as "true" or "false", whole numbers in decimal, and
// objects and collections as JSON. An attribute of an object the backend does not take is
// an error, where Terraform's conversion would drop it without a word.
func BackendSetting(v cty.Value, ty cty.Type, a *hcl.Attribute) (string, hcl.Diagnostics) {
	bad := func(detail string) (string, hcl.Diagnostics) {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid backend setting",
			Detail:   detail,
			Subject:  a.Expr.Range().Ptr(),
		}}
	}
	v, _ = v.UnmarkDeep()
	if ty.IsObjectType() && v.IsKnown() && !v.IsNull() && (v.Type().IsObjectType() || v.Type().IsMapType()) {
		for it := v.ElementIterator(); it.Next(); {
			k, _ := it.Element()
			if !ty.HasAttribute(k.AsString()) {
				return bad(fmt.Sprintf("The argument %q has no attribute %q; it takes %s.", a.Name, k.AsString(), attrList(ty)))
			}
		}
	}
	v, err := convert.Convert(v, ty)
	if err != nil {
		return bad(fmt.Sprintf("Inappropriate value for the argument %q: %s.", a.Name, err))
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		return bad(fmt.Sprintf("The argument %q needs a value known before anything is planned.", a.Name))
	}
	switch {
	case ty == cty.Bool:
		return fmt.Sprint(v.True()), nil
	case ty == cty.Number:
		bf := v.AsBigFloat()
		if !bf.IsInt() {
			return bad(fmt.Sprintf("The argument %q must be a whole number.", a.Name))
		}
		return bf.Text('f', 0), nil
	case !ty.IsPrimitiveType():
		b, err := ctyjson.Marshal(v, ty.WithoutOptionalAttributesDeep())
		if err != nil {
			return bad(fmt.Sprintf("The argument %q: %v.", a.Name, err))
		}
		return string(b), nil
	}
	return v.AsString(), nil
}

func attrList(ty cty.Type) string {
	var names []string
	for n := range ty.AttributeTypes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// TerraformOnly refuses the arguments of Terraform's backend typ that
// Tether does not act on, saying so, wherever body (a backend block or a
// -backend-config file) names them.
func TerraformOnly(typ string, body hcl.Body) hcl.Diagnostics {
	attrs, _ := body.JustAttributes()
	var diags hcl.Diagnostics
	for _, name := range TerraformOnlyArguments[typ] {
		if a, ok := attrs[name]; ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unsupported backend argument",
				Detail:   fmt.Sprintf("Terraform's %s backend takes %q, but Tether does not act on it, and using the state without it would not be what the configuration asks. Remove it, or keep this state with Terraform.", typ, name),
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	return diags
}
