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
	"github.com/tetherhq/tether/internal/provider"
)

// blockSchema has one block type of each nesting, and a nested
// attribute set, over the same small block.
func blockSchema() *provider.Block {
	part := func() provider.Block {
		return provider.Block{Attributes: map[string]*provider.Attribute{
			"name": {Type: cty.String, Required: true},
			"size": {Type: cty.Number, Optional: true},
		}}
	}
	attrs := part().Attributes
	ety := cty.Object(map[string]cty.Type{"name": cty.String, "size": cty.Number})
	return &provider.Block{
		Attributes: map[string]*provider.Attribute{
			"id":   {Type: cty.String, Computed: true},
			"note": {Type: cty.String, Optional: true},
			"rule": {Type: cty.Set(ety), Optional: true, Nested: &provider.NestedAttributes{
				Nesting: provider.NestingSet, Attributes: attrs,
			}},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"one":  {Nesting: provider.NestingSingle, Block: part()},
			"list": {Nesting: provider.NestingList, Block: part()},
			"set":  {Nesting: provider.NestingSet, Block: part()},
			"map":  {Nesting: provider.NestingMap, Block: part()},
		},
	}
}

// blockValue is a value of blockSchema: parts by block type, nil for
// none (null for one, empty collections otherwise).
func blockValue(note cty.Value, one cty.Value, list, set []cty.Value, m map[string]cty.Value, rule []cty.Value) cty.Value {
	ety := blockSchema().BlockTypes["one"].Block.ImpliedType()
	coll := func(vs []cty.Value, mk func([]cty.Value) cty.Value, empty cty.Value) cty.Value {
		if len(vs) == 0 {
			return empty
		}
		return mk(vs)
	}
	if one == cty.NilVal {
		one = cty.NullVal(ety)
	}
	mv := cty.MapValEmpty(ety)
	if len(m) > 0 {
		mv = cty.MapVal(m)
	}
	return obj(map[string]cty.Value{
		"id":   str("x"),
		"note": note,
		"one":  one,
		"list": coll(list, cty.ListVal, cty.ListValEmpty(ety)),
		"set":  coll(set, cty.SetVal, cty.SetValEmpty(ety)),
		"map":  mv,
		"rule": coll(rule, cty.SetVal, cty.NullVal(cty.Set(ety))),
	})
}

// legacySchema is s without what the legacy SDK could not make: the map
// block type and the nested attribute (a plain set of objects instead).
func legacySchema(s *provider.Block) *provider.Block {
	s.Attributes["rule"] = &provider.Attribute{Type: s.Attributes["rule"].Type, Optional: true}
	delete(s.BlockTypes, "map")
	return s
}

// withoutMap is a value of blockSchema made one of legacySchema.
func withoutMap(v cty.Value) cty.Value {
	m := v.AsValueMap()
	delete(m, "map")
	return obj(m)
}

func part(name string, size int64) cty.Value {
	return obj(map[string]cty.Value{"name": str(name), "size": cty.NumberIntVal(size)})
}

