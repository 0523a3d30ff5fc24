package ui

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
)

func obj(attrs map[string]cty.Value) cty.Value { return cty.ObjectVal(attrs) }

var str = cty.StringVal

func renderPlan(t *testing.T, p *plan.Plan, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := RenderPlan(&b, p, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func checkText(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s\ndiff at byte %d", got, want, firstDiff(got, want))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

const legendCreate = `Tether used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create

Tether will perform the following actions:
`

func TestRenderPlanCreate(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{{
		Addr:   "tether_file.a",
		Action: plan.Create,
		Before: cty.NullVal(cty.DynamicPseudoType),
		After: obj(map[string]cty.Value{
			"id":       cty.UnknownVal(cty.String),
			"filename": str("a.txt"),
			"content":  str("hello\n\n\tworld\n"),
			"mode":     cty.NullVal(cty.String),
			"size":     cty.NumberIntVal(12),
			"ratio":    cty.NumberFloatVal(0.5),
			"exec":     cty.False,
			"labels":   cty.MapVal(map[string]cty.Value{"env": str("prod"), "team name": str("ops")}),
			"ports":    cty.ListVal([]cty.Value{cty.NumberIntVal(80), cty.UnknownVal(cty.Number)}),
			"rules": cty.ListVal([]cty.Value{obj(map[string]cty.Value{
				"from": cty.NumberIntVal(1), "note": cty.NullVal(cty.String),
			})}),
			"empty": cty.SetValEmpty(cty.String),
		}),
	}}}
	checkText(t, renderPlan(t, p, Options{}), legendCreate+`
  # tether_file.a will be created
  + resource "tether_file" "a" {
      + content  = <<-EOT
            hello

            	world
        EOT
      + empty    = []
      + exec     = false
      + filename = "a.txt"
      + id       = (known after apply)
      + labels   = {
          + "env"       = "prod"
          + "team name" = "ops"
        }
      + ports    = [
          + 80,
          + (known after apply),
        ]
      + ratio    = 0.5
      + rules    = [
          + {
              + from = 1
            },
        ]
      + size     = 12
    }

Plan: 1 to add, 0 to change, 0 to destroy.
`)
}

func TestRenderPlanUpdate(t *testing.T) {
	before := obj(map[string]cty.Value{
		"id":       str("f-1"),
		"filename": str("a.txt"),
		"content":  str("one"),
		"perm":     str("0644"),
		"owner":    str("root"),
		"tags":     cty.MapVal(map[string]cty.Value{"a": str("1"), "b": str("2"), "c": str("3")}),
		"list":     cty.ListVal([]cty.Value{str("a"), str("b"), str("c"), str("d"), str("e"), str("f")}),
		"note":     cty.NullVal(cty.String),
		"old":      str("gone"),
	})
	after := obj(map[string]cty.Value{
		"id":       str("f-1"),
		"filename": str("a.txt"),
		"content":  str("two"),
		"perm":     str("0644"),
		"owner":    str("root"),
		"tags":     cty.MapVal(map[string]cty.Value{"a": str("1"), "b": str("two"), "d": str("4")}),
		"list":     cty.ListVal([]cty.Value{str("a"), str("b"), str("c"), str("x"), str("e"), str("f"), str("g")}),
		"note":     str("new"),
		"old":      cty.NullVal(cty.String),
	})
	p := &plan.Plan{Changes: []*plan.ResourceChange{
		{Addr: "tether_file.same", Action: plan.NoOp, Before: before, After: before},
		{Addr: "tether_file.a", Action: plan.Update, Before: before, After: after},
	}}
	checkText(t, renderPlan(t, p, Options{}), `Tether used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  ~ update in-place

Tether will perform the following actions:

  # tether_file.a will be updated in-place
  ~ resource "tether_file" "a" {
      ~ content  = "one" -> "two"
        id       = "f-1"
      ~ list     = [
            # (2 unchanged elements hidden)
            "c",
          - "d",
          + "x",
            "e",
            "f",
          + "g",
        ]
      + note     = "new"
      - old      = "gone" -> null
      ~ tags     = {
          ~ "b" = "2" -> "two"
          - "c" = "3" -> null
          + "d" = "4"
            # (1 unchanged element hidden)
        }
        # (3 unchanged attributes hidden)
    }

Plan: 0 to add, 1 to change, 0 to destroy.
`)
}

func TestRenderPlanReplace(t *testing.T) {
	before := obj(map[string]cty.Value{
		"id":       str("f-1"),
		"filename": str("a.txt"),
		"content":  str("x"),
		"opts":     obj(map[string]cty.Value{"mode": str("0644"), "owner": str("root")}),
	})
	after := obj(map[string]cty.Value{
		"id":       cty.UnknownVal(cty.String),
		"filename": str("b.txt"),
		"content":  str("x"),
		"opts":     obj(map[string]cty.Value{"mode": str("0600"), "owner": str("root")}),
	})
	p := &plan.Plan{Changes: []*plan.ResourceChange{
		{
			Addr: "tether_file.a", Action: plan.DeleteThenCreate, Before: before, After: after,
			RequiresReplace: []cty.Path{cty.GetAttrPath("filename"), cty.GetAttrPath("opts").GetAttr("mode")},
		},
		{
			Addr: "module.web[\"a.b\"].tether_file.b[0]", Action: plan.CreateThenDelete, Before: before, After: after,
			RequiresReplace: []cty.Path{cty.GetAttrPath("opts")},
			Reason:          "it depends on tether_file.a, which must be replaced",
		},
	}}
	checkText(t, renderPlan(t, p, Options{}), `Tether used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
-/+ destroy and then create replacement
+/- create replacement and then destroy

Tether will perform the following actions:

  # tether_file.a must be replaced
-/+ resource "tether_file" "a" {
      ~ filename = "a.txt" -> "b.txt" # forces replacement
      ~ id       = "f-1" -> (known after apply)
      ~ opts     = {
          ~ mode  = "0644" -> "0600" # forces replacement
            # (1 unchanged attribute hidden)
        }
        # (1 unchanged attribute hidden)
    }

  # module.web["a.b"].tether_file.b[0] must be replaced
  # (because it depends on tether_file.a, which must be replaced)
+/- resource "tether_file" "b" {
      ~ filename = "a.txt" -> "b.txt"
      ~ id       = "f-1" -> (known after apply)
      ~ opts     = { # forces replacement
          ~ mode  = "0644" -> "0600"
            # (1 unchanged attribute hidden)
        }
        # (1 unchanged attribute hidden)
    }

Plan: 2 to add, 0 to change, 2 to destroy.
`)
}

func TestRenderPlanDeleteAndRead(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{
		{
			Addr: "tether_file.old", Action: plan.Delete, Reason: "tether_file.old is not in configuration",
			Before: obj(map[string]cty.Value{
				"id":    str("f-9"),
				"tags":  cty.MapVal(map[string]cty.Value{"a": str("b")}),
				"lines": cty.ListVal([]cty.Value{str("x")}),
				"null":  cty.NullVal(cty.String),
			}),
			After: cty.NullVal(cty.DynamicPseudoType),
		},
		{
			Addr: "data.tether_file.cfg", Mode: plan.Data, Action: plan.Read,
			Reason: "config refers to values not yet known",
			Before: cty.NullVal(cty.DynamicPseudoType),
			After: obj(map[string]cty.Value{
				"filename": str("cfg.txt"),
				"content":  cty.UnknownVal(cty.String),
			}),
		},
	}}
	checkText(t, renderPlan(t, p, Options{}), `Tether used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  - destroy
 <= read (data resources)

Tether will perform the following actions:

  # tether_file.old will be destroyed
  # (because tether_file.old is not in configuration)
  - resource "tether_file" "old" {
      - id    = "f-9" -> null
      - lines = [
          - "x",
        ] -> null
      - tags  = {
          - "a" = "b"
        } -> null
    }

  # data.tether_file.cfg will be read during apply
  # (because config refers to values not yet known)
 <= data "tether_file" "cfg" {
      + content  = (known after apply)
      + filename = "cfg.txt"
    }

Plan: 0 to add, 0 to change, 1 to destroy.
`)
}

func TestRenderPlanDrift(t *testing.T) {
	rec := obj(map[string]cty.Value{"id": str("f-1"), "content": str("a"), "perm": str("0644")})
	p := &plan.Plan{
		Drift: []*plan.ResourceChange{
			{Addr: "tether_file.same", Before: rec, After: rec},
			{Addr: "tether_file.a", Before: rec, After: obj(map[string]cty.Value{"id": str("f-1"), "content": str("b"), "perm": str("0644")})},
			{Addr: "tether_file.b", Before: rec, After: cty.NullVal(rec.Type())},
		},
		Changes: []*plan.ResourceChange{
			{Addr: "tether_file.b", Action: plan.Create, Before: cty.NullVal(rec.Type()), After: rec, Reason: "the file was deleted outside Tether"},
		},
	}
	checkText(t, renderPlan(t, p, Options{}), `Note: Objects have changed outside of Tether

Tether detected the following changes made outside of Tether since the
last "tether apply" which may have affected this plan:

  # tether_file.a has changed
  ~ resource "tether_file" "a" {
      ~ content = "a" -> "b"
        id      = "f-1"
        # (1 unchanged attribute hidden)
    }

  # tether_file.b has been deleted
  - resource "tether_file" "b" {
      - content = "a" -> null
      - id      = "f-1" -> null
      - perm    = "0644" -> null
    }

Unless you have made equivalent changes to your configuration, or ignored the
relevant attributes using ignore_changes, the following plan may include
actions to undo or respond to these changes.

`+strings.Repeat("─", 77)+`

`+legendCreate+`
  # tether_file.b will be created
  # (because the file was deleted outside Tether)
  + resource "tether_file" "b" {
      + content = "a"
      + id      = "f-1"
      + perm    = "0644"
    }

Plan: 1 to add, 0 to change, 0 to destroy.
`)
}

func TestRenderPlanOutputs(t *testing.T) {
	p := &plan.Plan{
		Changes: []*plan.ResourceChange{{Addr: "tether_file.a", Action: plan.Create, After: obj(map[string]cty.Value{"id": cty.UnknownVal(cty.String)})}},
		Outputs: []*plan.OutputChange{
			{Name: "unchanged", Action: plan.NoOp, Before: str("x"), After: str("x")},
			{Name: "id", Action: plan.Create, After: cty.UnknownVal(cty.String)},
			{Name: "greeting", Action: plan.Update, Before: str("hi"), After: str("hello")},
			{Name: "password", Action: plan.Update, Before: str("hunter2"), After: str("hunter3"), Sensitive: true},
			{Name: "old", Action: plan.Delete, Before: cty.ListVal([]cty.Value{str("a")})},
			{Name: "m", Action: plan.Create, After: cty.MapVal(map[string]cty.Value{"k": str("v")})},
		},
	}
	checkText(t, renderPlan(t, p, Options{}), legendCreate+`
  # tether_file.a will be created
  + resource "tether_file" "a" {
      + id = (known after apply)
    }

Plan: 1 to add, 0 to change, 0 to destroy.

Changes to Outputs:
  + id       = (known after apply)
  ~ greeting = "hi" -> "hello"
  ~ password = (sensitive value)
  - old      = [
      - "a",
    ] -> null
  + m        = {
      + "k" = "v"
    }
`)
}

func TestRenderPlanOnlyOutputs(t *testing.T) {
	p := &plan.Plan{Outputs: []*plan.OutputChange{{Name: "x", Action: plan.Create, After: str("v")}}}
	checkText(t, renderPlan(t, p, Options{}), `Changes to Outputs:
  + x = "v"

You can apply this plan to save these new output values to the Tether
state, without changing any real infrastructure.
`)
}

func TestRenderPlanNoChanges(t *testing.T) {
	v := obj(map[string]cty.Value{"id": str("1")})
	p := &plan.Plan{
		Changes: []*plan.ResourceChange{{Addr: "tether_file.a", Action: plan.NoOp, Before: v, After: v}},
		Outputs: []*plan.OutputChange{{Name: "x", Action: plan.NoOp, Before: str("v"), After: str("v")}},
	}
	checkText(t, renderPlan(t, p, Options{}), "No changes. Your infrastructure matches the configuration.\n")
	checkText(t, renderPlan(t, &plan.Plan{Destroy: true}, Options{}), "No changes. No objects need to be destroyed.\n")
}

func TestRenderPlanSensitive(t *testing.T) {
	sens := func(v cty.Value) cty.Value { return v.Mark(marks.Sensitive) }
	p := &plan.Plan{Changes: []*plan.ResourceChange{
		{
			Addr: "tether_file.a", Action: plan.Create,
			After: obj(map[string]cty.Value{
				"content": sens(str("s3cr3t")),
				"env":     cty.MapVal(map[string]cty.Value{"TOKEN": sens(str("s3cr3t")), "USER": str("bob")}),
				"keys":    sens(cty.ListVal([]cty.Value{str("s3cr3t")})),
			}),
		},
		{
			Addr: "tether_file.b", Action: plan.Update,
			Before: obj(map[string]cty.Value{"id": str("1"), "content": sens(str("s3cr3t")), "pin": str("1234"), "same": sens(str("s3cr3t"))}),
			After:  obj(map[string]cty.Value{"id": str("1"), "content": sens(str("s3cr3t\nline2")), "pin": sens(str("1234")), "same": sens(str("s3cr3t"))}),
		},
		{
			Addr: "tether_file.c", Action: plan.Delete,
			Before: sens(obj(map[string]cty.Value{"id": str("s3cr3t")})),
			After:  cty.NullVal(cty.DynamicPseudoType),
		},
	}}
	checkText(t, renderPlan(t, p, Options{}), `Tether used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  + create
  ~ update in-place
  - destroy

Tether will perform the following actions:

  # tether_file.a will be created
  + resource "tether_file" "a" {
      + content = (sensitive value)
      + env     = {
          + "TOKEN" = (sensitive value)
          + "USER"  = "bob"
        }
      + keys    = (sensitive value)
    }

  # tether_file.b will be updated in-place
  ~ resource "tether_file" "b" {
      ~ content = (sensitive value)
        id      = "1"
      # Warning: this attribute value will be marked as sensitive and will not
      # display in UI output after applying this change. The value is unchanged.
      ~ pin     = (sensitive value)
        # (1 unchanged attribute hidden)
    }

  # tether_file.c will be destroyed
  - resource "tether_file" "c" {
      - id = (sensitive value) -> null
    }

Plan: 1 to add, 1 to change, 1 to destroy.
`)
}

// TestRenderPlanElementBecomesSensitive: a list element whose value stays
// and becomes sensitive is one changed element under Terraform's warning,
// never its old value removed in clear beside a sensitive one added.
func TestRenderPlanElementBecomesSensitive(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{{
		Addr: "tether_file.l", Action: plan.Update,
		Before: obj(map[string]cty.Value{"id": str("1"), "l": cty.TupleVal([]cty.Value{str("a"), str("hello")})}),
		After:  obj(map[string]cty.Value{"id": str("1"), "l": cty.TupleVal([]cty.Value{str("a"), str("hello").Mark(marks.Sensitive)})}),
	}}}
	got := renderPlan(t, p, Options{})
	if strings.Contains(got, "hello") {
		t.Errorf("the plan shows the value in clear:\n%s", got)
	}
	want := `      ~ l  = [
            "a",
          # Warning: this attribute value will be marked as sensitive and will not
          # display in UI output after applying this change. The value is unchanged.
          ~ (sensitive value),
        ]
`
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to hold:\n%s", got, want)
	}
}

