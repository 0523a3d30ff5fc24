package engine

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// Terraform holds providers to two promises, and so does the engine: a
// plan keeps every value the configuration sets (the provider may choose
// only what the configuration leaves to it), and an apply produces every
// value the plan said it would. A provider built on Terraform's legacy SDK
// says it cannot keep them exactly (LegacyTypeSystem), and is let off, as
// Terraform lets it off.
//
// The problems name attribute paths only: values may be secrets.

// planProblems lists where a planned object breaks the configuration it
// was planned from.
func planProblems(b *provider.Block, config, planned cty.Value) []string {
	var out []string
	planProblemsAt(b, config, planned, nil, &out)
	return out
}

func planProblemsAt(b *provider.Block, config, planned cty.Value, path cty.Path, out *[]string) {
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

// resultProblems lists where the object an apply produced breaks the plan.
func resultProblems(b *provider.Block, planned, actual cty.Value) []string {
	var out []string
	resultProblemsAt(b, planned, actual, nil, &out)
	return out
}

func resultProblemsAt(b *provider.Block, planned, actual cty.Value, path cty.Path, out *[]string) {
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
func nestedProblems(nb *provider.NestedBlock, want, got cty.Value, path cty.Path, out *[]string,
	check func(*provider.Block, cty.Value, cty.Value, cty.Path, *[]string)) {
	if want.IsNull() || !want.IsKnown() || !got.IsKnown() {
		return
	}
	if got.IsNull() {
		*out = append(*out, diagnostic.PathString(path)+": the block is missing")
		return
	}
	switch nb.Nesting {
	case provider.NestingSingle, provider.NestingGroup:
		check(&nb.Block, want, got, path, out)
	case provider.NestingList:
		if want.LengthInt() != got.LengthInt() {
			*out = append(*out, fmt.Sprintf("%s: %d blocks where %d were expected", diagnostic.PathString(path), got.LengthInt(), want.LengthInt()))
			return
		}
		for i := 0; i < want.LengthInt(); i++ {
			k := cty.NumberIntVal(int64(i))
			check(&nb.Block, want.Index(k), got.Index(k), append(path.Copy(), cty.IndexStep{Key: k}), out)
		}
	case provider.NestingMap:
		for it := want.ElementIterator(); it.Next(); {
			k, w := it.Element()
			if !got.HasIndex(k).True() {
				*out = append(*out, fmt.Sprintf("%s: the block %q is missing", diagnostic.PathString(path), k.AsString()))
				continue
			}
			check(&nb.Block, w, got.Index(k), append(path.Copy(), cty.IndexStep{Key: k}), out)
		}
	case provider.NestingSet:
		if want.IsWhollyKnown() && got.IsWhollyKnown() && want.LengthInt() != got.LengthInt() {
			*out = append(*out, fmt.Sprintf("%s: %d blocks where %d were expected", diagnostic.PathString(path), got.LengthInt(), want.LengthInt()))
		}
	}
}

// invalidPlan is the error for a plan that breaks the configuration, or
// nil.
func invalidPlan(n *node, in *instance, config cty.Value, resp provider.PlanResponse) *hcl.Diagnostic {
	if resp.LegacyTypeSystem {
		return nil
	}
	problems := planProblems(n.schema.Block, config, resp.PlannedState)
	if len(problems) == 0 {
		return nil
	}
	return errorDiag(in.addr, n.cfg, "Provider produced invalid plan",
		fmt.Sprintf("Provider %s planned an invalid value for %s:\n  %s\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
			displayProvider(n, in), in.addr, strings.Join(problems, "\n  ")))
}

// displayProvider names the provider of an instance for messages.
func displayProvider(n *node, in *instance) string {
	a := providerOf(n, in)
	if pc, err := addr.ParseProviderConfig(a); err == nil {
		return pc.Source.ForDisplay()
	}
	return a
}

// withoutWriteOnly sets every write-only attribute of an object to null:
// whatever a provider returns there is never recorded.
func withoutWriteOnly(b *provider.Block, v cty.Value) cty.Value {
	if !hasWriteOnly(b) || v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return v
	}
	attrs := v.AsValueMap()
	for name, a := range b.Attributes {
		if a.WriteOnly {
			attrs[name] = cty.NullVal(attrs[name].Type())
		}
	}
	for name, nb := range b.BlockTypes {
		bv := attrs[name]
		if bv.IsNull() || !bv.IsKnown() || !hasWriteOnly(&nb.Block) {
			continue
		}
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup:
			attrs[name] = withoutWriteOnly(&nb.Block, bv)
		default:
			attrs[name] = mapElements(bv, func(e cty.Value) cty.Value { return withoutWriteOnly(&nb.Block, e) })
		}
	}
	return cty.ObjectVal(attrs)
}