// TestRenderBlocks checks Terraform's block rules case by case, where
// the differential tests (cmd/tether TestDifferentialBlockRendering,
// TestAWSBlockRendering, TestNestedAttributeRendering) have no provider
// that shows them: a single block forcing replacement, set blocks kept,
// removed and added in Terraform's order, a block collection that turns
// sensitive, blocks whose number becomes unknown, empty strings of a
// legacy schema, and a nested attribute set forcing replacement.
func TestRenderBlocks(t *testing.T) {
	base := blockValue(str("n"), part("o", 1), []cty.Value{part("l", 1)}, []cty.Value{part("a", 1), part("b", 2)},
		map[string]cty.Value{"k": part("m", 1)}, []cty.Value{part("r", 1)})
	cases := []struct {
		name    string
		before  cty.Value
		after   cty.Value
		replace []cty.Path
		want    string
	}{{
		name:    "single block forces replacement",
		before:  base,
		after:   blockValue(str("n"), part("o", 2), []cty.Value{part("l", 1)}, []cty.Value{part("a", 1), part("b", 2)}, map[string]cty.Value{"k": part("m", 1)}, []cty.Value{part("r", 1)}),
		replace: []cty.Path{cty.GetAttrPath("one")},
		want: `      ~ one { # forces replacement
            name = "o"
          ~ size = 1 -> 2
        }

        # (4 unchanged blocks hidden)
`,
	}, {
		name:   "set blocks kept, removed and added",
		before: base,
		after:  blockValue(str("n"), part("o", 1), []cty.Value{part("l", 1)}, []cty.Value{part("b", 2), part("c", 3)}, map[string]cty.Value{"k": part("m", 1)}, []cty.Value{part("r", 1)}),
		want: `      - set {
          - name = "a" -> null
          - size = 1 -> null
        }
      + set {
          + name = "c"
          + size = 3
        }

        # (4 unchanged blocks hidden)
`,
	}, {
		name:   "list blocks become sensitive",
		before: base,
		after: func() cty.Value {
			v := base.AsValueMap()
			v["list"] = v["list"].Mark(marks.Sensitive)
			return obj(v)
		}(),
		want: `      # Warning: this block will be marked as sensitive and will not
      # display in UI output after applying this change.
      ~ list {
          # At least one attribute in this block is (or was) sensitive,
          # so its contents will not be displayed.
        }

        # (4 unchanged blocks hidden)
`,
	}, {
		name:   "map blocks known only after apply",
		before: base,
		after: func() cty.Value {
			v := base.AsValueMap()
			v["map"] = cty.UnknownVal(v["map"].Type())
			return obj(v)
		}(),
		want: `      ~ map (known after apply)
      - map "k" {
          - name = "m" -> null
          - size = 1 -> null
        }

        # (4 unchanged blocks hidden)
`,
	}, {
		name:    "nested attribute set forces replacement on each element",
		before:  base,
		after:   blockValue(str("n"), part("o", 1), []cty.Value{part("l", 1)}, []cty.Value{part("a", 1), part("b", 2)}, map[string]cty.Value{"k": part("m", 1)}, []cty.Value{part("r", 2)}),
		replace: []cty.Path{cty.GetAttrPath("rule")},
		want: `      ~ rule = [
          - { # forces replacement
              - name = "r" -> null
              - size = 1 -> null
            },
          + { # forces replacement
              + name = "r"
              + size = 2
            },
        ]
        # (1 unchanged attribute hidden)

        # (5 unchanged blocks hidden)
`,
	}, {
		name:   "empty string of a legacy schema is null, unchanged",
		before: base,
		after:  blockValue(str(""), part("o", 1), []cty.Value{part("l", 2)}, []cty.Value{part("a", 1), part("b", 2)}, map[string]cty.Value{"k": part("m", 1)}, []cty.Value{part("r", 1)}),
		want: `      - note = "n" -> null
        # (1 unchanged attribute hidden)

      ~ list {
            name = "l"
          ~ size = 1 -> 2
        }

        # (3 unchanged blocks hidden)
`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, before, after := blockSchema(), tc.before, tc.after
			if strings.Contains(tc.name, "legacy") {
				s, before, after = legacySchema(s), withoutMap(before), withoutMap(after)
			}
			got := renderPlan(t, &plan.Plan{Changes: []*plan.ResourceChange{{
				Addr: "t_x.a", Action: plan.Update, Before: before, After: after, Schema: s, RequiresReplace: tc.replace,
			}}}, Options{})
			start := strings.Index(got, "~ resource \"t_x\" \"a\" {\n")
			end := strings.Index(got, "    }\n\nPlan:")
			if start < 0 || end < 0 {
				t.Fatalf("no resource change in:\n%s", got)
			}
			body := got[start+len("~ resource \"t_x\" \"a\" {\n") : end]
			// The id line and the hidden attributes' note come first in
			// every case; the rest is the case's.
			body = strings.TrimPrefix(body, "        id   = \"x\"\n")
			body = strings.TrimPrefix(body, "        # (2 unchanged attributes hidden)\n\n")
			checkText(t, body, tc.want)
		})
	}
}

