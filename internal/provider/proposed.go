package provider

import (
	"errors"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/ctysame"
)

// ProposedNew merges a configuration of block b with the prior object the
// way Terraform does before asking a provider to plan (PlanRequest's
// ProposedNewState), by the same rules:
//
//   - an attribute the configuration sets wins, and so does one it leaves
//     null that the provider does not compute;
//   - a computed attribute the configuration leaves null keeps its prior
//     value: null on create. Marking it unknown is the provider's choice
//     in its plan, never the merge's; a provider built on the legacy SDK
//     reads an unknown there as its own "not known yet" sentinel.
//     An optional and computed nested attribute whose prior value holds
//     something only a configuration sets was configured before and is
//     now removed: it is proposed null;
//   - nested blocks and nested attributes are merged element by element,
//     paired by position (lists), key (maps), or, in sets, with the first
//     unused prior element the configured one could have become (equal
//     but for computed attributes the configuration leaves null); an
//     element with no prior partner is taken as configured.
//
// An unknown config (a dynamic block over an unknown collection) is taken
// as it is. The prior must be wholly known (a null prior is a create):
// an unknown prior is what PlannedDataObject uses to mark every computed
// value unknown. The engine and the tests that drive providers as the
// engine does (internal/providercheck) both call it, so that no copy of
// the merge can drift from the engine's.
func ProposedNew(b *Block, prior, config cty.Value) cty.Value {
	if config.IsNull() && prior.IsNull() {
		return prior
	}
	if prior.IsNull() {
		if plainConfig(b, config) {
			// A create of plain attributes proposes the configuration
			// itself: each computed attribute it leaves null takes the
			// null an empty block has there, of the same type, and
			// every other attribute is the configuration's. (Building
			// an equal object was most of a create's allocations.)
			return config
		}
		// One level of non-null object to read attributes from: what an
		// empty block decodes to.
		prior = b.EmptyValue()
	}
	return proposedBlock(b, prior, config)
}

// plainConfig reports whether merging config onto b's empty value gives
// config back: b has attributes only, none with attributes nested in it,
// and config is a known object of them in which each computed attribute
// left null is the null of the attribute's own type (the one the empty
// value has; every other attribute is taken from config as it is).
func plainConfig(b *Block, config cty.Value) bool {
	if len(b.BlockTypes) > 0 || !config.IsKnown() || config.IsNull() || config.IsMarked() || !config.Type().IsObjectType() {
		return false
	}
	ty := config.Type()
	if len(ty.AttributeTypes()) != len(b.Attributes) {
		return false
	}
	for name, a := range b.Attributes {
		if _, ok := ctysame.AttrType(ty, name); a.Nested != nil || !ok {
			return false
		}
		if a.Computed {
			if c := ctysame.Attr(config, name); c.IsNull() && !c.Type().Equals(a.Type) {
				return false
			}
		}
	}
	return true
}

// PlannedDataObject is the planned object of a data source that is read
// during apply: its configuration, with every computed attribute the
// configuration leaves null unknown. The engine plans data sources
// itself, as Terraform does, as if the provider filled in unknowns.
func PlannedDataObject(b *Block, config cty.Value) cty.Value {
	// An unknown prior makes everything taken from it unknown.
	return proposedBlock(b, cty.UnknownVal(b.ImpliedType()), config)
}

func proposedBlock(b *Block, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		// A block's configuration is never null but a single block's,
		// which does not come here; take the prior rather than an
		// invalid null, as Terraform does.
		return prior
	}
	if !prior.Type().IsObjectType() || !config.Type().IsObjectType() {
		return config
	}
	m := newMerge(prior, len(b.Attributes)+len(b.BlockTypes))
	for _, na := range b.attributeList() {
		proposedAttr(&m, na.name, na.a, prior, config)
	}
	for name, nb := range b.BlockTypes {
		p := ctysame.Attr(prior, name)
		m.set(name, p, proposedNestedBlock(nb, p, ctysame.Attr(config, name)), false)
	}
	return m.value()
}

// merge builds a proposed object value by value, with no copy while every
// value is the prior object's: a configuration that changes nothing, most
// of a large plan, proposes the prior object itself.
type merge struct {
	prior cty.Value
	attrs map[string]cty.Value // nil while every value set is the prior's
	size  int
	share bool // whether prior may stand for the result
}

// newMerge starts a merge onto prior, an object of size attributes (or
// null).
func newMerge(prior cty.Value, size int) merge {
	share := !prior.IsNull() && prior.IsKnown() && !prior.IsMarked() && prior.Type().IsObjectType() &&
		len(prior.Type().AttributeTypes()) == size
	return merge{prior: prior, size: size, share: share}
}

// keepsPrior reports whether the prior object stands for the result so
// far: setting a value that is the prior's changes nothing.
func (m *merge) keepsPrior() bool { return m.attrs == nil && m.share }

