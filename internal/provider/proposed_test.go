package provider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestProposedNewNestedAttributes checks the merge of configuration and
// prior object inside nested attributes: a computed attribute the
// configuration leaves null keeps its prior value, element by element.
func TestProposedNewNestedAttributes(t *testing.T) {
	rule := cty.Object(map[string]cty.Type{"name": cty.String, "key": cty.String})
	block := &Block{Attributes: map[string]*Attribute{
		"rules": {Type: cty.List(rule), Optional: true, Nested: &NestedAttributes{
			Nesting: NestingList,
			Attributes: map[string]*Attribute{
				"name": {Type: cty.String, Required: true},
				"key":  {Type: cty.String, Computed: true},
			},
		}},
		"settings": {Type: rule, Optional: true, Nested: &NestedAttributes{
			Nesting: NestingSingle,
			Attributes: map[string]*Attribute{
				"name": {Type: cty.String, Optional: true},
				"key":  {Type: cty.String, Computed: true},
			},
		}},
	}}
	r := func(name string, key cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(name), "key": key})
	}
	null, unknown := cty.NullVal(cty.String), cty.UnknownVal(cty.String)
	obj := func(rules []cty.Value, settings cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"rules": cty.ListVal(rules), "settings": settings})
	}
	for _, tc := range []struct {
		name                string
		prior, config, want cty.Value
	}{
		{
			name:   "create: computed inner values unknown",
			prior:  cty.NullVal(obj([]cty.Value{r("a", null)}, r("s", null)).Type()),
			config: obj([]cty.Value{r("a", null)}, r("s", null)),
			want:   obj([]cty.Value{r("a", unknown)}, r("s", unknown)),
		},
		{
			name:   "update: computed inner values kept",
			prior:  obj([]cty.Value{r("a", cty.StringVal("k-a")), r("b", cty.StringVal("k-b"))}, r("s", cty.StringVal("k-s"))),
			config: obj([]cty.Value{r("a", null), r("b", null)}, r("s", null)),
			want:   obj([]cty.Value{r("a", cty.StringVal("k-a")), r("b", cty.StringVal("k-b"))}, r("s", cty.StringVal("k-s"))),
		},
		{
			name:   "a new element's computed value is unknown",
			prior:  obj([]cty.Value{r("a", cty.StringVal("k-a"))}, r("s", cty.StringVal("k-s"))),
			config: obj([]cty.Value{r("a", null), r("b", null)}, r("s", null)),
			want:   obj([]cty.Value{r("a", cty.StringVal("k-a")), r("b", unknown)}, r("s", cty.StringVal("k-s"))),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProposedNew(block, tc.prior, tc.config); !got.RawEquals(tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}
