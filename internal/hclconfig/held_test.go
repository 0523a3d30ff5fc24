package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/provider"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

var heldSchema = &provider.Block{Attributes: map[string]*provider.Attribute{
	"input":    {Type: cty.String, Required: true},
	"delay_ms": {Type: cty.Number, Optional: true},
	"tags":     {Type: cty.Map(cty.String), Optional: true},
	"id":       {Type: cty.String, Computed: true},
}}

// heldCases are resource bodies of arguments only, after a few lines, so
// that every range is away from the file's start.
var heldCases = []struct{ name, body string }{
	{"literal", "  input = \"v1\"\n"},
	{"empty string", "  input = \"\"\n"},
	{"number and string", "  delay_ms = 5\n  input    = \"v-x\"\n"},
	{"reference", "  input = var.x\n  delay_ms = 5\n"},
	{"template", "  input = \"v-${var.x}\"\n"},
	{"wrong type", "  input = [\"a\"]\n  tags = { a = \"b\" }\n"},
	{"heredoc", "  input = <<EOT\nline\nEOT\n"},
	{"null", "  input = \"x\"\n  delay_ms = null\n"},
}

// parseHeld parses a file of a variable and a resource with body, and
// returns a loader that knows the file, the resource block and its body.
func parseHeld(t *testing.T, body string) (*loader, *hcl.Block, *hclsyntax.Body) {
	t.Helper()
	src := "variable \"x\" {\n  default = \"x\"\n}\n\nresource \"t_v\" \"r\" {\n" + body + "}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "dir/main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	blk := f.Body.(*hclsyntax.Body).Blocks[1]
	l := newLoader(t.TempDir(), Options{})
	l.cfg.Sources["dir/main.tf"] = f.Bytes
	return l, blk.AsHCLBlock(), blk.Body
}

// sameAttrs reports how got and want differ, "" when they do not: each
// argument's name, ranges, and its expression's ranges, references and
// value without a context.
func sameAttrs(got, want hcl.Attributes) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d arguments, want %d", len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		if g == nil {
			return "no " + name
		}
		if g.Name != w.Name || g.Range != w.Range || g.NameRange != w.NameRange || g.Expr.Range() != w.Expr.Range() || g.Expr.StartRange() != w.Expr.StartRange() {
			return fmt.Sprintf("%s: %+v, want %+v", name, g, w)
		}
		if gv, wv := fmt.Sprint(g.Expr.Variables()), fmt.Sprint(w.Expr.Variables()); gv != wv {
			return fmt.Sprintf("%s references %s, want %s", name, gv, wv)
		}
		gv, gd := g.Expr.Value(nil)
		wv, wd := w.Expr.Value(nil)
		if !gv.RawEquals(wv) || !slices.Equal(diagStrings(gd), diagStrings(wd)) {
			return fmt.Sprintf("%s = %#v %v, want %#v %v", name, gv, gd, wv, wd)
		}
	}
	return ""
}

// sameContent reports where got and its diagnostics differ from want's.
func sameContent(t *testing.T, what string, got *hcl.BodyContent, gotDiags hcl.Diagnostics, want *hcl.BodyContent, wantDiags hcl.Diagnostics) {
	t.Helper()
	switch {
	case !slices.Equal(diagStrings(gotDiags), diagStrings(wantDiags)):
		t.Errorf("%s: %v, want %v", what, gotDiags, wantDiags)
	case got.MissingItemRange != want.MissingItemRange || len(got.Blocks) != len(want.Blocks):
		t.Errorf("%s: %+v, want %+v", what, got, want)
	default:
		if d := sameAttrs(got.Attributes, want.Attributes); d != "" {
			t.Errorf("%s: %s", what, d)
		}
	}
}

