package provider

import (
	"reflect"
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

	for _, tc := range []struct {
		name            string
		config, planned cty.Value
		want            []string
	}{
		{"computed values chosen", obj("a", "", noSize, null, 80), obj("a", "z1", noSize, unknown, 80), nil},
		{"configured value changed", obj("a", "", cty.NumberIntVal(2), null), obj("b", "", cty.NumberIntVal(2), unknown), []string{".name: planned value does not match the configured value"}},
		{"unset optional planned", obj("a", "", noSize, null), obj("a", "", cty.NumberIntVal(3), unknown), []string{".size: planned a value where the configuration sets none"}},
		{"set optional-computed kept", obj("a", "z2", noSize, null), obj("a", "z1", noSize, unknown), []string{".zone: planned value does not match the configured value"}},
		{"block dropped", obj("a", "", noSize, null, 80, 443), obj("a", "", noSize, unknown, 80), []string{".rule: 1 blocks where 2 were expected"}},
		{"nested value changed", obj("a", "", noSize, null, 80), obj("a", "", noSize, unknown, 81), []string{".rule[0].port: planned value does not match the configured value"}},
	} {
		t.Run("plan/"+tc.name, func(t *testing.T) {
			if got := PlanProblems(block, tc.config, tc.planned); !reflect.DeepEqual(got, tc.want) {
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
