package hclconfig

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

// TestParseImportTo reads import targets as Terraform does: keys on module
// calls and on the resource, constant or of each.key and each.value, and
// evaluates them for one element of for_each.
func TestParseImportTo(t *testing.T) {
	each := config.Instance{Key: cty.NumberIntVal(1), Each: cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v")})}
	for _, tc := range []struct {
		src, static, want string
		constant          bool
	}{
		{src: `tether_file.a`, static: "tether_file.a", want: "tether_file.a", constant: true},
		{src: `tether_file.a["x"]`, static: "tether_file.a", want: `tether_file.a["x"]`, constant: true},
		{src: `module.m[0].tether_file.a`, static: "module.m.tether_file.a", want: "module.m[0].tether_file.a", constant: true},
		{src: `tether_file.a[each.key]`, static: "tether_file.a", want: "tether_file.a[1]"},
		{src: `module.m[each.value.k].tether_file.a`, static: "module.m.tether_file.a", want: `module.m["v"].tether_file.a`},
		{src: `module.m[each.value.k].module.n.tether_file.a[each.key]`, static: "module.m.module.n.tether_file.a", want: `module.m["v"].module.n.tether_file.a[1]`},
	} {
		t.Run(tc.src, func(t *testing.T) {
			expr, d := hclsyntax.ParseExpression([]byte(tc.src), "main.tf", hcl.InitialPos)
			if d.HasErrors() {
				t.Fatal(d)
			}
			a, ok := parseImportTo(expr)
			if !ok {
				t.Fatal("not read as an import target")
			}
			if got := a.static.Static(); got != tc.static {
				t.Errorf("static address %s, want %s", got, tc.static)
			}
			if _, c := a.constant(); c != tc.constant {
				t.Errorf("constant %v, want %v", c, tc.constant)
			}
			inst, d := a.instance(each)
			if d.HasErrors() {
				t.Fatal(d)
			}
			if got := inst.String(); got != tc.want {
				t.Errorf("instance %s, want %s", got, tc.want)
			}
		})
	}
	for _, src := range []string{`module[0].m.tether_file.a`, `tether_file[0].a`, `"tether_file.a"`} {
		expr, _ := hclsyntax.ParseExpression([]byte(src), "main.tf", hcl.InitialPos)
		if _, ok := parseImportTo(expr); ok {
			t.Errorf("%s read as an import target", src)
		}
	}
}
