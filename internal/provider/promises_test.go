package provider

import (
	"reflect"
	"slices"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestPromises(t *testing.T) {
	block := &Block{
		Attributes: map[string]*Attribute{
			"name":  {Type: cty.String, Required: true},
			"size":  {Type: cty.Number, Optional: true},
			"zone":  {Type: cty.String, Optional: true, Computed: true},
			"id":    {Type: cty.String, Computed: true},
			"count": {Type: cty.Number, Computed: true},
		},
		BlockTypes: map[string]*NestedBlock{
			"rule": {Nesting: NestingList, Block: Block{Attributes: map[string]*Attribute{
				"port": {Type: cty.Number, Required: true},
			}}},
		},
	}
	obj := func(name, zone string, size, id cty.Value, ports ...int64) cty.Value {
		var rules []cty.Value
		for _, p := range ports {
			rules = append(rules, cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(p)}))
		}
		rl := cty.ListValEmpty(cty.Object(map[string]cty.Type{"port": cty.Number}))
		if len(rules) > 0 {
			rl = cty.ListVal(rules)
		}
		z := cty.NullVal(cty.String)
		if zone != "" {
			z = cty.StringVal(zone)
		}
		return cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal(name), "size": size, "zone": z, "id": id,
			"count": cty.UnknownVal(cty.Number), "rule": rl,
		})
	}
	null, unknown := cty.NullVal(cty.String), cty.UnknownVal(cty.String)
	noSize := cty.NullVal(cty.Number)

	none := cty.NullVal(block.ImpliedType())
	for _, tc := range []struct {
		name                   string
		prior, config, planned cty.Value
		want                   []string
	}{
		{"computed values chosen", none, obj("a", "", noSize, null, 80), obj("a", "z1", noSize, unknown, 80), nil},
		{"configured value changed", none, obj("a", "", cty.NumberIntVal(2), null), obj("b", "", cty.NumberIntVal(2), unknown), []string{".name: planned value does not match the configured value"}},
		{"unset optional planned", none, obj("a", "", noSize, null), obj("a", "", cty.NumberIntVal(3), unknown), []string{".size: planned a value where the configuration sets none"}},
		{"set optional-computed kept", none, obj("a", "z2", noSize, null), obj("a", "z1", noSize, unknown), []string{".zone: planned value does not match the configured value"}},
		{"block dropped", none, obj("a", "", noSize, null, 80, 443), obj("a", "", noSize, unknown, 80), []string{".rule: planned 1 blocks where the configuration has 2"}},
		{"nested value changed", none, obj("a", "", noSize, null, 80), obj("a", "", noSize, unknown, 81), []string{".rule[0].port: planned value does not match the configured value"}},
		// Terraform lets a provider keep a prior value it finds
		// equivalent to the configured one (a DiffSuppressFunc, a
		// semantic equality), at any depth.
		{"prior value kept", obj("A", "z1", cty.NumberIntVal(2), null, 81), obj("a", "", cty.NumberIntVal(2), null, 80), obj("A", "z1", cty.NumberIntVal(2), unknown, 81), nil},
		{"neither configured nor prior", obj("A", "", noSize, null), obj("a", "", noSize, null), obj("b", "", noSize, unknown), []string{".name: planned value does not match the configured value nor the prior value"}},
		{"unknown configured value made known", none, obj("a", "", cty.UnknownVal(cty.Number), null), obj("a", "", cty.NumberIntVal(1), unknown), []string{".size: planned value does not match the configured value"}},
		{"unknown configured value kept", none, obj("a", "", cty.UnknownVal(cty.Number), null), obj("a", "", cty.UnknownVal(cty.Number).RefineNotNull(), unknown), nil},
	} {
		t.Run("plan/"+tc.name, func(t *testing.T) {
			if got := PlanProblems(block, tc.prior, tc.config, tc.planned); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name            string
		planned, actual cty.Value
		want            []string
	}{
		{"unknowns filled", obj("a", "", noSize, unknown, 80), obj("a", "", noSize, cty.StringVal("i-1"), 80), nil},
		{"known null filled in", obj("a", "", noSize, unknown), obj("a", "z", noSize, cty.StringVal("i-1")), []string{".zone: the result differs from the planned value"}},
		{"known value changed", obj("a", "", noSize, unknown), obj("A", "", noSize, cty.StringVal("i-1")), []string{".name: the result differs from the planned value"}},
		{"promised id differs", obj("a", "", noSize, cty.StringVal("i-1")), obj("a", "", noSize, cty.StringVal("i-2")), []string{".id: the result differs from the planned value"}},
		{"numbers compared by value", obj("a", "", cty.NumberFloatVal(2.0), unknown), obj("a", "", cty.NumberIntVal(2), cty.StringVal("x")), nil},
	} {
		t.Run("result/"+tc.name, func(t *testing.T) {
			if got := ResultProblems(block, tc.planned, tc.actual); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPlanProblemsNested checks the rules for nested blocks and nested
// attributes, as Terraform's AssertPlanValid has them.
func TestPlanProblemsNested(t *testing.T) {
	inner := func() Block {
		return Block{Attributes: map[string]*Attribute{"v": {Type: cty.String, Optional: true}}}
	}
	obj := cty.Object(map[string]cty.Type{"v": cty.String})
	b := &Block{
		Attributes: map[string]*Attribute{
			"one": {Type: obj, Optional: true, Nested: &NestedAttributes{Nesting: NestingSingle,
				Attributes: map[string]*Attribute{"v": {Type: cty.String, Optional: true}}}},
		},
		BlockTypes: map[string]*NestedBlock{
			"list": {Nesting: NestingList, Block: inner()},
			"map":  {Nesting: NestingMap, Block: inner()},
		},
	}
	el := func(v string) cty.Value { return cty.ObjectVal(map[string]cty.Value{"v": cty.StringVal(v)}) }
	val := func(one, list, m cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"one": one, "list": list, "map": m})
	}
	none := cty.NullVal(b.ImpliedType())
	config := val(el("a"), cty.ListVal([]cty.Value{el("l")}), cty.MapVal(map[string]cty.Value{"k": el("m")}))
	for _, tc := range []struct {
		name    string
		planned cty.Value
		want    []string
	}{
		{"as configured", config, nil},
		{"a nested attribute planned unknown", val(cty.UnknownVal(obj), cty.ListVal([]cty.Value{el("l")}), cty.MapVal(map[string]cty.Value{"k": el("m")})),
			[]string{".one: planned unknown for a configured value"}},
		{"a block planned unknown", val(el("a"), cty.ListVal([]cty.Value{cty.UnknownVal(obj)}), cty.MapVal(map[string]cty.Value{"k": el("m")})),
			[]string{".list[0]: planned the nested block itself as unknown, where only its attributes may be"}},
		{"a map block renamed", val(el("a"), cty.ListVal([]cty.Value{el("l")}), cty.MapVal(map[string]cty.Value{"j": el("m")})),
			[]string{`.map: planned the block "j", which the configuration does not have`, `.map: planned without the block "k" of the configuration`}},
		{"a list of blocks planned null", val(el("a"), cty.NullVal(cty.List(obj)), cty.MapVal(map[string]cty.Value{"k": el("m")})),
			[]string{".list: planned null where no blocks must be an empty collection"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlanProblems(b, none, config, tc.planned); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPlanProblemsKeptPrior checks that a plan that is the prior object
// itself (read once, not walked twice) is judged exactly as an equal copy of
// it is, whatever the configuration.
func TestPlanProblemsKeptPrior(t *testing.T) {
	block := &Block{Attributes: map[string]*Attribute{
		"name": {Type: cty.String, Required: true},
		"size": {Type: cty.Number, Optional: true},
		"zone": {Type: cty.String, Optional: true, Computed: true},
		"id":   {Type: cty.String, Computed: true},
	}}
	obj := func(name string, size, zone cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(name), "size": size, "zone": zone, "id": cty.StringVal("i-1")})
	}
	prior := obj("a", cty.NumberIntVal(1), cty.StringVal("z"))
	copied := obj("a", cty.NumberIntVal(1), cty.StringVal("z"))
	configs := map[string]cty.Value{
		"the same":                  cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("a"), "size": cty.NumberIntVal(1), "zone": cty.StringVal("z"), "id": cty.NullVal(cty.String)}),
		"zone left to the provider": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("a"), "size": cty.NumberIntVal(1), "zone": cty.NullVal(cty.String), "id": cty.NullVal(cty.String)}),
		"size removed":              cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("a"), "size": cty.NullVal(cty.Number), "zone": cty.StringVal("z"), "id": cty.NullVal(cty.String)}),
		"name changed":              cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("b"), "size": cty.NumberIntVal(1), "zone": cty.StringVal("z"), "id": cty.NullVal(cty.String)}),
	}
	for name, config := range configs {
		t.Run(name, func(t *testing.T) {
			got, want := PlanProblems(block, prior, config, prior), PlanProblems(block, prior, config, copied)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("planned as the prior itself: %q; as an equal copy: %q", got, want)
			}
		})
	}
	if got := PlanProblems(block, prior, configs["size removed"], prior); len(got) != 1 {
		t.Errorf("a removed size kept in the plan: problems %q, want one", got)
	}
}

