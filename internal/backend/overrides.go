package backend

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
)

// Overrides reads init's -backend-config arguments for a backend of type
// typ as Terraform's init reads them: KEY=VALUE, a primitive VALUE taken
// as a string and converted, any other (an object such as endpoints or
// assume_role) parsed as an HCL expression; or the name of a file of
// arguments, checked against the backend's arguments. Each argument
// replaces the block's whole, and a later one an earlier one (Terraform
// merges the bodies shallowly: an object given here is not merged into the
// block's). A lone empty -backend-config="" gives none. The result is in
// Settings' encoding.
func Overrides(typ string, args []string) (map[string]string, hcl.Diagnostics) {
	out := map[string]string{}
	if len(args) == 1 && args[0] == "" {
		return out, nil
	}
	schema := config.BackendArguments[typ]
	var diags hcl.Diagnostics
	for _, a := range args {
		k, raw, ok := strings.Cut(a, "=")
		if !ok {
			diags = append(diags, overrideFile(typ, a, out)...)
			continue
		}
		v, d := overrideValue(typ, k, raw, schema)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out[k] = v
		}
	}
	return out, diags
}

func sourceless(detail string, args ...any) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid backend configuration argument",
		Detail:   fmt.Sprintf(detail, args...),
	}}
}

// overrideValue reads one -backend-config KEY=VALUE.
func overrideValue(typ, k, raw string, schema map[string]cty.Type) (string, hcl.Diagnostics) {
	if k == "" {
		return "", sourceless("-backend-config %q: a setting is KEY=VALUE, or the name of a file.", k+"="+raw)
	}
	if slices.Contains(config.TerraformOnlyArguments[typ], k) {
		return "", sourceless("-backend-config %s: Terraform's %s backend takes %q, but Tether does not act on it; leave it out, or keep this state with Terraform.", k, typ, k)
	}
	ty, ok := schema[k]
	if !ok {
		return "", sourceless("-backend-config %s: the %q backend has no argument %q; it takes %s.", k, typ, k, argList(typ))
	}
	name := "-backend-config=" + k + "=" + raw
	attr := &hcl.Attribute{Name: k}
	var v cty.Value
	if ty.IsPrimitiveType() {
		cv, err := convert.Convert(cty.StringVal(raw), ty)
		if err != nil {
			return "", sourceless("-backend-config %s: %s, not %q.", k, err, raw)
		}
		v = cv
		attr.Expr = hcl.StaticExpr(v, hcl.Range{Filename: name})
	} else {
		expr, diags := hclsyntax.ParseExpression([]byte(raw), name, hcl.Pos{Line: 1, Column: 1, Byte: 0})
		if diags.HasErrors() {
			return "", diags
		}
		v, diags = expr.Value(nil)
		if diags.HasErrors() {
			return "", diags
		}
		attr.Expr = expr
	}
	return config.BackendSetting(v, ty, attr)
}

// overrideFile reads a -backend-config file of arguments into out.
func overrideFile(typ, name string, out map[string]string) hcl.Diagnostics {
	src, err := os.ReadFile(name)
	if err != nil {
		return sourceless("-backend-config %s: %v.", name, err)
	}
	f, diags := hclparse.NewParser().ParseHCL(src, name)
	if diags.HasErrors() {
		return diags
	}
	// Terraform checks a file against the backend's schema: an argument
	// it does not know, or a block (endpoints { } for endpoints = { }), is
	// an error at the file's line.
	schema := &hcl.BodySchema{}
	for n := range config.BackendArguments[typ] {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: n})
	}
	for _, n := range config.TerraformOnlyArguments[typ] {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: n})
	}
	content, diags := f.Body.Content(schema)
	diags = append(diags, config.TerraformOnly(typ, f.Body)...)
	if diags.HasErrors() {
		return diags
	}
	for _, a := range sortedAttrs(content.Attributes) {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		s, d := config.BackendSetting(v, config.BackendArguments[typ][a.Name], a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out[a.Name] = s
		}
	}
	return diags
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *hcl.Attribute) int { return strings.Compare(a.Name, b.Name) })
	return out
}