// TestHeldBodyReadsAsParsed checks that a heldBody reads as the body
// hclsyntax parsed, for every schema: the arguments with their ranges,
// the remainder of a PartialContent, hclsyntax's own diagnostics for a
// missing or an unexpected argument, and the syntax tree parsed again.
func TestHeldBodyReadsAsParsed(t *testing.T) {
	schemas := map[string]*hcl.BodySchema{
		"all":        {Attributes: []hcl.AttributeSchema{{Name: "input", Required: true}, {Name: "delay_ms"}, {Name: "tags"}}},
		"input":      {Attributes: []hcl.AttributeSchema{{Name: "input"}}},
		"required":   {Attributes: []hcl.AttributeSchema{{Name: "delay_ms", Required: true}}},
		"with block": {Attributes: []hcl.AttributeSchema{{Name: "input"}}, Blocks: []hcl.BlockHeaderSchema{{Type: "tags"}}},
		"none":       {},
	}
	for _, tc := range heldCases {
		t.Run(tc.name, func(t *testing.T) {
			l, blk, sb := parseHeld(t, tc.body)
			h := l.holdBody(blk, sb, new(heldOne))
			if h == nil {
				t.Fatal("not held")
			}
			again, diags := h.syntax()
			if diags.HasErrors() || !reflect.DeepEqual(again, sb) {
				t.Fatalf("parsed again: %#v %v, want %#v", again, diags, sb)
			}
			if h.MissingItemRange() != sb.MissingItemRange() {
				t.Errorf("missing item range %v, want %v", h.MissingItemRange(), sb.MissingItemRange())
			}
			gotJust, gd := h.JustAttributes()
			wantJust, wd := sb.JustAttributes()
			if d := sameAttrs(gotJust, wantJust); d != "" || !slices.Equal(diagStrings(gd), diagStrings(wd)) {
				t.Errorf("JustAttributes: %s %v, want %v", d, gd, wd)
			}
			for name, s := range schemas {
				got, gd := h.Content(s)
				want, wd := sb.Content(s)
				sameContent(t, "Content("+name+")", got, gd, want, wd)
				got, gotRest, gd := h.PartialContent(s)
				want, wantRest, wd := sb.PartialContent(s)
				sameContent(t, "PartialContent("+name+")", got, gd, want, wd)
				for restName, rs := range schemas {
					got, gd := gotRest.Content(rs)
					want, wd := wantRest.Content(rs)
					sameContent(t, "PartialContent("+name+") then Content("+restName+")", got, gd, want, wd)
				}
				gotAttrs, gd := gotRest.JustAttributes()
				wantAttrs, wd := wantRest.JustAttributes()
				if d := sameAttrs(gotAttrs, wantAttrs); d != "" || !slices.Equal(diagStrings(gd), diagStrings(wd)) {
					t.Errorf("PartialContent(%s) then JustAttributes: %s %v, want %v", name, d, gd, wd)
				}
				// As hcldec reads it for an evaluation.
				got, gd = heldRefs{h}.Content(s)
				want, wd = argsBody{sb}.Content(s)
				sameContent(t, "heldRefs Content("+name+")", got, gd, want, wd)
				for an, a := range got.Attributes {
					if _, ok := a.Expr.(referenceExpr); !ok {
						t.Errorf("heldRefs Content(%s): %s is not wrapped to resolve references: %T", name, an, a.Expr)
					}
				}
			}
		})
	}
}

// TestHeldDecoder checks that a held body decodes as hcldec decodes the
// body as parsed: the same value, and the same diagnostics with the same
// ranges, for literals, references and a value of the wrong type; and
// that a body of literals only is decoded without its evaluation context
// unless a diagnostic needs it.
func TestHeldDecoder(t *testing.T) {
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"x": cty.StringVal("X")})}}
	for _, tc := range heldCases {
		t.Run(tc.name, func(t *testing.T) {
			l, blk, sb := parseHeld(t, tc.body)
			content := l.argsContent(sb, heldSchema)
			if content == nil {
				t.Fatal("not arguments only")
			}
			n := &config.Node{Kind: config.Resource, Type: "t_v", Source: "example.com/t/t"}
			spec, key := l.bodySpec(n, schemabody.Spec(heldSchema), content)
			want, wantDiags := hcldec.Decode(argsBody{sb}, spec, ctx)

			h := l.holdBody(blk, sb, new(heldOne))
			d, ok := newHeldDecoder(h, l.heldPlan(key, spec))
			if !ok {
				t.Fatal("no held decoder")
			}
			calls := 0
			got, gotDiags := d.decode(func() *hcl.EvalContext { calls++; return ctx })
			if !got.RawEquals(want) {
				t.Errorf("value %#v, want %#v", got, want)
			}
			if g, w := diagStrings(gotDiags), diagStrings(wantDiags); !slices.Equal(g, w) {
				t.Errorf("diagnostics\n%q\nwant\n%q", g, w)
			}
			if wantCalls := 0; !h.literalOnly() || wantDiags.HasErrors() {
				wantCalls = 1
				if calls != wantCalls {
					t.Errorf("the context was made %d times, want %d", calls, wantCalls)
				}
			} else if calls != 0 {
				t.Errorf("the context was made %d times for literals only", calls)
			}
			// hcldec reads the held body as the parsed one too.
			again, againDiags := hcldec.Decode(heldRefs{h}, spec, ctx)
			if !again.RawEquals(want) || !slices.Equal(diagStrings(againDiags), diagStrings(wantDiags)) {
				t.Errorf("hcldec of the held body: %#v %v, want %#v %v", again, againDiags, want, wantDiags)
			}
		})
	}
}