func TestRenderPlanHeredocDiff(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{{
		Addr: "tether_file.a", Action: plan.Update,
		Before: obj(map[string]cty.Value{"content": str("[main]\nport = 80\nhost = a\n")}),
		After:  obj(map[string]cty.Value{"content": str("[main]\nport = 8080\nhost = a\n\nextra\n")}),
	}}}
	got := renderPlan(t, p, Options{})
	want := `  # tether_file.a will be updated in-place
  ~ resource "tether_file" "a" {
      ~ content = <<-EOT
            [main]
          - port = 80
          + port = 8080
            host = a
          +
          + extra
        EOT
    }
`
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to contain:\n%s", got, want)
	}
}

func TestRenderPlanNestedAndDynamic(t *testing.T) {
	rule := func(port int64, proto string) cty.Value {
		return obj(map[string]cty.Value{"port": cty.NumberIntVal(port), "proto": str(proto)})
	}
	p := &plan.Plan{Changes: []*plan.ResourceChange{{
		Addr: "tether_fw.a", Action: plan.Update,
		Before: obj(map[string]cty.Value{
			"rules":  cty.ListVal([]cty.Value{rule(22, "tcp"), rule(53, "udp")}),
			"set":    cty.SetVal([]cty.Value{str("a"), str("b")}),
			"value":  str("text"),
			"tuple":  cty.TupleVal([]cty.Value{str("a"), cty.NumberIntVal(1)}),
			"ctrl":   str("a\x1b[31mb"),
			"quoted": str(`say "hi" \ bye`),
		}),
		After: obj(map[string]cty.Value{
			"rules":  cty.ListVal([]cty.Value{rule(22, "tcp"), rule(53, "tcp"), rule(80, "tcp")}),
			"set":    cty.SetVal([]cty.Value{str("b"), str("c")}),
			"value":  cty.ListVal([]cty.Value{str("text")}),
			"tuple":  cty.TupleVal([]cty.Value{str("a"), cty.NumberIntVal(2)}),
			"ctrl":   str("a\x1b[32mb"),
			"quoted": str(`say "hi" \ bye!`),
		}),
	}}}
	got := renderPlan(t, p, Options{})
	want := `  ~ resource "tether_fw" "a" {
      ~ ctrl   = "a\u001b[31mb" -> "a\u001b[32mb"
      ~ quoted = "say \"hi\" \\ bye" -> "say \"hi\" \\ bye!"
      ~ rules  = [
            # (1 unchanged element hidden)
          ~ {
              ~ proto = "udp" -> "tcp"
                # (1 unchanged attribute hidden)
            },
          + {
              + port  = 80
              + proto = "tcp"
            },
        ]
      ~ set    = [
          - "a",
          + "c",
            # (1 unchanged element hidden)
        ]
      ~ tuple  = [
            "a",
          - 1,
          + 2,
        ]
      ~ value  = "text" -> [
          + "text",
        ]
    }
`
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to contain:\n%s", got, want)
	}
}

