package engine

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// invalidPlan is the error for a plan that breaks the configuration or
// the prior object it was planned from (proposed is the proposed new
// state the provider was given), or nil. A provider on the legacy
// SDK is let off with a warning in the log, as Terraform lets it off: its
// type system cannot keep the promises exactly.
func invalidPlan(n *node, in *instance, prior, config, proposed cty.Value, resp provider.PlanResponse) *hcl.Diagnostic {
	if provider.PlanKeepsPrior(n.schema.Block, prior, config, proposed, resp.PlannedState) {
		return nil // PlanProblems would find nothing
	}
	problems := provider.PlanProblems(n.schema.Block, prior, config, resp.PlannedState)
	if len(problems) == 0 {
		return nil
	}
	if resp.LegacyTypeSystem {
		logging.Core().Warn("tolerating an invalid plan from a provider on the legacy plugin SDK; these problems may explain confusing errors later",
			"provider", displayProvider(n, in), "address", in.addr, "problems", strings.Join(problems, "; "))
		return nil
	}
	return errorDiag(in.addr, n.cfg, "Provider produced invalid plan",
		fmt.Sprintf("Provider %s planned an invalid value for %s:\n  %s\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
			displayProvider(n, in), in.addr, strings.Join(problems, "\n  ")))
}

// refreshed is an object a provider read, its nested blocks in the
// configuration language's shape (provider.NormalizeBlocks), as Terraform
// takes every refreshed object; a fix-up is logged as a warning, as
// Terraform logs it.
func refreshed(n *node, in *instance, v cty.Value) cty.Value {
	if v == cty.NilVal || v.IsNull() || n.schema == nil || provider.BlocksNormal(n.schema.Block, v) {
		return v
	}
	out := provider.NormalizeBlocks(n.schema.Block, v)
	if !out.RawEquals(v) {
		logging.Core().Warn("a provider returned null or unknown blocks when reading an object; they were made empty", "address", in.addr)
	}
	return out
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
	if !b.HasWriteOnly() || v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
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
		if bv.IsNull() || !bv.IsKnown() || !nb.Block.HasWriteOnly() {
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
	if !b.HasWriteOnly() || after.IsNull() || !after.IsKnown() || config.IsNull() || !config.IsKnown() {
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
// or inside a collection or object there, long enough to recognise
// elsewhere.
func sensitiveStrings(config cty.Value, paths []cty.Path) []string {
	var out []string
	for _, p := range paths {
		v, err := p.Apply(config)
		if err != nil {
			continue
		}
		if v.Type() == cty.String {
			if !v.IsNull() && v.IsKnown() && len(v.AsString()) >= 4 {
				out = append(out, v.AsString())
			}
			continue
		}
		if v.Type().IsPrimitiveType() {
			continue
		}
		_ = cty.Walk(v, func(_ cty.Path, leaf cty.Value) (bool, error) {
			if leaf.Type() == cty.String && !leaf.IsNull() && leaf.IsKnown() && len(leaf.AsString()) >= 4 {
				out = append(out, leaf.AsString())
			}
			return true, nil
		})
	}
	return out
}