func diagStrings(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		s := fmt.Sprintf("%v %s: %s", d.Severity, d.Summary, d.Detail)
		if d.Subject != nil {
			s += " at " + d.Subject.String()
		}
		if d.Context != nil {
			s += " in " + d.Context.String()
		}
		s += fmt.Sprintf(" expr %v ctx %v", d.Expression != nil, d.EvalContext != nil)
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestLoadLetsGoOfResourceBodies loads a resource of arguments only and
// checks that hclsyntax's tree of its body is not held once the
// configuration is loaded, while the node still evaluates, finds its
// arguments' ranges and writes its Terraform form from it.
func TestLoadLetsGoOfResourceBodies(t *testing.T) {
	dir := t.TempDir()
	text := "resource \"tether_value\" \"a\" {\n  input = \"v1\"\n}\n\nresource \"tether_value\" \"b\" {\n  input = tether_value.a.output\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files := &Files{}
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	opts := Options{Files: files, Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}}
	if _, diags := RequirementsOf(dir, opts); diags.HasErrors() {
		t.Fatal(diags)
	}
	bodies := map[string]weak.Pointer[hclsyntax.Body]{}
	for _, rf := range files.read {
		for _, b := range rf.file.Body.(*hclsyntax.Body).Blocks {
			bodies[b.Labels[1]] = weak.Make(b.Body)
		}
	}
	cfg, diags := Load(dir, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runtime.GC()
	for name, p := range bodies {
		if p.Value() != nil {
			t.Errorf("the body of tether_value.%s is still held once the configuration is loaded", name)
		}
	}
	nodes := map[string]*config.Node{}
	for _, n := range cfg.Nodes {
		nodes[n.Addr] = n
	}
	a, b := nodes["tether_value.a"], nodes["tether_value.b"]
	v, diags := a.Eval.Evaluate(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }), config.NoInstance)
	if diags.HasErrors() || !v.GetAttr("input").RawEquals(cty.StringVal("v1")) {
		t.Errorf("tether_value.a evaluates to %#v %v", v, diags)
	}
	for _, o := range []string{"o1", "o2"} {
		out := cty.ObjectVal(map[string]cty.Value{"output": cty.StringVal(o), "input": cty.StringVal("v1")})
		v, diags = b.Eval.Evaluate(config.ScopeFunc(func(string) cty.Value { return out }), config.NoInstance)
		if diags.HasErrors() || !v.GetAttr("input").RawEquals(cty.StringVal(o)) {
			t.Errorf("tether_value.b evaluates to %#v %v, want input %s", v, diags, o)
		}
	}
	if r, ok := b.Attrs.AttrRange(cty.GetAttrPath("input")); !ok || r.String() != "main.tf:6,11-32" {
		t.Errorf("tether_value.b's input is at %v %v, want main.tf:6,11-32", r, ok)
	}
	if r, ok := b.Attrs.AttrRange(cty.GetAttrPath("delay_ms")); ok {
		t.Errorf("tether_value.b's delay_ms, which it does not set, is at %v", r)
	}
	tf, diags := a.Terraform.TerraformJSON()
	if got := fmt.Sprint(tf); diags.HasErrors() || got != "map[input:v1]" {
		t.Errorf("tether_value.a's Terraform form %s %v, want map[input:v1]", got, diags)
	}
	runtime.KeepAlive(files)
}

// TestLoadAllocationsPerResource checks what loading costs a resource of
// arguments only, the files already parsed (as a command has them): its
// node with its syntax, held body, evaluation and Terraform form, one
// allocation (its block's hcl.Block and its address are made with
// others'). It was 9 while the block, the address, the decoder and
// closures for Eval, Terraform and the pending resolution were each made
// apart; 15 while the node and its syntax, the body, its argument and its
// literal were too, and a literal's value was made again; 29 while the
// body was taken apart again for each step of the load. The garbage
// collector's share of a large run grows with every one.
func TestLoadAllocationsPerResource(t *testing.T) {
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	allocs := func(n int) float64 {
		dir := t.TempDir()
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "resource \"tether_value\" \"r%d\" {\n  input = \"v%d\"\n}\n\n", i, i)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var least uint64
		for range 3 {
			opts := Options{Files: &Files{}, Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}}
			if _, diags := RequirementsOf(dir, opts); diags.HasErrors() {
				t.Fatal(diags)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			Load(dir, opts)
			runtime.ReadMemStats(&after)
			if d := after.Mallocs - before.Mallocs; least == 0 || d < least {
				least = d
			}
		}
		return float64(least)
	}
	small, large := allocs(10), allocs(1010)
	if per := (large - small) / 1000; per > 1.5 {
		t.Errorf("%.1f allocations per resource (%v for 10, %v for 1,010)", per, small, large)
	}
}

