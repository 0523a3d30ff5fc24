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