func TestRenderPlanColor(t *testing.T) {
	v := obj(map[string]cty.Value{"a": str("1")})
	p := &plan.Plan{Changes: []*plan.ResourceChange{
		{Addr: "t.a", Action: plan.Create, After: v},
		{Addr: "t.b", Action: plan.Update, Before: v, After: obj(map[string]cty.Value{"a": str("2")})},
		{Addr: "t.c", Action: plan.Delete, Before: v},
	}}
	plain := renderPlan(t, p, Options{})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("escape codes without Color:\n%q", plain)
	}
	colored := renderPlan(t, p, Options{Color: true})
	for _, want := range []string{
		"  \x1b[32m+\x1b[0m resource \"t\" \"a\" {",
		"      \x1b[33m~\x1b[0m a = \"1\" -> \"2\"",
		"      \x1b[31m-\x1b[0m a = \"1\" -> null",
	} {
		if !strings.Contains(colored, want) {
			t.Errorf("colored output lacks %q:\n%s", want, colored)
		}
	}
	if stripANSI(colored) != plain {
		t.Errorf("colored output differs from plain beyond escape codes:\n%s", stripANSI(colored))
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestSplitAddr(t *testing.T) {
	for _, c := range []struct {
		addr      string
		data      bool
		typ, name string
	}{
		{"tether_file.a", false, "tether_file", "a"},
		{"tether_file.a[0]", false, "tether_file", "a"},
		{`tether_file.a["k.x[1]"]`, false, "tether_file", "a"},
		{"data.tether_file.cfg", true, "tether_file", "cfg"},
		{`module.net["a.b"].module.sub[2].data.tether_file.x["\"]."]`, true, "tether_file", "x"},
		{"module.m.tether_file.a", false, "tether_file", "a"},
	} {
		data, typ, name, ok := splitAddr(c.addr)
		if !ok || data != c.data || typ != c.typ || name != c.name {
			t.Errorf("splitAddr(%q) = %v %q %q %v", c.addr, data, typ, name, ok)
		}
	}
	for _, bad := range []string{"", "tether_file", "module.m", "a.b.c.d"} {
		if _, _, _, ok := splitAddr(bad); ok {
			t.Errorf("splitAddr(%q) accepted", bad)
		}
	}
}

func TestRenderPlanWriteError(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{{Addr: "t.a", Action: plan.Create, After: obj(map[string]cty.Value{"a": str("1")})}}}
	if err := RenderPlan(failWriter{}, p, Options{}); err == nil {
		t.Error("no error from a failing writer")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// bigPlan is a plan of n resources, a mix of creates, updates and
// replacements of objects with a handful of attributes each.
func bigPlan(n int) *plan.Plan {
	p := &plan.Plan{Changes: make([]*plan.ResourceChange, n)}
	for i := range n {
		before := obj(map[string]cty.Value{
			"id":       str(fmt.Sprint("f-", i)),
			"filename": str(fmt.Sprint("files/", i, ".txt")),
			"content":  str("line one\nline two\n"),
			"perm":     str("0644"),
			"tags":     cty.MapVal(map[string]cty.Value{"n": str(fmt.Sprint(i)), "env": str("prod")}),
		})
		after := obj(map[string]cty.Value{
			"id":       cty.UnknownVal(cty.String),
			"filename": str(fmt.Sprint("files/", i, ".txt")),
			"content":  str("line one\nline 2\n"),
			"perm":     str("0600"),
			"tags":     cty.MapVal(map[string]cty.Value{"n": str(fmt.Sprint(i)), "env": str("prod")}),
		})
		c := &plan.ResourceChange{Addr: fmt.Sprintf("tether_file.f[%d]", i), Before: before, After: after}
		switch i % 3 {
		case 0:
			c.Action, c.Before = plan.Create, cty.NullVal(before.Type())
		case 1:
			c.Action = plan.Update
		case 2:
			c.Action = plan.DeleteThenCreate
			c.RequiresReplace = []cty.Path{cty.GetAttrPath("perm")}
		}
		p.Changes[i] = c
	}
	return p
}

func BenchmarkRenderPlan100k(b *testing.B) {
	p := bigPlan(100_000)
	var n countWriter
	b.ReportAllocs()
	for b.Loop() {
		if err := RenderPlan(&n, p, Options{Color: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n.n)/float64(b.N), "bytes/op")
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func TestRenderPlanForcesReplacementInside(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.ResourceChange{{
		Addr: "tether_dir.a", Action: plan.DeleteThenCreate,
		Before: obj(map[string]cty.Value{
			"paths": cty.ListVal([]cty.Value{str("a"), str("b")}),
			"meta":  cty.MapVal(map[string]cty.Value{"k": str("1\n2")}),
		}),
		After: obj(map[string]cty.Value{
			"paths": cty.ListVal([]cty.Value{str("a"), str("c")}),
			"meta":  cty.MapVal(map[string]cty.Value{"k": str("1\n3")}),
		}),
		RequiresReplace: []cty.Path{
			cty.GetAttrPath("paths").IndexInt(1),
			cty.GetAttrPath("meta").IndexString("k"),
		},
	}}}
	got := renderPlan(t, p, Options{})
	want := `-/+ resource "tether_dir" "a" {
      ~ meta  = {
          ~ "k" = <<-EOT # forces replacement
                1
              - 2
              + 3
            EOT
        }
      ~ paths = [
            "a",
          - "b", # forces replacement
          + "c", # forces replacement
        ]
    }
`
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to contain:\n%s", got, want)
	}
}