// TestResolveNothingHoldsNothing checks that a node that refers to
// nothing, most nodes of a large configuration, leaves no entry among the
// loader's resolved references, which are held for the whole run.
func TestResolveNothingHoldsNothing(t *testing.T) {
	l := newLoader(t.TempDir(), Options{})
	m := &module{l: l, dir: l.dir}
	n := &config.Node{Kind: config.Resource, Addr: "tether_value.a", Type: "tether_value", Name: "a"}
	if refs := m.resolve(n, nil, ""); len(refs) != 0 {
		t.Fatalf("references %v, want none", refs)
	}
	if len(l.evalRefs) != 0 {
		t.Errorf("the loader holds %d entries of references for a node that has none", len(l.evalRefs))
	}
}

// TestHeldDecodeOfLiterals checks what evaluating a body of literals
// costs an instance: the object's map of values and nothing else, where
// go-cty's ObjectVal made three maps and a conversion to an argument of
// any type made two closures; and that the objects of two resources hold
// one type.
func TestHeldDecodeOfLiterals(t *testing.T) {
	schema, diags := tetherprovider.New().GetSchema()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	dir := t.TempDir()
	text := "resource \"tether_value\" \"a\" {\n  input = \"v1\"\n}\n\nresource \"tether_value\" \"b\" {\n  input = \"v2\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Files: &Files{}, Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}}
	if _, diags := RequirementsOf(dir, opts); diags.HasErrors() {
		t.Fatal(diags)
	}
	cfg, diags := Load(dir, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var vals []cty.Value
	for _, n := range cfg.Nodes {
		if n.Kind != config.Resource {
			continue
		}
		eval := func() cty.Value {
			v, diags := n.Eval.Evaluate(config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal }), config.NoInstance)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			return v
		}
		vals = append(vals, eval())
		if allocs := testing.AllocsPerRun(10, func() { eval() }); allocs > 2 {
			t.Errorf("%s: evaluating its literals made %v allocations", n.Addr, allocs)
		}
	}
	if len(vals) != 2 {
		t.Fatalf("%d nodes", len(vals))
	}
	for i, want := range []string{"v1", "v2"} {
		if got := vals[i].GetAttr("input"); !got.RawEquals(cty.StringVal(want)) {
			t.Errorf("input %#v, want %q", got, want)
		}
	}
	ty := func(v cty.Value) [2]uintptr { t := v.Type(); return *(*[2]uintptr)(unsafe.Pointer(&t)) }
	if ty(vals[0]) != ty(vals[1]) {
		t.Errorf("the objects of two resources hold two types")
	}
}

// TestResourceNodeSize checks the size of what the loader holds for each
// resource for a whole run, made at once: its node, syntax, evaluation
// and held body of one argument (resourceNode). Past 896 bytes, Go's size
// class, it costs every resource of a large run more.
func TestResourceNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(resourceNode{}); got > 896 {
		t.Errorf("a resourceNode is %d bytes, more than 896", got)
	}
}

// TestTopContent checks that topContent gives what Content(topSchema)
// gives, whether it makes the blocks itself or leaves them to Content.
func TestTopContent(t *testing.T) {
	for name, src := range map[string]string{
		"blocks":         "terraform {}\nresource \"a\" \"b\" {\n  x = 1\n}\ndata \"c\" \"d\" {}\nephemeral \"e\" \"f\" {}\nvariable \"v\" {}\nmodule \"m\" {}\nresource \"a\" \"g\" {}\n",
		"argument":       "x = 1\nresource \"a\" \"b\" {}\n",
		"unknown block":  "resource \"a\" \"b\" {}\nthing {}\n",
		"missing label":  "resource \"a\" {}\nresource \"a\" \"b\" {}\n",
		"extra label":    "resource \"a\" \"b\" \"c\" {}\n",
		"labelled local": "locals \"x\" {}\n",
		"empty":          "",
	} {
		t.Run(name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(src), "main.tf", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			want, wantDiags := f.Body.Content(topSchema)
			got, gotDiags := topContent(f.Body)
			if !reflect.DeepEqual(got, want.Blocks) {
				t.Errorf("blocks %v, want %v", got, want.Blocks)
			}
			if !reflect.DeepEqual(gotDiags, wantDiags) {
				t.Errorf("diagnostics %v, want %v", gotDiags, wantDiags)
			}
		})
	}
}
