package provider

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/ctysame"
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
// attribute path, by Terraform's rules (objchange.AssertPlanValid): the
// provider may choose a value only where the configuration leaves a
// computed attribute null, or keep the prior value of one whose
// configured value it finds equivalent; it never sets what the
// configuration leaves null and does not compute, changes the number of
// nested blocks, or makes a block itself unknown. prior is null for a
// create.
func PlanProblems(b *Block, prior, config, planned cty.Value) []string {
	var out []string
	planBlockProblems(b, prior, config, planned, nil, &out)
	return out
}

// PlanKeepsPrior reports that PlanProblems(b, prior, config, planned)
// finds nothing, without looking at each attribute, for a plan that is
// the prior object itself (not an equal copy: a plugin's answer, decoded
// from its bytes, never is) when the proposed new state, as ProposedNew
// made it from prior and config, was the prior object itself too. That
// is most of a large plan with nothing to do, from a provider in this
// process. Each attribute is then fine by PlanProblems' own rules:
// ProposedNew kept the prior's value only where the configuration's is
// equal to it (planned equals configured), or where a computed attribute
// is left null (the provider's to choose). Only blocks of top-level
// attributes, none write-only or nested, and a known, not null, unmarked
// configuration and prior qualify: for anything else PlanProblems walks
// as ever. A plan that keeps the prior object where the configuration
// changed what it sets is not of this kind (ProposedNew proposes the
// change, a new object), and PlanProblems refuses it.
func PlanKeepsPrior(b *Block, prior, config, proposed, planned cty.Value) bool {
	if !ctysame.Identical(planned, prior) || !ctysame.Identical(proposed, prior) {
		return false
	}
	whole := func(v cty.Value) bool {
		return !v.IsNull() && v.IsKnown() && !v.IsMarked() && v.Type().IsObjectType()
	}
	return whole(prior) && whole(config) && len(b.BlockTypes) == 0 && !b.HasWriteOnly() && !b.hasNestedAttribute()
}

func planProblem(out *[]string, path cty.Path, what string) {
	*out = append(*out, diagnostic.PathString(path)+": "+what)
}

// presenceProblem reports a planned object that is null where the
// configured one is not, or the other way round, and whether there is
// nothing more to check.
func presenceProblem(config, planned cty.Value, path cty.Path, out *[]string) bool {
	switch {
	case planned.IsNull() && !config.IsNull():
		planProblem(out, path, "planned for absence but the configuration wants it to exist")
	case config.IsNull() && !planned.IsNull():
		planProblem(out, path, "planned for existence but the configuration wants it absent")
	}
	return planned.IsNull() || config.IsNull()
}

func planBlockProblems(b *Block, prior, config, planned cty.Value, path cty.Path, out *[]string) {
	if presenceProblem(config, planned, path, out) {
		return
	}
	planAttrsProblems(b.Attributes, prior, config, planned, path, out)
	for name, nb := range b.BlockTypes {
		p := append(path.Copy(), cty.GetAttrStep{Name: name})
		pv, cv := ctysame.Attr(planned, name), ctysame.Attr(config, name)
		prv := cty.NullVal(cv.Type())
		if !prior.IsNull() {
			prv = ctysame.Attr(prior, name)
		}
		switch {
		case ctysame.RawEquals(pv, cv):
			continue
		case !cv.IsKnown():
			planProblem(out, p, "planned a value for a dynamic block whose for_each is not known yet")
			continue
		case !pv.IsKnown():
			planProblem(out, p, "planned the nested block itself as unknown, where only its attributes may be")
			continue
		}
		nestedBlockProblems(nb, prv, cv, pv, p, out)
	}
}

