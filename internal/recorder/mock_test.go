package recorder

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestFill checks the values the mock generates where a plan left
// unknowns (an apply) or a data source's configuration left computed
// attributes null: Terraform's mock rules, made deterministic, with ARNs
// and JSON documents where a provider's later validation expects them.
func TestFill(t *testing.T) {
	str := func(computed bool) *attribute {
		return &attribute{ty: cty.String, computed: computed, optional: !computed}
	}
	b := &block{
		attrs: map[string]*attribute{
			"name":    str(false),
			"id":      str(true),
			"arn":     str(true),
			"policy":  str(true),
			"scope":   str(true),
			"count":   {ty: cty.Number, computed: true},
			"enabled": {ty: cty.Bool, computed: true},
			"zones":   {ty: cty.List(cty.String), computed: true},
			"tags":    {ty: cty.Map(cty.String), computed: true},
		},
		blocks: map[string]*nestedBlock{},
	}
	attrs := map[string]cty.Type{}
	for n, a := range b.attrs {
		attrs[n] = a.ty
	}
	b.ty = cty.Object(attrs)
	unknownAll := func(name string) cty.Value {
		vals := map[string]cty.Value{}
		for n, ty := range attrs {
			vals[n] = cty.UnknownVal(ty)
		}
		vals["name"] = cty.StringVal(name)
		return cty.ObjectVal(vals)
	}
	unknown := func(v cty.Value, _ *attribute) bool { return !v.IsKnown() }
	got := fill(unknownAll("a"), b, "aws_sqs_queue\x00{}", unknown)

	for _, tc := range []struct {
		attr string
		want func(cty.Value) bool
	}{
		{"name", func(v cty.Value) bool { return v.RawEquals(cty.StringVal("a")) }},
		{"id", func(v cty.Value) bool { return len(v.AsString()) == 8 }},
		{"arn", func(v cty.Value) bool {
			s := v.AsString()
			return len(s) > 40 && s[:41] == "arn:aws:sqs:us-east-1:123456789012:queue/"
		}},
		{"policy", func(v cty.Value) bool { return v.RawEquals(cty.StringVal("{}")) }},
		{"scope", func(v cty.Value) bool { return v.RawEquals(cty.StringVal("")) }},
		{"count", func(v cty.Value) bool { return v.RawEquals(cty.Zero) }},
		{"enabled", func(v cty.Value) bool { return v.RawEquals(cty.False) }},
		{"zones", func(v cty.Value) bool { return v.LengthInt() == 3 }},
		{"tags", func(v cty.Value) bool { return v.RawEquals(cty.MapValEmpty(cty.String)) }},
	} {
		t.Run(tc.attr, func(t *testing.T) {
			if v := got.GetAttr(tc.attr); !v.IsWhollyKnown() || !tc.want(v) {
				t.Errorf("%s = %#v", tc.attr, v)
			}
		})
	}
	if again := fill(unknownAll("a"), b, "aws_sqs_queue\x00{}", unknown); !again.RawEquals(got) {
		t.Errorf("the same seed generated other values:\n%#v\n%#v", got, again)
	}
	if other := fill(unknownAll("a"), b, "aws_sqs_queue\x00{\"name\":\"b\"}", unknown); other.GetAttr("id").RawEquals(got.GetAttr("id")) {
		t.Errorf("another configuration generated the same id %#v", got.GetAttr("id"))
	}

	// A data source: computed attributes left null are generated, the
	// configuration's values kept.
	config := cty.ObjectVal(map[string]cty.Value{
		"name": cty.StringVal("cfg"), "id": cty.StringVal("given"), "arn": cty.NullVal(cty.String),
		"policy": cty.NullVal(cty.String), "count": cty.NullVal(cty.Number), "enabled": cty.NullVal(cty.Bool),
		"zones": cty.NullVal(cty.List(cty.String)), "tags": cty.NullVal(cty.Map(cty.String)),
	})
	data := fill(config, b, "aws_region\x00{}", func(v cty.Value, a *attribute) bool {
		return !v.IsKnown() || (a != nil && a.computed && v.IsNull())
	})
	if !data.GetAttr("id").RawEquals(cty.StringVal("given")) || !data.GetAttr("name").RawEquals(cty.StringVal("cfg")) {
		t.Errorf("the data source's configured values changed: %#v", data)
	}
	if data.GetAttr("arn").IsNull() || data.GetAttr("zones").LengthInt() != 3 {
		t.Errorf("the data source's computed values were not generated: %#v", data)
	}
}
