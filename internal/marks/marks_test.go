package marks

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestUnmarkFindsMarksAtAnyDepth checks Unmark and EphemeralPaths, whose
// quick check for an unmarked value must see a mark wherever it is.
func TestUnmarkFindsMarksAtAnyDepth(t *testing.T) {
	secret := cty.StringVal("hunter2").Mark(Sensitive)
	ephemeral := cty.StringVal("token").Mark(Ephemeral)
	obj := func(v cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": v})
	}
	for _, c := range []struct {
		name      string
		v         cty.Value
		sensitive []cty.Path
		ephemeral []cty.Path
	}{
		{"plain", obj(cty.ListVal([]cty.Value{cty.StringVal("y")})), nil, nil},
		{"null", obj(cty.NullVal(cty.String)), nil, nil},
		{"itself", secret, []cty.Path{{}}, nil},
		{"attribute", obj(secret), []cty.Path{cty.GetAttrPath("b")}, nil},
		{"list element", obj(cty.ListVal([]cty.Value{cty.StringVal("y"), secret})), []cty.Path{cty.GetAttrPath("b").IndexInt(1)}, nil},
		{"map element", obj(cty.MapVal(map[string]cty.Value{"k": secret})), []cty.Path{cty.GetAttrPath("b").IndexString("k")}, nil},
		{"tuple element", obj(cty.TupleVal([]cty.Value{cty.True, ephemeral})), nil, []cty.Path{cty.GetAttrPath("b").IndexInt(1)}},
		{"set", obj(cty.SetVal([]cty.Value{secret})), []cty.Path{cty.GetAttrPath("b")}, nil},
		{"marked null", obj(cty.NullVal(cty.String).Mark(Sensitive)), []cty.Path{cty.GetAttrPath("b")}, nil},
		{"marked unknown", obj(cty.UnknownVal(cty.String).Mark(Ephemeral)), nil, []cty.Path{cty.GetAttrPath("b")}},
		{"deep", obj(cty.ListVal([]cty.Value{obj(cty.MapVal(map[string]cty.Value{"k": secret}))})),
			[]cty.Path{cty.GetAttrPath("b").IndexInt(0).GetAttr("b").IndexString("k")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			uv, paths := Unmark(c.v)
			if uv.ContainsMarked() {
				t.Errorf("Unmark left marks in %#v", uv)
			}
			want, _ := c.v.UnmarkDeep()
			if !uv.RawEquals(want) {
				t.Errorf("Unmark = %#v, want %#v", uv, want)
			}
			if !pathsEqual(paths, c.sensitive) {
				t.Errorf("sensitive paths %#v, want %#v", paths, c.sensitive)
			}
			if got := EphemeralPaths(c.v); !pathsEqual(got, c.ephemeral) {
				t.Errorf("ephemeral paths %#v, want %#v", got, c.ephemeral)
			}
			if got := ContainsMarked(c.v); got != c.v.ContainsMarked() {
				t.Errorf("ContainsMarked = %t, go-cty says %t", got, !got)
			}
		})
	}
}

func pathsEqual(a, b []cty.Path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equals(b[i]) {
			return false
		}
	}
	return true
}