func hasWriteOnly(b *provider.Block) bool {
	for _, a := range b.Attributes {
		if a.WriteOnly {
			return true
		}
	}
	for _, nb := range b.BlockTypes {
		if hasWriteOnly(&nb.Block) {
			return true
		}
	}
	return false
}

// mapElements rebuilds a list, set, map, tuple or object with f applied to
// each element.
func mapElements(v cty.Value, f func(cty.Value) cty.Value) cty.Value {
	ty := v.Type()
	switch {
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		var out []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, f(e))
		}
		switch {
		case len(out) == 0:
			return v
		case ty.IsListType():
			return cty.ListVal(out)
		case ty.IsSetType():
			return cty.SetVal(out)
		}
		return cty.TupleVal(out)
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = f(e)
		}
		if len(out) == 0 {
			return v
		}
		if ty.IsMapType() {
			return cty.MapVal(out)
		}
		return cty.ObjectVal(out)
	}
	return v
}

// markWriteOnly marks the write-only attributes the configuration sets, so
// that a plan shows them as set without a value.
func markWriteOnly(b *provider.Block, after, config cty.Value) cty.Value {
	if !hasWriteOnly(b) || after.IsNull() || !after.IsKnown() || config.IsNull() || !config.IsKnown() {
		return after
	}
	var pvm []cty.PathValueMarks
	for name, a := range b.Attributes {
		if a.WriteOnly && !config.GetAttr(name).IsNull() {
			pvm = append(pvm, cty.PathValueMarks{Path: cty.GetAttrPath(name), Marks: cty.NewValueMarks(marks.WriteOnly)})
		}
	}
	if len(pvm) == 0 {
		return after
	}
	return after.MarkWithPaths(pvm)
}

// sensitiveStrings are the strings of a configuration at sensitive paths,
// long enough to recognise elsewhere.
func sensitiveStrings(config cty.Value, paths []cty.Path) []string {
	var out []string
	for _, p := range paths {
		v, err := p.Apply(config)
		if err != nil || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
			continue
		}
		if s := v.AsString(); len(s) >= 4 {
			out = append(out, s)
		}
	}
	return out
}

// markDerived marks as sensitive every string of a planned object that
// holds a sensitive input or a digest of it (a provider's checksum of a
// password, say): what is computed from a secret is as secret as it is,
// in plans, in state and in what depends on it.
func markDerived(v cty.Value, secrets []string) cty.Value {
	if len(secrets) == 0 || v.IsNull() || !v.IsKnown() {
		return v
	}
	digests := map[string]bool{}
	for _, s := range secrets {
		for _, d := range digestsOf(s) {
			digests[d.text] = true
		}
	}
	out, _ := cty.Transform(v, func(_ cty.Path, leaf cty.Value) (cty.Value, error) {
		u, _ := leaf.Unmark()
		if u.Type() != cty.String || u.IsNull() || !u.IsKnown() || leaf.HasMark(marks.Sensitive) {
			return leaf, nil
		}
		s := u.AsString()
		if digests[s] {
			return leaf.Mark(marks.Sensitive), nil
		}
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				return leaf.Mark(marks.Sensitive), nil
			}
		}
		return leaf, nil
	})
	return out
}