// set gives attribute name the value v; p is the prior object's value
// there, and fromPrior says v is p.
func (m *merge) set(name string, p, v cty.Value, fromPrior bool) {
	if m.attrs == nil {
		if m.keepsPrior() && (fromPrior || ctysame.RawEquals(v, p)) {
			return
		}
		m.attrs = make(map[string]cty.Value, m.size)
		if m.share {
			// The values set so far were the prior's; those not set yet
			// are set below.
			for n := range m.prior.Type().AttributeTypes() {
				m.attrs[n] = ctysame.Attr(m.prior, n)
			}
		}
	}
	m.attrs[name] = v
}

func (m *merge) value() cty.Value {
	if m.attrs == nil && m.share {
		return m.prior
	}
	return cty.ObjectVal(m.attrs)
}

// nestedSchema is a block's schema or a nested attribute's: what set
// elements are paired by and merged with.
type nestedSchema interface {
	AttributeByPath(cty.Path) *Attribute
	propose(prior, config cty.Value) cty.Value
}

func (b *Block) propose(prior, config cty.Value) cty.Value { return ProposedNew(b, prior, config) }

func (na *NestedAttributes) propose(prior, config cty.Value) cty.Value {
	if config.IsNull() {
		return config
	}
	if !prior.Type().IsObjectType() {
		prior = cty.NullVal(config.Type())
	}
	m := newMerge(prior, len(na.Attributes))
	proposedAttrs(&m, na.Attributes, prior, config)
	return m.value()
}

func proposedNestedBlock(nb *NestedBlock, prior, config cty.Value) cty.Value {
	// Only a dynamic block over an unknown collection is unknown.
	if !config.IsKnown() {
		return config
	}
	switch nb.Nesting {
	case NestingSingle:
		if config.IsNull() {
			// Not computed, so the configuration's absence wins.
			return config
		}
		return ProposedNew(&nb.Block, prior, config)
	case NestingGroup:
		return ProposedNew(&nb.Block, prior, config)
	case NestingList:
		return proposedList(&nb.Block, prior, config)
	case NestingMap:
		return proposedMap(&nb.Block, prior, config)
	case NestingSet:
		return proposedSet(&nb.Block, prior, config)
	}
	return config
}

func proposedNestedAttr(na *NestedAttributes, prior, config cty.Value) cty.Value {
	if !config.IsKnown() {
		return config
	}
	switch na.Nesting {
	case NestingSingle, NestingGroup:
		if config.IsNull() {
			return config
		}
		return na.propose(prior, config)
	case NestingList:
		return proposedList(na, prior, config)
	case NestingMap:
		return proposedMap(na, prior, config)
	case NestingSet:
		return proposedSet(na, prior, config)
	}
	return config
}

// proposedList pairs elements by position. A list of blocks with
// dynamically typed attributes is a tuple, and stays one.
func proposedList(s nestedSchema, prior, config cty.Value) cty.Value {
	if config.IsNull() || config.LengthInt() == 0 {
		return config
	}
	elems := make([]cty.Value, 0, config.LengthInt())
	for it := config.ElementIterator(); it.Next(); {
		idx, ce := it.Element()
		if prior.IsKnown() && (prior.IsNull() || !prior.HasIndex(idx).True()) {
			elems = append(elems, ce)
			continue
		}
		elems = append(elems, s.propose(prior.Index(idx), ce))
	}
	if config.Type().IsTupleType() {
		return cty.TupleVal(elems)
	}
	return cty.ListVal(elems)
}

// proposedMap pairs elements by key. A map of blocks with dynamically
// typed attributes is an object, and stays one.
func proposedMap(s nestedSchema, prior, config cty.Value) cty.Value {
	if config.IsNull() || config.LengthInt() == 0 {
		return config
	}
	priorElems := map[string]cty.Value{}
	if !prior.IsNull() && prior.IsKnown() && prior.LengthInt() > 0 {
		priorElems = prior.AsValueMap()
	}
	elems := map[string]cty.Value{}
	for k, ce := range config.AsValueMap() {
		pe, ok := priorElems[k]
		if !ok {
			elems[k] = ce
			continue
		}
		elems[k] = s.propose(pe, ce)
	}
	if config.Type().IsObjectType() {
		return cty.ObjectVal(elems)
	}
	return cty.MapVal(elems)
}

// proposedSet pairs each configured element with the first unused prior
// element it could have become. When several could, which one is taken
// does not matter: they differ only in computed values, or the
// configuration's elements would not have been distinct.
func proposedSet(s nestedSchema, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.Type().IsSetType() || config.LengthInt() == 0 {
		return config
	}
	var priorElems []cty.Value
	if prior.IsKnown() && !prior.IsNull() {
		priorElems = prior.AsValueSlice()
	}
	used := make([]bool, len(priorElems))
	var elems []cty.Value
	for _, ce := range config.AsValueSlice() {
		pe := cty.NullVal(config.Type().ElementType())
		for i, candidate := range priorElems {
			if !used[i] && couldBecome(s, candidate, ce) {
				pe, used[i] = candidate, true
				break
			}
		}
		elems = append(elems, s.propose(pe, ce))
	}
	return cty.SetVal(elems)
}

func proposedAttrs(m *merge, as map[string]*Attribute, prior, config cty.Value) {
	for name, a := range as {
		proposedAttr(m, name, a, prior, config)
	}
}

