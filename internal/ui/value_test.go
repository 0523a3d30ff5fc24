package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
)

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v      cty.Value
		indent int
		want   string
	}{
		{str("hi"), 0, `"hi"`},
		{str("tab\there \"q\" \\ ${x}"), 0, `"tab\there \"q\" \\ ${x}"`},
		{str("bell\a"), 0, `"bell\u0007"`},
		{cty.NumberIntVal(-42), 0, `-42`},
		{cty.NumberFloatVal(1.25), 0, `1.25`},
		{cty.MustParseNumberVal("123456789012345678901234567890"), 0, `123456789012345678901234567890`},
		{cty.True, 0, `true`},
		{cty.NullVal(cty.String), 0, `null`},
		{cty.UnknownVal(cty.String), 0, `(known after apply)`},
		{cty.DynamicVal, 0, `(known after apply)`},
		{str("x").Mark(marks.Sensitive), 0, `(sensitive value)`},
		{cty.ListValEmpty(cty.String), 0, `[]`},
		{cty.EmptyObjectVal, 0, `{}`},
		{cty.ListVal([]cty.Value{str("a"), str("b")}), 0, "[\n    \"a\",\n    \"b\",\n]"},
		{cty.ListVal([]cty.Value{str("a")}), 1, "[\n        \"a\",\n    ]"},
		{cty.MapVal(map[string]cty.Value{"b": str("2"), "a": cty.NullVal(cty.String), "long key": str("1")}), 0,
			"{\n    \"a\"        = null\n    \"b\"        = \"2\"\n    \"long key\" = \"1\"\n}"},
		{obj(map[string]cty.Value{
			"name":   str("x"),
			"gone":   cty.NullVal(cty.String),
			"nested": obj(map[string]cty.Value{"k": cty.NumberIntVal(1), "secret": str("pw").Mark(marks.Sensitive)}),
			"text":   str("one\ntwo\n"),
			"dyn":    cty.TupleVal([]cty.Value{str("a"), cty.NumberIntVal(1), cty.EmptyTupleVal}),
			"1bad":   cty.True,
		}), 0, `{
    "1bad" = true
    dyn    = [
        "a",
        1,
        [],
    ]
    name   = "x"
    nested = {
        k      = 1
        secret = (sensitive value)
    }
    text   = <<-EOT
        one
        two
    EOT
}`},
	} {
		if got := FormatValue(c.v, c.indent); got != c.want {
			t.Errorf("FormatValue(%#v, %d):\ngot:\n%s\nwant:\n%s", c.v, c.indent, got, c.want)
		}
	}
}

func TestRenderObject(t *testing.T) {
	var b bytes.Buffer
	v := obj(map[string]cty.Value{
		"id":       str("f-1"),
		"content":  str("x"),
		"password": str("hunter2").Mark(marks.Sensitive),
		"mode":     cty.NullVal(cty.String),
		"tags":     cty.MapVal(map[string]cty.Value{"env": str("prod")}),
	})
	if err := RenderObject(&b, `module.m["k"].tether_file.a[0]`, v, nil); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), `# module.m["k"].tether_file.a[0]:
resource "tether_file" "a" {
    content  = "x"
    id       = "f-1"
    password = (sensitive value)
    tags     = {
        "env" = "prod"
    }
}
`)
	b.Reset()
	if err := RenderObject(&b, "data.tether_file.cfg", obj(map[string]cty.Value{"id": str("c")}), nil); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), "# data.tether_file.cfg:\ndata \"tether_file\" \"cfg\" {\n    id = \"c\"\n}\n")
}

// sensitiveScenario renders everything this package renders, with secret
// deciding every sensitive value. Rendering it with two different sets of
// secrets must give the same text: then no byte of a secret, nor its
// length, nor its number of lines, can be in the output.
func sensitiveScenario(t *testing.T, secret func(n int) cty.Value, color bool) string {
	t.Helper()
	s := func(n int) cty.Value { return secret(n).Mark(marks.Sensitive) }
	mk := func(n int) cty.Value {
		return obj(map[string]cty.Value{
			"id":      str("f-1"),
			"content": s(n),
			"env":     cty.MapVal(map[string]cty.Value{"TOKEN": s(n + 1), "USER": str("bob")}),
			"list":    cty.ListVal([]cty.Value{str("a"), s(n + 2)}),
			"set":     cty.SetVal([]cty.Value{secret(n + 3)}).Mark(marks.Sensitive),
			"nested":  obj(map[string]cty.Value{"deep": cty.ListVal([]cty.Value{obj(map[string]cty.Value{"k": s(n + 4)})})}),
			"whole":   obj(map[string]cty.Value{"a": secret(n + 5), "b": str("plain")}).Mark(marks.Sensitive),
		})
	}
	v1, v2 := mk(0), mk(10)
	p := &plan.Plan{
		Drift: []*plan.ResourceChange{{Addr: "tether_file.d", Before: v1, After: v2}},
		Changes: []*plan.ResourceChange{
			{Addr: "tether_file.c", Action: plan.Create, After: v1},
			{Addr: "tether_file.u", Action: plan.Update, Before: v1, After: v2},
			{Addr: "tether_file.r", Action: plan.DeleteThenCreate, Before: v1, After: v2,
				RequiresReplace: []cty.Path{cty.GetAttrPath("content"), cty.GetAttrPath("list").IndexInt(1)}},
			{Addr: "tether_file.x", Action: plan.Delete, Before: v1},
			{Addr: "tether_file.w", Action: plan.Update, Before: v1.Mark(marks.Sensitive), After: v2.Mark(marks.Sensitive)},
			{Addr: "tether_file.p", Action: plan.Update,
				Before: obj(map[string]cty.Value{"v": secret(20)}), After: obj(map[string]cty.Value{"v": s(21)})},
		},
		Outputs: []*plan.OutputChange{
			{Name: "a", Action: plan.Create, After: secret(30), Sensitive: true},
			{Name: "b", Action: plan.Update, Before: secret(31), After: secret(32), Sensitive: true},
			{Name: "c", Action: plan.Delete, Before: secret(33), Sensitive: true},
			{Name: "d", Action: plan.Create, After: obj(map[string]cty.Value{"k": s(34)})},
		},
	}
	var b bytes.Buffer
	if err := RenderPlan(&b, p, Options{Color: color}); err != nil {
		t.Fatal(err)
	}
	if err := RenderObject(&b, "tether_file.c", v1, nil); err != nil {
		t.Fatal(err)
	}
	b.WriteString(FormatValue(v2, 1))
	return b.String()
}

func TestSensitiveNeverRendered(t *testing.T) {
	short := func(n int) cty.Value { return str("s3cr3t-" + string(rune('a'+n))) }
	long := func(n int) cty.Value {
		return str("a much longer\nmulti-line secret " + strings.Repeat("z", n) + "\n\x1b[31m")
	}
	for _, color := range []bool{false, true} {
		a := sensitiveScenario(t, short, color)
		b := sensitiveScenario(t, long, color)
		if a != b {
			t.Errorf("rendering depends on sensitive values:\n%s\n----\n%s", a, b)
		}
		for _, leak := range []string{"s3cr3t", "3cr3", "much longer", "multi-line"} {
			if strings.Contains(a+b, leak) {
				t.Errorf("%q rendered", leak)
			}
		}
		if !strings.Contains(a, "(sensitive value)") {
			t.Error("no sensitive placeholder rendered")
		}
	}
}
