package sdk

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/refs"
)

// eval computes the template's value from the engine's values.
func (t *tmpl) eval(sc config.Scope) (cty.Value, hcl.Diagnostics) {
	switch t.kind {
	case tKnown:
		return t.val, nil
	case tLazy:
		return t.lazy.eval(sc)
	case tConcat:
		return t.concat(sc)
	case tTuple:
		var diags hcl.Diagnostics
		vals := make([]cty.Value, len(t.elems))
		for i, e := range t.elems {
			v, d := e.eval(sc)
			diags = append(diags, d...)
			vals[i] = v
		}
		return cty.TupleVal(vals), diags
	case tObject:
		var diags hcl.Diagnostics
		vals := make(map[string]cty.Value, len(t.names))
		for i, a := range t.attrs {
			v, d := a.eval(sc)
			diags = append(diags, d...)
			vals[t.names[i]] = v
		}
		return cty.ObjectVal(vals), diags
	}
	return cty.DynamicVal, nil
}

// concat evaluates a string with tokens: each value is converted to a
// string; an unknown one makes the whole string unknown, a sensitive one
// makes it sensitive.
func (t *tmpl) concat(sc config.Scope) (cty.Value, hcl.Diagnostics) {
	var b strings.Builder
	var diags hcl.Diagnostics
	marks := cty.ValueMarks{}
	unknown := false
	for _, p := range t.parts {
		if p.lazy == nil {
			b.WriteString(p.lit)
			continue
		}
		v, d := p.lazy.eval(sc)
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.UnknownVal(cty.String), diags
		}
		if r, _, ok := refs.In(v); ok {
			if len(t.parts) == 1 {
				// A reference passed on whole, through an Output.
				return v, diags
			}
			what := "a value computed from a reference"
			if r != nil {
				what = "the reference " + r.Description()
			}
			return cty.UnknownVal(cty.String), append(diags, diagAt(t.site.pos, "Reference used inside a string",
				"%s was given a string at %s that puts %s, which holds %s, inside other text (concatenation or fmt.Sprintf). A reference has no value in the program, so it can only be passed on whole.",
				t.site.where, displayPath(t.site.path), p.lazy.desc, what))
		}
		uv, m := v.UnmarkDeep()
		for k := range m {
			marks[k] = struct{}{}
		}
		if !uv.IsWhollyKnown() {
			unknown = true
			continue
		}
		if uv.IsNull() {
			return cty.UnknownVal(cty.String), append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
				Summary: "Null value in a string",
				Detail:  fmt.Sprintf("%s is null, so it cannot be put into a string.", p.lazy.desc)})
		}
		sv, err := convert.Convert(uv, cty.String)
		if err != nil {
			return cty.UnknownVal(cty.String), append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
				Summary: "Value cannot be put into a string",
				Detail:  fmt.Sprintf("%s is a %s, which has no string form; a String() token only works for strings, numbers and booleans. Use tether.Apply to make a string from it.", p.lazy.desc, uv.Type().FriendlyName())})
		}
		b.WriteString(sv.AsString())
	}
	if unknown {
		return cty.UnknownVal(cty.String).WithMarks(marks), diags
	}
	return cty.StringVal(b.String()).WithMarks(marks), diags
}