// proposedAttr sets attribute name, a, of the merge. The result does not
// depend on the order attributes are set in.
func proposedAttr(m *merge, name string, a *Attribute, prior, config cty.Value) {
	c := ctysame.Attr(config, name)
	if a.Computed && c.IsNull() && (!a.Optional || a.Nested == nil) && m.keepsPrior() {
		// The prior value is kept (wasConfigured cannot hold), and the
		// prior object stands for the result so far: nothing to read or
		// set. (Should a later attribute end the sharing, the merge
		// takes this one's prior value, as set here would.)
		return
	}
	var p cty.Value
	if prior.IsNull() {
		p = cty.NullVal(ctysame.AttributeType(prior.Type(), name))
	} else {
		p = ctysame.Attr(prior, name)
	}
	switch {
	case a.Computed && c.IsNull():
		// Whether required or optional plays no part: a computed value
		// the configuration leaves out keeps its prior value, unless
		// that value shows a configuration set it before.
		if wasConfigured(a, p) {
			m.set(name, p, c, false)
		} else {
			m.set(name, p, p, true)
		}
	case a.Nested != nil:
		m.set(name, p, proposedNestedAttr(a.Nested, p, c), false)
	default:
		m.set(name, p, c, false)
	}
}

// wasConfigured reports whether the prior value of an optional nested
// attribute holds a non-null value of an inner attribute the provider does
// not compute: only a configuration can have set that, so the
// configuration that now leaves the attribute null removed it.
func wasConfigured(a *Attribute, prior cty.Value) bool {
	if !a.Optional || a.Nested == nil {
		return false
	}
	found := false
	_ = cty.Walk(prior, func(path cty.Path, v cty.Value) (bool, error) {
		if v.IsNull() {
			return true, nil
		}
		inner := a.Nested.AttributeByPath(path)
		if inner == nil {
			return true, nil
		}
		if !inner.Computed {
			found = true
			return false, nil
		}
		return true, nil
	})
	return found
}

var errStop = errors.New("stop")

// couldBecome reports whether prior could have been planned from config:
// equal but where the schema lets the provider compute a value the
// configuration leaves null. Nested sets must be equal: their elements
// cannot be paired.
func couldBecome(s nestedSchema, prior, config cty.Value) bool {
	if unrefined(config).RawEquals(unrefined(prior)) {
		return true
	}
	ok := true
	_ = cty.Walk(prior, func(path cty.Path, pv cty.Value) (bool, error) {
		cv, err := path.Apply(config)
		if err != nil {
			// Dynamically typed values of different shapes.
			ok = false
			return false, errStop
		}
		if unrefined(cv).RawEquals(unrefined(pv)) {
			return false, nil
		}
		if cv.Type().IsSetType() {
			ok = false
			return false, errStop
		}
		a := s.AttributeByPath(path)
		switch {
		case a == nil, a.Nested != nil:
			// Not at an attribute yet, or one with attributes inside:
			// compare what is inside.
			return true, nil
		case !a.Computed || !cv.IsNull():
			ok = false
			return false, errStop
		}
		return false, nil
	})
	return ok
}

// unrefined strips the refinements of every unknown in v: two values that
// differ only in what is promised of an unknown are the same here.
func unrefined(v cty.Value) cty.Value {
	if v.IsWhollyKnown() {
		// Nothing to strip: no copy.
		return v
	}
	out, _ := cty.Transform(v, func(_ cty.Path, v cty.Value) (cty.Value, error) {
		if !v.IsKnown() {
			return cty.UnknownVal(v.Type()), nil
		}
		return v, nil
	})
	return out
}

// AttributeByPath is the attribute a path inside a block's object leads
// to, through nested blocks and nested attributes; nil where the path ends
// short of an attribute or goes past one.
func (b *Block) AttributeByPath(path cty.Path) *Attribute {
	block := b
	for i, step := range path {
		s, ok := step.(cty.GetAttrStep)
		if !ok {
			continue
		}
		if a := block.Attributes[s.Name]; a != nil {
			return attributeAt(a, path, i)
		}
		nb := block.BlockTypes[s.Name]
		if nb == nil {
			return nil
		}
		block = &nb.Block
	}
	return nil
}

// AttributeByPath is the attribute a path inside a nested attribute's
// value leads to. Steps naming nothing here are passed over, as
// Terraform passes them over.
func (na *NestedAttributes) AttributeByPath(path cty.Path) *Attribute {
	for i, step := range path {
		s, ok := step.(cty.GetAttrStep)
		if !ok {
			continue
		}
		if a := na.Attributes[s.Name]; a != nil {
			return attributeAt(a, path, i)
		}
	}
	return nil
}

// attributeAt is what path leads to from attribute a, found at its step
// i: a itself at the path's end, or what is inside a nested attribute.
func attributeAt(a *Attribute, path cty.Path, i int) *Attribute {
	switch {
	case i == len(path)-1:
		return a
	case a.Nested != nil:
		return a.Nested.AttributeByPath(path[i+1:])
	}
	return nil
}
