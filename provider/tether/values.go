package tether

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/zclconf/go-cty/cty"
)

// attr reads an attribute without trusting the caller: a null object, or
// one of some other shape, yields null rather than a panic inside cty.
func attr(obj cty.Value, name string) cty.Value {
	if v, ok := ctysame.PlainAttr(obj, name); ok {
		return v // nearly every call: one look-up of the type, not two
	}
	ty := obj.Type()
	if !ty.IsObjectType() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	aty, ok := ctysame.AttrType(ty, name)
	if !ok {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	if obj.IsNull() {
		return cty.NullVal(aty)
	}
	return ctysame.Attr(obj, name)
}

// knownString returns the string v holds when it is known and not null.
func knownString(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", false
	}
	return v.AsString(), true
}

// knownInt returns the number v holds when it is known, not null and whole.
// ok is false when there is nothing to check yet; isInt is false when v
// holds a number that is not a whole int64.
func knownInt(v cty.Value) (n int64, ok, isInt bool) {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return 0, false, false
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return 0, true, false
	}
	i, acc := bf.Int64()
	if acc != big.Exact {
		return 0, true, false
	}
	return i, true, true
}

// pathExtra ties a diagnostic to the attribute it is about, so that the
// protocol adapter can send Terraform an attribute path and the engine can
// point at the attribute's expression in the configuration.
type pathExtra struct{ path cty.Path }

func (e pathExtra) AttributePath() cty.Path { return e.path }

// attrError is a diagnostic about the value of the attribute name; its
// path in Extra names it, and lets the engine point at the argument that
// set it, so detail need not.
func attrError(name, detail string) *hcl.Diagnostic {
	d := diagnostic.Error("Invalid attribute value", detail)
	d.Extra = pathExtra{cty.GetAttrPath(name)}
	return d
}

// opError is a diagnostic about an operation that failed with err while
// doing what doing says ("" when the summary says it all).
func opError(summary, doing string, err error) hcl.Diagnostics {
	return hcl.Diagnostics{diagnostic.Wrap(summary, doing, err)}
}

// changed reports whether an attribute that forces replacement has changed.
// An unknown new value may differ once known, so it counts as a change, as
// Terraform counts it.
func changed(prior, planned cty.Value) bool {
	if !prior.IsKnown() || !planned.IsKnown() {
		return true
	}
	eq := planned.Equals(prior)
	return !eq.IsKnown() || eq.False()
}