// TestRenderObjectBlocks checks state show's rendering of blocks: every
// block and attribute shown, without symbols, an empty string of a
// legacy schema written as null.
func TestRenderObjectBlocks(t *testing.T) {
	s := legacySchema(blockSchema())
	v := withoutMap(blockValue(str(""), part("o", 1), nil, []cty.Value{part("a", 1)}, nil, nil))
	var b bytes.Buffer
	if err := RenderObject(&b, "t_x.a", v, s); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), `# t_x.a:
resource "t_x" "a" {
    id   = "x"
    note = null

    one {
        name = "o"
        size = 1
    }

    set {
        name = "a"
        size = 1
    }
}
`)
}

// legacyReaches, which lets a plan skip the legacy rule for a schema, must
// say "changes nothing" only where the rule, walked in full, changes
// nothing.
func TestLegacyReachesAgreesWithTheRule(t *testing.T) {
	str := &provider.Attribute{Type: cty.String, Optional: true}
	dyn := &provider.Attribute{Type: cty.DynamicPseudoType, Optional: true}
	for _, tc := range []struct {
		name  string
		attrs map[string]*provider.Attribute
		v     cty.Value
		want  bool
	}{
		{"legacy string", map[string]*provider.Attribute{"s": str},
			cty.ObjectVal(map[string]cty.Value{"s": cty.StringVal("")}), true},
		{"not legacy, string", map[string]*provider.Attribute{"s": str, "d": dyn},
			cty.ObjectVal(map[string]cty.Value{"s": cty.StringVal(""), "d": cty.StringVal("")}), false},
		{"not legacy, list of strings", map[string]*provider.Attribute{"l": {Type: cty.List(cty.String), Optional: true}, "d": dyn},
			cty.ObjectVal(map[string]cty.Value{"l": cty.ListVal([]cty.Value{cty.StringVal("")}), "d": cty.NullVal(cty.DynamicPseudoType)}), true},
		{"not legacy, map of strings", map[string]*provider.Attribute{"m": {Type: cty.Map(cty.String), Optional: true}, "d": dyn},
			cty.ObjectVal(map[string]cty.Value{"m": cty.MapVal(map[string]cty.Value{"k": cty.StringVal("")}), "d": cty.NullVal(cty.DynamicPseudoType)}), false},
		{"legacy set of strings", map[string]*provider.Attribute{"t": {Type: cty.Set(cty.String), Optional: true}},
			cty.ObjectVal(map[string]cty.Value{"t": cty.SetVal([]cty.Value{cty.StringVal("")})}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &provider.Block{Attributes: tc.attrs}
			if got := blockReached(s, false); got != tc.want {
				t.Errorf("blockReached = %v, want %v", got, tc.want)
			}
			// The rule in full: the cache told that it reaches.
			full := &printer{legacyCache: map[legacyKey]bool{{s, false}: true}}
			if changed := !full.legacyBlock(s, tc.v, false).RawEquals(tc.v); changed != tc.want {
				t.Errorf("the rule changes the value: %v, want %v", changed, tc.want)
			}
		})
	}
}

// Rendering a plan of many objects of one schema costs a constant number
// of allocations, not a few for each object: a wide plan of 100,000
// creates made 240,000 (the attribute lists and entries of each object).
func TestRenderPlanAllocationsDoNotGrowWithObjects(t *testing.T) {
	s := &provider.Block{Attributes: map[string]*provider.Attribute{
		"input":  {Type: cty.DynamicPseudoType, Optional: true},
		"output": {Type: cty.DynamicPseudoType, Computed: true},
		"id":     {Type: cty.String, Computed: true},
	}}
	allocs := func(n int) float64 {
		p := &plan.Plan{}
		for i := range n {
			p.Changes = append(p.Changes, &plan.ResourceChange{
				Addr: fmt.Sprintf("t_x.r%d", i), Type: "t_x", Action: plan.Create, Schema: s,
				Before: cty.NullVal(cty.Object(map[string]cty.Type{"input": cty.String, "output": cty.String, "id": cty.String})),
				After: cty.ObjectVal(map[string]cty.Value{
					"input": cty.StringVal("v"), "output": cty.UnknownVal(cty.String), "id": cty.UnknownVal(cty.String),
				}),
			})
		}
		return testing.AllocsPerRun(3, func() {
			if err := RenderPlan(io.Discard, p, Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(10), allocs(1000)
	if per := (many - few) / 990; per >= 0.5 {
		t.Errorf("%.0f allocations for 10 objects, %.0f for 1000: %.2f an object, want none", few, many, per)
	}
}
