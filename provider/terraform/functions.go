package terraform

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The provider's functions, Terraform 1.11's: values to and from the
// syntax of .tfvars files and of expressions.

func functions() map[string]function.Function {
	return map[string]function.Function{
		"encode_tfvars": encodeTfvars(),
		"decode_tfvars": decodeTfvars(),
		"encode_expr":   encodeExpr(),
	}
}

func encodeTfvars() function.Function {
	return function.New(&function.Spec{
		Description: "Writes an object as the content of a .tfvars file: an argument per attribute, sorted by name.",
		Params: []function.Parameter{{
			Name: "value", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true,
		}},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v := args[0]
			if !v.IsWhollyKnown() {
				return cty.UnknownVal(cty.String).RefineNotNull(), nil
			}
			var names []string
			switch ty := v.Type(); {
			case ty.IsObjectType():
				for name := range ty.AttributeTypes() {
					names = append(names, name)
				}
			case ty.IsMapType():
				for it := v.ElementIterator(); it.Next(); {
					k, _ := it.Element()
					names = append(names, k.AsString())
				}
			default:
				return cty.NilVal, function.NewArgErrorf(0, "invalid value to encode: must be an object whose attribute names will become the encoded variable names")
			}
			sort.Strings(names)
			f := hclwrite.NewEmptyFile()
			for _, name := range names {
				if !hclsyntax.ValidIdentifier(name) {
					return cty.NilVal, function.NewArgErrorf(0, "invalid variable name %q: must be a valid identifier, per Terraform's rules for input variable declarations", name)
				}
				e, _ := hcl.Index(v, cty.StringVal(name), nil)
				f.Body().SetAttributeValue(name, e)
			}
			return cty.StringVal(string(f.Bytes())), nil
		},
	})
}

func decodeTfvars() function.Function {
	return function.New(&function.Spec{
		Description: "Reads the content of a .tfvars file as an object: an attribute per argument.",
		Params: []function.Parameter{{
			Name: "src", Type: cty.String, AllowUnknown: true,
		}},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !args[0].IsKnown() {
				// Even the result's type depends on the text.
				return cty.DynamicVal, nil
			}
			f, diags := hclsyntax.ParseConfig([]byte(args[0].AsString()), "<decode_tfvars argument>", hcl.InitialPos)
			if diags.HasErrors() {
				return cty.NilVal, fmt.Errorf("invalid tfvars syntax: %s", diags.Error())
			}
			attrs, diags := f.Body.JustAttributes()
			if diags.HasErrors() {
				return cty.NilVal, fmt.Errorf("invalid tfvars content: %s", diags.Error())
			}
			out := make(map[string]cty.Value, len(attrs))
			for name, a := range attrs {
				// No evaluation context: constants only, as in a .tfvars
				// file.
				v, diags := a.Expr.Value(nil)
				if diags.HasErrors() {
					return cty.NilVal, fmt.Errorf("invalid expression for variable %q: %s", name, diags.Error())
				}
				out[name] = v
			}
			return cty.ObjectVal(out), nil
		},
	})
}

func encodeExpr() function.Function {
	return function.New(&function.Spec{
		Description: "Writes a value as an expression of the configuration language.",
		Params: []function.Parameter{{
			Name: "value", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true,
		}},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v := args[0]
			if v.IsWhollyKnown() {
				return cty.StringVal(string(bytes.TrimSpace(hclwrite.TokensForValue(v).Bytes()))), nil
			}
			out := cty.UnknownVal(cty.String).RefineNotNull()
			if v.Range().CouldBeNull() {
				return out, nil
			}
			// The grammar says how the text of a known-to-be-non-null
			// value starts.
			switch ty := v.Type(); {
			case ty.IsObjectType() || ty.IsMapType():
				out = out.Refine().StringPrefixFull("{").NewValue()
			case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
				out = out.Refine().StringPrefixFull("[").NewValue()
			case ty == cty.String:
				out = out.Refine().StringPrefixFull(`"`).NewValue()
			}
			return out, nil
		},
	})
}
