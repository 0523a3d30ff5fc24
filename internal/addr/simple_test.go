package addr

import (
	"slices"
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

// TestPlainResourceIsHCLs checks that an address read as a plain resource
// (no module, no key) is what HCL's parser and FromTraversal make of it,
// that ParseInstance reads it without allocating, and that Split gives
// the parts it gave before for addresses with and without keys.
func TestPlainResourceIsHCLs(t *testing.T) {
	for _, tc := range []struct {
		s     string
		plain bool
	}{
		{`tether_value.r1`, true},
		{`data.tether_file.b`, true},
		{`a-b._c`, true},
		{`data.x`, false},
		{`a.b.c`, false},
		{`module.net`, false},
		{`module.net.tether_value.r`, false},
		{`tether_value.r1[0]`, false},
		{`tether_value`, false},
		{`tether_value..r`, false},
		{`tether_value.r.`, false},
		{`.tether_value.r`, false},
		{`tether_value.0`, false},
		{`tether_value.é`, false},
		{``, false},
	} {
		t.Run(tc.s, func(t *testing.T) {
			if got := plainResource(tc.s); got != tc.plain {
				t.Fatalf("plainResource(%q) = %v, want %v", tc.s, got, tc.plain)
			}
			if !tc.plain {
				return
			}
			tr, diags := hclsyntax.ParseTraversalAbs([]byte(tc.s), "", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			want, err := FromTraversal(tr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseInstance(tc.s)
			if err != nil || got.Resource != want.Resource || len(got.Module) != 0 || len(want.Module) != 0 || got.Key != want.Key {
				t.Errorf("ParseInstance(%q) = %#v, %v; HCL's reading %#v", tc.s, got, err, want)
			}
			if n := testing.AllocsPerRun(10, func() { ParseInstance(tc.s) }); n != 0 {
				t.Errorf("ParseInstance(%q) made %v allocations", tc.s, n)
			}
		})
	}
	for s, want := range map[string][]string{
		`tether_value.r1`:           {"tether_value", "r1"},
		`data.tether_file.b`:        {"data", "tether_file", "b"},
		`tether_value.r["a.b"]`:     {"tether_value", "r"},
		`module.m["x.y"].aws_vpc.v`: {"module", "m", "aws_vpc", "v"},
		`tether_value.r[0].attr`:    {"tether_value", "r", "attr"},
	} {
		if got := Split(s); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", s, got, want)
		}
	}
}
