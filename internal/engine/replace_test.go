package engine

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestPathChanged checks the comparison of a requires-replace or
// replace_triggered_by path as Terraform makes it: a path missing on one
// side is null there.
func TestPathChanged(t *testing.T) {
	m := func(kv map[string]cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"tags": cty.MapVal(kv)})
	}
	a, b := cty.StringVal("a"), cty.StringVal("b")
	p := cty.GetAttrPath("tags").Index(cty.StringVal("k"))
	for _, tc := range []struct {
		name          string
		before, after cty.Value
		want          bool
	}{
		{"equal", m(map[string]cty.Value{"k": a}), m(map[string]cty.Value{"k": a}), false},
		{"different", m(map[string]cty.Value{"k": a}), m(map[string]cty.Value{"k": b}), true},
		{"not known yet", m(map[string]cty.Value{"k": a}), m(map[string]cty.Value{"k": cty.UnknownVal(cty.String)}), true},
		{"added", m(map[string]cty.Value{"j": a}), m(map[string]cty.Value{"k": a}), true},
		{"absent before, null after", m(map[string]cty.Value{"j": a}), m(map[string]cty.Value{"k": cty.NullVal(cty.String)}), false},
		{"absent on both sides", m(map[string]cty.Value{"j": a}), m(map[string]cty.Value{"j": b}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pathChanged(p, tc.before, tc.after); got != tc.want {
				t.Errorf("pathChanged = %v, want %v", got, tc.want)
			}
		})
	}
}