func nestedBlockProblems(nb *NestedBlock, prior, config, planned cty.Value, path cty.Path, out *[]string) {
	if nb.Nesting == NestingSingle || nb.Nesting == NestingGroup {
		planBlockProblems(&nb.Block, prior, config, planned, path, out)
		return
	}
	if planned.IsNull() {
		planProblem(out, path, "planned null where no blocks must be an empty collection")
		return
	}
	if config.IsNull() {
		// A legacy provider's null kept by ignore_changes: no blocks.
		config = emptyLike(config)
	}
	elemPrior := func(k cty.Value) cty.Value {
		if e, ok := element(prior, k); ok {
			return e
		}
		return cty.NullVal(nb.Block.ImpliedType())
	}
	switch nb.Nesting {
	case NestingList:
		if planned.LengthInt() != config.LengthInt() {
			planProblem(out, path, fmt.Sprintf("planned %d blocks where the configuration has %d", planned.LengthInt(), config.LengthInt()))
			return
		}
		for it := planned.ElementIterator(); it.Next(); {
			k, pe := it.Element()
			p := append(path.Copy(), cty.IndexStep{Key: k})
			if !pe.IsKnown() {
				planProblem(out, p, "planned the nested block itself as unknown, where only its attributes may be")
				continue
			}
			planBlockProblems(&nb.Block, elemPrior(k), config.Index(k), pe, p, out)
		}
	case NestingMap:
		// A map of blocks is an object when they have dynamically typed
		// attributes; both are walked by key.
		for it := planned.ElementIterator(); it.Next(); {
			k, pe := it.Element()
			p := append(path.Copy(), cty.IndexStep{Key: k})
			ce, ok := element(config, k)
			if !ok {
				planProblem(out, path, fmt.Sprintf("planned the block %q, which the configuration does not have", k.AsString()))
				continue
			}
			if !pe.IsKnown() {
				planProblem(out, p, "planned the nested block itself as unknown, where only its attributes may be")
				continue
			}
			planBlockProblems(&nb.Block, elemPrior(k), ce, pe, p, out)
		}
		for it := config.ElementIterator(); it.Next(); {
			if k, _ := it.Element(); !hasElement(planned, k) {
				planProblem(out, path, fmt.Sprintf("planned without the block %q of the configuration", k.AsString()))
			}
		}
	case NestingSet:
		// Set elements have nothing to pair them by: only that each is
		// known can be checked, as Terraform checks.
		for it := planned.ElementIterator(); it.Next(); {
			if _, pe := it.Element(); !pe.IsKnown() {
				planProblem(out, path, "planned a nested block itself as unknown, where only its attributes may be")
			}
		}
	}
}

// element is the element of a known collection at key k: a list's or
// tuple's by position, a map's by key, an object's by attribute name.
func element(v, k cty.Value) (cty.Value, bool) {
	if v.IsNull() || !v.IsKnown() || !hasElement(v, k) {
		return cty.NilVal, false
	}
	if v.Type().IsObjectType() {
		return ctysame.Attr(v, k.AsString()), true
	}
	return v.Index(k), true
}

func hasElement(v, k cty.Value) bool {
	if v.IsNull() || !v.IsKnown() {
		return false
	}
	if v.Type().IsObjectType() {
		return k.Type() == cty.String && v.Type().HasAttribute(k.AsString())
	}
	return v.HasIndex(k).True()
}

// emptyLike is an empty collection of the type of a null one.
func emptyLike(v cty.Value) cty.Value {
	ty := v.Type()
	switch {
	case ty.IsListType():
		return cty.ListValEmpty(ty.ElementType())
	case ty.IsSetType():
		return cty.SetValEmpty(ty.ElementType())
	case ty.IsMapType():
		return cty.MapValEmpty(ty.ElementType())
	case ty.IsTupleType():
		return cty.EmptyTupleVal
	case ty.IsObjectType():
		return cty.EmptyObjectVal
	}
	return v
}

func planAttrsProblems(as map[string]*Attribute, prior, config, planned cty.Value, path cty.Path, out *[]string) {
	// A plan that keeps the prior object (nothing changes: most of a
	// large plan) has the prior's values: each is read once.
	keptPrior := ctysame.Identical(prior, planned)
	for name, a := range as {
		get := func(v cty.Value) cty.Value {
			if v.IsNull() {
				return cty.NullVal(a.Type)
			}
			return ctysame.Attr(v, name)
		}
		pv := get(planned)
		prv := pv
		if !keptPrior {
			prv = get(prior)
		}
		planAttrProblems(a, prv, get(config), pv, path, name, out)
	}
}

// planAttrProblems checks attribute name of the object at parent. Its
// path is made only to name a problem or to go inside: nearly every
// attribute has none.
func planAttrProblems(a *Attribute, prior, config, planned cty.Value, parent cty.Path, name string, out *[]string) {
	path := func() cty.Path { return append(parent.Copy(), cty.GetAttrStep{Name: name}) }
	up := unrefined(planned)
	switch {
	case a.WriteOnly:
		// Terraform checks this apart, before anything else.
		if !planned.IsNull() {
			planProblem(out, path(), "planned a value for a write-only attribute, which must be null")
		}
		return
	case ctysame.RawEquals(up, unrefined(config)):
		return
	case ctysame.RawEquals(up, unrefined(prior)) && !prior.IsNull() && !config.IsNull():
		// The provider found the configured value equivalent to the
		// prior one and keeps it.
		return
	case a.Computed && !a.Optional:
		// The provider's to choose.
		return
	case config.IsNull() && a.Computed:
		return
	case config.IsNull() && !planned.IsNull():
		planProblem(out, path(), "planned a value where the configuration sets none")
		return
	case a.Nested != nil:
		nestedAttrProblems(a.Nested, prior, config, planned, path(), out)
	case prior.IsNull():
		planProblem(out, path(), "planned value does not match the configured value")
	default:
		planProblem(out, path(), "planned value does not match the configured value nor the prior value")
	}
}

