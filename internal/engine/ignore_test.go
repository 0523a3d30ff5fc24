package engine

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// TestIgnoreChanges checks ignore_changes against Terraform 1.11's
// processIgnoreChangesIndividual: a trailing string index names a map's
// key, kept, added or removed as it was; on anything else the indexed
// value is kept whole.
func TestIgnoreChanges(t *testing.T) {
	s := cty.StringVal
	m := func(kv ...string) cty.Value {
		if len(kv) == 0 {
			return cty.MapValEmpty(cty.String)
		}
		vals := map[string]cty.Value{}
		for i := 0; i < len(kv); i += 2 {
			vals[kv[i]] = s(kv[i+1])
		}
		return cty.MapVal(vals)
	}
	o := func(v cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"input": v, "name": s("n")}) }
	obj := func(a, b string) cty.Value { return cty.ObjectVal(map[string]cty.Value{"a": s(a), "b": s(b)}) }
	b := cty.GetAttrPath("input").Index(s("b"))
	for _, tc := range []struct {
		name                string
		ignore              []cty.Path
		prior, config, want cty.Value
	}{
		{"a map key keeps its prior value", []cty.Path{b}, o(m("a", "A", "b", "1")), o(m("a", "Z", "b", "2")), o(m("a", "Z", "b", "1"))},
		{"a map key absent before stays absent", []cty.Path{b}, o(m("a", "A")), o(m("a", "A", "b", "2")), o(m("a", "A"))},
		{"a map key removed from the configuration is kept", []cty.Path{b}, o(m("a", "A", "b", "1")), o(m("a", "A")), o(m("a", "A", "b", "1"))},
		{"an object indexed by a key is kept whole", []cty.Path{b}, o(obj("A", "1")), o(obj("Z", "2")), o(obj("A", "1"))},
		{"an attribute of an object is kept alone", []cty.Path{cty.GetAttrPath("input").GetAttr("b")}, o(obj("A", "1")), o(obj("Z", "2")), o(obj("Z", "1"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ignoreChanges(config.Lifecycle{IgnoreChanges: tc.ignore}, nil, tc.prior, tc.config)
			if !got.RawEquals(tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestIgnoreAllChanges checks ignore_changes = all: the prior object is
// the configuration, less what only the provider sets, at any depth, as
// in Terraform.
func TestIgnoreAllChanges(t *testing.T) {
	block := &provider.Block{
		Attributes: map[string]*provider.Attribute{
			"name": {Type: cty.String, Required: true},
			"zone": {Type: cty.String, Optional: true, Computed: true},
			"arn":  {Type: cty.String, Computed: true},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"rule": {Nesting: provider.NestingList, Block: provider.Block{Attributes: map[string]*provider.Attribute{
				"port": {Type: cty.Number, Required: true},
				"id":   {Type: cty.String, Computed: true},
			}}},
		},
	}
	s, null := cty.StringVal, cty.NullVal(cty.String)
	obj := func(name, zone, arn, id cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": name, "zone": zone, "arn": arn,
			"rule": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"port": cty.NumberIntVal(80), "id": id})})})
	}
	prior := obj(s("a"), s("z1"), s("arn:a"), s("r-1"))
	got := ignoreChanges(config.Lifecycle{IgnoreAllChanges: true}, block, prior, obj(s("b"), null, null, null))
	if want := obj(s("a"), s("z1"), null, null); !got.RawEquals(want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}
