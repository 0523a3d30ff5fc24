package provider

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/diagnostic"
)

// Terraform holds providers to two promises, and so does the engine: a
// plan keeps every value the configuration sets (the provider may choose
// only what the configuration leaves to it), and an apply produces every
// value the plan said it would. A provider built on Terraform's legacy SDK
// says it cannot keep them exactly (LegacyTypeSystem), and is let off, as
// Terraform lets it off.
//
// The problems name attribute paths only: values may be secrets.

// PlanProblems lists where a planned object of block b breaks the
// configuration it was planned from, one line per problem, each naming an
// attribute path. It finds none when either value is null or unknown.
func PlanProblems(b *Block, config, planned cty.Value) []string {
	var out []string
	planProblemsAt(b, config, planned, nil, &out)
	return out
}

func planProblemsAt(b *Block, config, planned cty.Value, path cty.Path, out *[]string) {
	if config.IsNull() || !config.IsKnown() || planned.IsNull() || !planned.IsKnown() {
		return
	}
	for name, a := range b.Attributes {
		cv, pv := config.GetAttr(name), planned.GetAttr(name)
		p := append(path.Copy(), cty.GetAttrStep{Name: name})
		switch {
		case a.WriteOnly:
			if !pv.IsNull() {
				*out = append(*out, diagnostic.PathString(p)+": planned a value for a write-only attribute, which must be null")
			}
		case a.Computed && !a.Optional && !a.Required:
			// The provider's to choose.
		case cv.IsNull():
			if !a.Computed && !pv.IsNull() {
				*out = append(*out, diagnostic.PathString(p)+": planned a value where the configuration sets none")
			}
		case !cv.IsWhollyKnown() && a.Type.IsPrimitiveType():
			// Known only after apply: the plan cannot promise more.
		case !valueKept(cv, pv):
			*out = append(*out, diagnostic.PathString(p)+": planned value does not match the configured value")
		}
	}
	for name, nb := range b.BlockTypes {
		cv, pv := config.GetAttr(name), planned.GetAttr(name)
		p := append(path.Copy(), cty.GetAttrStep{Name: name})
		nestedProblems(nb, cv, pv, p, out, planProblemsAt)
	}
}

// valueKept reports whether a planned value keeps what the configured one
// sets. Inside a structured value, a null or unknown in the configuration
// leaves the provider free: the schema a plugin sends flattens nested
// attributes to plain types, so which inner attributes it computes is not
// known here.
func valueKept(cv, pv cty.Value) bool {
	switch {
	case !cv.IsKnown():
		return true
	case cv.IsNull():
		return true
	case !pv.IsKnown() || pv.IsNull():
		return false
	}
	ty := cv.Type()
	switch {
	case ty.IsPrimitiveType():
		return pv.Type().Equals(ty) && pv.Equals(cv).True()
	case ty.IsListType() || ty.IsTupleType():
		if !(pv.Type().IsListType() || pv.Type().IsTupleType()) || pv.LengthInt() != cv.LengthInt() {
			return false
		}
		for i := 0; i < cv.LengthInt(); i++ {
			k := cty.NumberIntVal(int64(i))
			if !valueKept(cv.Index(k), pv.Index(k)) {
				return false
			}
		}
		return true
	case ty.IsMapType() || ty.IsObjectType():
		if !(pv.Type().IsMapType() || pv.Type().IsObjectType()) {
			return false
		}
		for it := cv.ElementIterator(); it.Next(); {
			k, v := it.Element()
			if ty.IsObjectType() {
				if !pv.Type().HasAttribute(k.AsString()) {
					return false
				}
				if !valueKept(v, pv.GetAttr(k.AsString())) {
					return false
				}
				continue
			}
			if !pv.HasIndex(k).True() || !valueKept(v, pv.Index(k)) {
				return false
			}
		}
		return true
	case ty.IsSetType():
		// Set elements have no address to pair them by; a set wholly
		// known in the configuration must come back the same size.
		return !cv.IsWhollyKnown() || !pv.IsWhollyKnown() || pv.LengthInt() == cv.LengthInt()
	}
	return true
}

// ResultProblems lists where the object an apply produced breaks the plan
// it was applied from, one line per problem, each naming an attribute path.
// It finds none when either value is null or unknown.
func ResultProblems(b *Block, planned, actual cty.Value) []string {
	var out []string
	resultProblemsAt(b, planned, actual, nil, &out)
	return out
}

func resultProblemsAt(b *Block, planned, actual cty.Value, path cty.Path, out *[]string) {
	if planned.IsNull() || !planned.IsKnown() || actual.IsNull() || !actual.IsKnown() {
		return
	}
	for name, a := range b.Attributes {
		pv, av := planned.GetAttr(name), actual.GetAttr(name)
		if a.WriteOnly && !av.IsNull() {
			*out = append(*out, diagnostic.PathString(append(path.Copy(), cty.GetAttrStep{Name: name}))+": returned a value for a write-only attribute, which must be null")
			continue
		}
		if !pv.IsWhollyKnown() {
			continue
		}
		if !av.IsWhollyKnown() || !av.Equals(pv).True() {
			*out = append(*out, diagnostic.PathString(append(path.Copy(), cty.GetAttrStep{Name: name}))+": the result differs from the planned value")
		}
	}
	for name, nb := range b.BlockTypes {
		pv, av := planned.GetAttr(name), actual.GetAttr(name)
		nestedProblems(nb, pv, av, append(path.Copy(), cty.GetAttrStep{Name: name}), out, resultProblemsAt)
	}
}

// nestedProblems applies check to the blocks of one nested block type,
// paired by position or key. Sets are compared whole when the first is
// known, since their elements have no address to pair them by.
func nestedProblems(nb *NestedBlock, want, got cty.Value, path cty.Path, out *[]string,
	check func(*Block, cty.Value, cty.Value, cty.Path, *[]string)) {
	if want.IsNull() || !want.IsKnown() || !got.IsKnown() {
		return
	}
	if got.IsNull() {
		*out = append(*out, diagnostic.PathString(path)+": the block is missing")
		return
	}
	switch nb.Nesting {
	case NestingSingle, NestingGroup:
		check(&nb.Block, want, got, path, out)
	case NestingList:
		if want.LengthInt() != got.LengthInt() {
			*out = append(*out, fmt.Sprintf("%s: %d blocks where %d were expected", diagnostic.PathString(path), got.LengthInt(), want.LengthInt()))
			return
		}
		for i := 0; i < want.LengthInt(); i++ {
			k := cty.NumberIntVal(int64(i))
			check(&nb.Block, want.Index(k), got.Index(k), append(path.Copy(), cty.IndexStep{Key: k}), out)
		}
	case NestingMap:
		for it := want.ElementIterator(); it.Next(); {
			k, w := it.Element()
			if !got.HasIndex(k).True() {
				*out = append(*out, fmt.Sprintf("%s: the block %q is missing", diagnostic.PathString(path), k.AsString()))
				continue
			}
			check(&nb.Block, w, got.Index(k), append(path.Copy(), cty.IndexStep{Key: k}), out)
		}
	case NestingSet:
		if want.IsWhollyKnown() && got.IsWhollyKnown() && want.LengthInt() != got.LengthInt() {
			*out = append(*out, fmt.Sprintf("%s: %d blocks where %d were expected", diagnostic.PathString(path), got.LengthInt(), want.LengthInt()))
		}
	}
}