func nestedAttrProblems(na *NestedAttributes, prior, config, planned cty.Value, path cty.Path, out *[]string) {
	if presenceProblem(config, planned, path, out) {
		return
	}
	if !planned.IsKnown() {
		planProblem(out, path, "planned unknown for a configured value")
		return
	}
	if na.Nesting == NestingSingle || na.Nesting == NestingGroup {
		planAttrsProblems(na.Attributes, prior, config, planned, path, out)
		return
	}
	pl, cl := planned.Length(), config.Length()
	if na.Nesting == NestingSet {
		if in := pl.Range().Includes(cl); in.IsKnown() && in.False() {
			planProblem(out, path, "planned a number of elements the configuration does not have")
		}
		return
	}
	if !pl.IsKnown() && !cl.IsKnown() {
		return
	}
	if eq := pl.Equals(cl); !eq.IsKnown() || eq.False() {
		planProblem(out, path, "planned a number of elements the configuration does not have")
		return
	}
	for it := planned.ElementIterator(); it.Next(); {
		k, pe := it.Element()
		p := append(path.Copy(), cty.IndexStep{Key: k})
		ce, ok := element(config, k)
		if !ok {
			if na.Nesting == NestingMap {
				planProblem(out, p, "planned an element the configuration does not have")
			}
			continue
		}
		pr, ok := element(prior, k)
		if !ok {
			pr = cty.NullVal(pe.Type())
		}
		planAttrsProblems(na.Attributes, pr, ce, pe, p, out)
	}
	if na.Nesting == NestingMap {
		for it := config.ElementIterator(); it.Next(); {
			if k, _ := it.Element(); !hasElement(planned, k) {
				planProblem(out, append(path.Copy(), cty.IndexStep{Key: k}), "planned without an element of the configuration")
			}
		}
	}
}

// ResultProblems lists where the object an apply produced breaks the plan
// it was applied from, one line per problem, each naming an attribute path.
// It finds none when either value is null or unknown.
func ResultProblems(b *Block, planned, actual cty.Value) []string {
	out := resultAttrProblems(b, planned, actual, nil, nil)
	if len(b.BlockTypes) > 0 {
		// Only here does the list leave this function (nestedProblems
		// takes a pointer to it): an apply of a block without nested
		// blocks and without problems allocates nothing.
		more := out
		resultBlockProblems(b, planned, actual, nil, &more)
		out = more
	}
	return out
}

func resultProblemsAt(b *Block, planned, actual cty.Value, path cty.Path, out *[]string) {
	*out = resultAttrProblems(b, planned, actual, path, *out)
	resultBlockProblems(b, planned, actual, path, out)
}

// resultAttrProblems is resultProblemsAt's check of b's attributes,
// appending to out.
func resultAttrProblems(b *Block, planned, actual cty.Value, path cty.Path, out []string) []string {
	if planned.IsNull() || !planned.IsKnown() || actual.IsNull() || !actual.IsKnown() {
		return out
	}
	for name, a := range b.Attributes {
		pv, av := ctysame.Attr(planned, name), ctysame.Attr(actual, name)
		if a.WriteOnly && !av.IsNull() {
			out = append(out, diagnostic.PathString(append(path.Copy(), cty.GetAttrStep{Name: name}))+": returned a value for a write-only attribute, which must be null")
			continue
		}
		if ctysame.Identical(av, pv) || !pv.IsWhollyKnown() {
			// The planned value itself (as the built-in provider
			// returns what it does not compute), or one not promised.
			continue
		}
		if !av.IsWhollyKnown() || !av.RawEquals(pv) && !av.Equals(pv).True() {
			out = append(out, diagnostic.PathString(append(path.Copy(), cty.GetAttrStep{Name: name}))+": the result differs from the planned value")
		}
	}
	return out
}

// resultBlockProblems is resultProblemsAt's check of b's nested blocks.
func resultBlockProblems(b *Block, planned, actual cty.Value, path cty.Path, out *[]string) {
	if planned.IsNull() || !planned.IsKnown() || actual.IsNull() || !actual.IsKnown() {
		return
	}
	for name, nb := range b.BlockTypes {
		pv, av := ctysame.Attr(planned, name), ctysame.Attr(actual, name)
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