// TestPlanKeepsPrior: a plan that is the prior object, proposed as the
// prior object, is found fine without the walk only where PlanProblems
// finds nothing; anything else (a changed configured value, a null
// configuration, nested blocks or attributes, a write-only attribute, a
// copy of the prior) is left to PlanProblems, which refuses what it
// refuses.
func TestPlanKeepsPrior(t *testing.T) {
	attrs := func() map[string]*Attribute {
		return map[string]*Attribute{
			"name": {Type: cty.String, Required: true},
			"size": {Type: cty.Number, Optional: true},
			"zone": {Type: cty.String, Optional: true, Computed: true},
			"id":   {Type: cty.String, Computed: true},
		}
	}
	plain := &Block{Attributes: attrs()}
	withBlock := &Block{Attributes: attrs(), BlockTypes: map[string]*NestedBlock{"rule": {Nesting: NestingList, Block: Block{Attributes: map[string]*Attribute{"port": {Type: cty.Number, Optional: true}}}}}}
	writeOnly := &Block{Attributes: attrs()}
	writeOnly.Attributes["secret"] = &Attribute{Type: cty.String, Optional: true, WriteOnly: true}
	nested := &Block{Attributes: attrs()}
	nested.Attributes["tags"] = &Attribute{Optional: true, Nested: &NestedAttributes{Nesting: NestingSingle, Attributes: map[string]*Attribute{"k": {Type: cty.String, Optional: true}}}}
	nested.Attributes["tags"].Type = cty.Object(map[string]cty.Type{"k": cty.String})
	objOf := func(b *Block, name string, size, zone, id cty.Value) cty.Value {
		vals := map[string]cty.Value{"name": cty.StringVal(name), "size": size, "zone": zone, "id": id}
		for n, a := range b.Attributes {
			if _, ok := vals[n]; !ok {
				vals[n] = cty.NullVal(a.Type)
			}
		}
		for n, nb := range b.BlockTypes {
			vals[n] = cty.ListValEmpty(nb.Block.ImpliedType())
		}
		return cty.ObjectVal(vals)
	}
	one, z, id := cty.NumberIntVal(1), cty.StringVal("z"), cty.StringVal("i-1")
	nullNum, nullStr := cty.NullVal(cty.Number), cty.NullVal(cty.String)
	for _, tc := range []struct {
		name  string
		block *Block
		prior func(*Block) cty.Value
		cfg   func(*Block) cty.Value
		keeps bool
	}{
		{"the same", plain, nil, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr) }, true},
		{"computed left null", plain, nil, func(b *Block) cty.Value { return objOf(b, "a", one, nullStr, nullStr) }, true},
		{"name changed", plain, nil, func(b *Block) cty.Value { return objOf(b, "b", one, z, nullStr) }, false},
		{"size removed", plain, nil, func(b *Block) cty.Value { return objOf(b, "a", nullNum, z, nullStr) }, false},
		{"size unknown", plain, nil, func(b *Block) cty.Value { return objOf(b, "a", cty.UnknownVal(cty.Number), z, nullStr) }, false},
		{"null configuration", plain, nil, func(b *Block) cty.Value { return cty.NullVal(b.ImpliedType()) }, false},
		{"marked configuration", plain, nil, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr).Mark("sensitive") }, false},
		{"nested block", withBlock, nil, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr) }, false},
		{"write-only attribute", writeOnly, nil, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr) }, false},
		{"nested attribute", nested, nil, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr) }, false},
		{"null prior", plain, func(b *Block) cty.Value { return cty.NullVal(b.ImpliedType()) }, func(b *Block) cty.Value { return objOf(b, "a", one, z, nullStr) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prior := objOf(tc.block, "a", one, z, id)
			if tc.prior != nil {
				prior = tc.prior(tc.block)
			}
			config := tc.cfg(tc.block)
			uc, _ := config.Unmark()
			proposed := ProposedNew(tc.block, prior, uc)
			keeps := PlanKeepsPrior(tc.block, prior, config, proposed, prior)
			if keeps != tc.keeps {
				t.Errorf("PlanKeepsPrior = %v, want %v", keeps, tc.keeps)
			}
			if problems := PlanProblems(tc.block, prior, uc, prior); keeps && len(problems) > 0 {
				t.Errorf("PlanKeepsPrior, but PlanProblems finds %q", problems)
			}
			// An equal copy, as a plugin's answer is, is always walked.
			copied, _ := ctyjson(prior)
			if PlanKeepsPrior(tc.block, prior, config, proposed, copied) {
				t.Errorf("PlanKeepsPrior of a copy of the prior")
			}
		})
	}
	// A plan that keeps the prior size where the configuration removed
	// it is still refused.
	prior := objOf(plain, "a", one, z, id)
	config := objOf(plain, "a", nullNum, z, nullStr)
	if got := PlanProblems(plain, prior, config, prior); len(got) != 1 {
		t.Errorf("a plan keeping a size the configuration removed: problems %q, want one", got)
	}
}

// ctyjson is v made again, equal but not the same value.
func ctyjson(v cty.Value) (cty.Value, error) {
	if v.IsNull() {
		return cty.NullVal(v.Type()), nil
	}
	return cty.ObjectVal(v.AsValueMap()), nil
}

// TestResultProblemsAllocatesNothingWhenKept: checking an applied object
// of a block without nested blocks against its plan allocates nothing
// when the result keeps the plan; an apply makes this check for every
// object.
func TestResultProblemsAllocatesNothingWhenKept(t *testing.T) {
	block := &Block{Attributes: map[string]*Attribute{
		"input": {Type: cty.String, Required: true},
		"id":    {Type: cty.String, Computed: true},
	}}
	planned := cty.ObjectVal(map[string]cty.Value{"input": cty.StringVal("a"), "id": cty.UnknownVal(cty.String)})
	actual := cty.ObjectVal(map[string]cty.Value{"input": cty.StringVal("a"), "id": cty.StringVal("i-1")})
	if got := ResultProblems(block, planned, actual); got != nil {
		t.Fatalf("problems %q, want none", got)
	}
	if n := testing.AllocsPerRun(20, func() { ResultProblems(block, planned, actual) }); n > 0 {
		t.Errorf("%v allocations, want none", n)
	}
}
