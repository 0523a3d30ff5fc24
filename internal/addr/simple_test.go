package addr

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestSimpleTraversalIsHCLs checks that the fast reading of common
// addresses gives what HCL's parser gives, and leaves everything else
// (escapes, templates, non-ASCII, malformed) to HCL.
func TestSimpleTraversalIsHCLs(t *testing.T) {
	for _, tc := range []struct {
		s    string
		fast bool // read without HCL
	}{
		{`tether_value.r1`, true},
		{`tether_value.r1[0]`, true},
		{`tether_value.r1[007]`, true},
		{`tether_value.r1[12345678901234567890123]`, true},
		{`data.tether_file.b["x y"]`, true},
		{`module.net["eu"].module.sub[2].tether_value.v["k-1"]`, true},
		{`module.a-b._c.aws_instance.web`, true},
		{`tether_value.r["a\"b"]`, false},
		{`tether_value.r["${x}"]`, false},
		{`tether_value.r["%{x}"]`, false},
		{`tether_value.r["é"]`, false},
		{`tether_value.é`, false},
		{`tether_value.r[1.5]`, false},
		{`tether_value.r[-1]`, false},
		{`tether_value.r["a]"]`, false},
		{`tether_value.r[]`, false},
		{`tether_value.r[`, false},
		{`tether_value..r`, false},
		{`tether_value.r.`, false},
		{`tether_value.0`, false},
		{`1tether_value.r`, false},
		{`tether_value. r`, false},
		{`tether_value.r[*]`, false},
		{``, false},
	} {
		t.Run(tc.s, func(t *testing.T) {
			got, ok := simpleTraversal(tc.s)
			if ok != tc.fast {
				t.Fatalf("simpleTraversal(%q) ok = %v, want %v", tc.s, ok, tc.fast)
			}
			if !ok {
				return
			}
			want, diags := hclsyntax.ParseTraversalAbs([]byte(tc.s), "", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("HCL refuses %q (%s), the fast reading takes it", tc.s, diags.Error())
			}
			if len(got) != len(want) {
				t.Fatalf("%q: %d steps, HCL %d", tc.s, len(got), len(want))
			}
			for i := range want {
				switch w := want[i].(type) {
				case hcl.TraverseRoot:
					if g, ok := got[i].(hcl.TraverseRoot); !ok || g.Name != w.Name {
						t.Errorf("%q step %d: %#v, HCL %#v", tc.s, i, got[i], w)
					}
				case hcl.TraverseAttr:
					if g, ok := got[i].(hcl.TraverseAttr); !ok || g.Name != w.Name {
						t.Errorf("%q step %d: %#v, HCL %#v", tc.s, i, got[i], w)
					}
				case hcl.TraverseIndex:
					if g, ok := got[i].(hcl.TraverseIndex); !ok || !g.Key.RawEquals(w.Key) || KeyString(g.Key) != KeyString(w.Key) {
						t.Errorf("%q step %d: %#v, HCL %#v", tc.s, i, got[i], w)
					}
				default:
					t.Errorf("%q step %d: HCL gives %T", tc.s, i, w)
				}
			}
		})
	}
}
