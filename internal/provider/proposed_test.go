package provider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/ctysame"
)

// proposedSchema has one of each kind of thing ProposedNew merges: plain
// attributes of each mode, a dynamically typed one, nested blocks of
// every nesting mode and nested attributes.
func proposedSchema() *Block {
	inner := func() Block {
		return Block{Attributes: map[string]*Attribute{
			"name": {Type: cty.String, Optional: true},
			"id":   {Type: cty.String, Computed: true},
			"mode": {Type: cty.String, Optional: true, Computed: true},
		}}
	}
	innerAttrs := map[string]*Attribute{
		"name": {Type: cty.String, Optional: true},
		"id":   {Type: cty.String, Computed: true},
	}
	obj := cty.Object(map[string]cty.Type{"name": cty.String, "id": cty.String})
	return &Block{
		Attributes: map[string]*Attribute{
			"name":   {Type: cty.String, Required: true},
			"desc":   {Type: cty.String, Optional: true},
			"arn":    {Type: cty.String, Computed: true},
			"policy": {Type: cty.String, Optional: true, Computed: true},
			"dyn":    {Type: cty.DynamicPseudoType, Optional: true, Computed: true},
			"tags":   {Type: cty.Map(cty.String), Optional: true},
			"one":    {Type: obj, Optional: true, Nested: &NestedAttributes{Nesting: NestingSingle, Attributes: innerAttrs}},
			"oc":     {Type: obj, Optional: true, Computed: true, Nested: &NestedAttributes{Nesting: NestingSingle, Attributes: innerAttrs}},
			"rules":  {Type: cty.List(obj), Optional: true, Nested: &NestedAttributes{Nesting: NestingList, Attributes: innerAttrs}},
			"byset":  {Type: cty.Set(obj), Optional: true, Nested: &NestedAttributes{Nesting: NestingSet, Attributes: innerAttrs}},
			"bymap":  {Type: cty.Map(obj), Optional: true, Nested: &NestedAttributes{Nesting: NestingMap, Attributes: innerAttrs}},
		},
		BlockTypes: map[string]*NestedBlock{
			"single": {Nesting: NestingSingle, Block: inner()},
			"group":  {Nesting: NestingGroup, Block: inner()},
			"list":   {Nesting: NestingList, Block: inner()},
			"set":    {Nesting: NestingSet, Block: inner()},
			"map":    {Nesting: NestingMap, Block: inner()},
			"tuple": {Nesting: NestingList, Block: Block{Attributes: map[string]*Attribute{
				"v":  {Type: cty.DynamicPseudoType, Optional: true},
				"id": {Type: cty.String, Computed: true},
			}}},
		},
	}
}

// obj builds a value of the schema's type from the attributes given; the
// rest are what an empty configuration holds.
func proposedObj(b *Block, attrs map[string]cty.Value) cty.Value {
	vals := b.EmptyValue().AsValueMap()
	for k, v := range attrs {
		vals[k] = v
	}
	return cty.ObjectVal(vals)
}

// TestProposedNew checks ProposedNew against Terraform 1.11's
// objchange.ProposedNew, rule by rule.
func TestProposedNew(t *testing.T) {
	b := proposedSchema()
	s, null, unknown := cty.StringVal, cty.NullVal(cty.String), cty.UnknownVal(cty.String)
	// el is a nested block or nested attribute object; mode is left out
	// where the nesting has no such attribute.
	el := func(name, id, mode cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": name, "id": id, "mode": mode})
	}
	ela := func(name, id cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": name, "id": id})
	}
	elTy := el(null, null, null).Type()
	tup := func(v, id cty.Value) cty.Value { return cty.ObjectVal(map[string]cty.Value{"v": v, "id": id}) }
	o := func(attrs map[string]cty.Value) cty.Value { return proposedObj(b, attrs) }

	for _, tc := range []struct {
		name                string
		prior, config, want cty.Value
	}{
		{
			name:   "create: a computed attribute left null stays null",
			prior:  cty.NullVal(b.ImpliedType()),
			config: o(map[string]cty.Value{"name": s("x")}),
			want:   o(map[string]cty.Value{"name": s("x")}),
		},
		{
			name:   "create: what the configuration sets wins, known or not",
			prior:  cty.NullVal(b.ImpliedType()),
			config: o(map[string]cty.Value{"name": unknown, "policy": s("{}"), "dyn": cty.NumberIntVal(1)}),
			want:   o(map[string]cty.Value{"name": unknown, "policy": s("{}"), "dyn": cty.NumberIntVal(1)}),
		},
		{
			name:   "update: computed and optional+computed left null keep the prior value, optional does not",
			prior:  o(map[string]cty.Value{"name": s("x"), "desc": s("d"), "arn": s("arn:1"), "policy": s("{}"), "dyn": cty.True}),
			config: o(map[string]cty.Value{"name": s("y")}),
			want:   o(map[string]cty.Value{"name": s("y"), "arn": s("arn:1"), "policy": s("{}"), "dyn": cty.True}),
		},
		{
			name:   "update: an optional+computed value set replaces the prior one",
			prior:  o(map[string]cty.Value{"name": s("x"), "policy": s("{}")}),
			config: o(map[string]cty.Value{"name": s("x"), "policy": s(`{"a":1}`)}),
			want:   o(map[string]cty.Value{"name": s("x"), "policy": s(`{"a":1}`)}),
		},
		{
			name:   "null config and null prior: null",
			prior:  cty.NullVal(b.ImpliedType()),
			config: cty.NullVal(b.ImpliedType()),
			want:   cty.NullVal(b.ImpliedType()),
		},
		{
			name:  "single and group blocks: merged with their prior block; a single block removed is null",
			prior: o(map[string]cty.Value{"name": s("x"), "single": el(s("a"), s("id-a"), s("m")), "group": el(s("g"), s("id-g"), null)}),
			config: o(map[string]cty.Value{"name": s("x"), "single": cty.NullVal(elTy),
				"group": el(s("g2"), null, null)}),
			want: o(map[string]cty.Value{"name": s("x"), "single": cty.NullVal(elTy), "group": el(s("g2"), s("id-g"), null)}),
		},
		{
			name:   "create: a new single block's computed attributes are null",
			prior:  cty.NullVal(b.ImpliedType()),
			config: o(map[string]cty.Value{"name": s("x"), "single": el(s("a"), null, null)}),
			want:   o(map[string]cty.Value{"name": s("x"), "single": el(s("a"), null, null)}),
		},
		{
			name: "list blocks pair by position; an element past the prior ones is taken as configured",
			prior: o(map[string]cty.Value{"name": s("x"), "list": cty.ListVal([]cty.Value{
				el(s("a"), s("id-a"), s("m-a"))})}),
			config: o(map[string]cty.Value{"name": s("x"), "list": cty.ListVal([]cty.Value{
				el(s("b"), null, null), el(s("c"), null, null)})}),
			want: o(map[string]cty.Value{"name": s("x"), "list": cty.ListVal([]cty.Value{
				el(s("b"), s("id-a"), s("m-a")), el(s("c"), null, null)})}),
		},
		{
			name: "set blocks pair with the prior element they could have become",
			prior: o(map[string]cty.Value{"name": s("x"), "set": cty.SetVal([]cty.Value{
				el(s("a"), s("id-a"), s("m-a")), el(s("b"), s("id-b"), s("m-b"))})}),
			config: o(map[string]cty.Value{"name": s("x"), "set": cty.SetVal([]cty.Value{
				el(s("b"), null, null), el(s("c"), null, null), el(s("a"), null, s("new"))})}),
			want: o(map[string]cty.Value{"name": s("x"), "set": cty.SetVal([]cty.Value{
				el(s("b"), s("id-b"), s("m-b")), el(s("c"), null, null), el(s("a"), null, s("new"))})}),
		},
		{
			name: "map blocks pair by key",
			prior: o(map[string]cty.Value{"name": s("x"), "map": cty.MapVal(map[string]cty.Value{
				"k": el(s("a"), s("id-a"), null)})}),
			config: o(map[string]cty.Value{"name": s("x"), "map": cty.MapVal(map[string]cty.Value{
				"k": el(s("b"), null, null), "l": el(s("c"), null, null)})}),
			want: o(map[string]cty.Value{"name": s("x"), "map": cty.MapVal(map[string]cty.Value{
				"k": el(s("b"), s("id-a"), null), "l": el(s("c"), null, null)})}),
		},
		{
			name: "blocks of a dynamic block over an unknown collection stay unknown",
			prior: o(map[string]cty.Value{"name": s("x"), "list": cty.ListVal([]cty.Value{
				el(s("a"), s("id-a"), null)})}),
			config: o(map[string]cty.Value{"name": s("x"), "list": cty.UnknownVal(cty.List(elTy))}),
			want:   o(map[string]cty.Value{"name": s("x"), "list": cty.UnknownVal(cty.List(elTy))}),
		},
		{
			name: "a list of blocks with a dynamically typed attribute is a tuple, paired by position",
			prior: o(map[string]cty.Value{"name": s("x"), "tuple": cty.TupleVal([]cty.Value{
				tup(cty.NumberIntVal(1), s("id-1"))})}),
			config: o(map[string]cty.Value{"name": s("x"), "tuple": cty.TupleVal([]cty.Value{
				tup(cty.True, null), tup(s("two"), null)})}),
			want: o(map[string]cty.Value{"name": s("x"), "tuple": cty.TupleVal([]cty.Value{
				tup(cty.True, s("id-1")), tup(s("two"), null)})}),
		},
		{
			name: "nested attributes merge as blocks do",
			prior: o(map[string]cty.Value{"name": s("x"),
				"one":   ela(s("a"), s("id-a")),
				"rules": cty.ListVal([]cty.Value{ela(s("r"), s("id-r"))}),
				"byset": cty.SetVal([]cty.Value{ela(s("p"), s("id-p")), ela(s("q"), s("id-q"))}),
				"bymap": cty.MapVal(map[string]cty.Value{"k": ela(s("m"), s("id-m"))})}),
			config: o(map[string]cty.Value{"name": s("x"),
				"one":   ela(s("b"), null),
				"rules": cty.ListVal([]cty.Value{ela(s("r2"), null), ela(s("r3"), null)}),
				"byset": cty.SetVal([]cty.Value{ela(s("q"), null), ela(s("z"), null)}),
				"bymap": cty.MapVal(map[string]cty.Value{"k": ela(s("m2"), null), "n": ela(s("n"), null)})}),
			want: o(map[string]cty.Value{"name": s("x"),
				"one":   ela(s("b"), s("id-a")),
				"rules": cty.ListVal([]cty.Value{ela(s("r2"), s("id-r")), ela(s("r3"), null)}),
				"byset": cty.SetVal([]cty.Value{ela(s("q"), s("id-q")), ela(s("z"), null)}),
				"bymap": cty.MapVal(map[string]cty.Value{"k": ela(s("m2"), s("id-m")), "n": ela(s("n"), null)})}),
		},
		{
			name:   "create: nested attributes' computed values are null",
			prior:  cty.NullVal(b.ImpliedType()),
			config: o(map[string]cty.Value{"name": s("x"), "one": ela(s("a"), null), "rules": cty.ListVal([]cty.Value{ela(s("r"), null)})}),
			want:   o(map[string]cty.Value{"name": s("x"), "one": ela(s("a"), null), "rules": cty.ListVal([]cty.Value{ela(s("r"), null)})}),
		},
		{
			name:   "an optional+computed nested attribute removed from the configuration is null",
			prior:  o(map[string]cty.Value{"name": s("x"), "oc": ela(s("set-by-config"), s("id"))}),
			config: o(map[string]cty.Value{"name": s("x")}),
			want:   o(map[string]cty.Value{"name": s("x")}),
		},
		{
			name:   "an optional+computed nested attribute the provider filled keeps its prior value",
			prior:  o(map[string]cty.Value{"name": s("x"), "oc": ela(null, s("id"))}),
			config: o(map[string]cty.Value{"name": s("x")}),
			want:   o(map[string]cty.Value{"name": s("x"), "oc": ela(null, s("id"))}),
		},
		{
			name: "a set element pairs only with a prior one that differs where the provider computes what the configuration leaves null",
			prior: o(map[string]cty.Value{"name": s("x"), "byset": cty.SetVal([]cty.Value{ela(s("p"), s("id-p"))}),
				"set": cty.SetVal([]cty.Value{el(s("a"), s("id-a"), null)})}),
			config: o(map[string]cty.Value{"name": s("x"), "byset": cty.SetVal([]cty.Value{ela(s("p"), null)}),
				"set": cty.SetVal([]cty.Value{el(s("a"), null, s("m"))})}),
			// mode is optional+computed: set in the configuration, it must
			// match; id is computed-only and may differ.
			want: o(map[string]cty.Value{"name": s("x"), "byset": cty.SetVal([]cty.Value{ela(s("p"), s("id-p"))}),
				"set": cty.SetVal([]cty.Value{el(s("a"), null, s("m"))})}),
		},
		{
			name:   "an unknown nested attribute collection stays unknown",
			prior:  o(map[string]cty.Value{"name": s("x"), "rules": cty.ListVal([]cty.Value{ela(s("r"), s("id-r"))})}),
			config: o(map[string]cty.Value{"name": s("x"), "rules": cty.UnknownVal(cty.List(ela(null, null).Type()))}),
			want:   o(map[string]cty.Value{"name": s("x"), "rules": cty.UnknownVal(cty.List(ela(null, null).Type()))}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProposedNew(b, tc.prior, tc.config); !got.RawEquals(tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestPlannedDataObject checks that a data source read during apply plans
// every computed value the configuration leaves null as unknown, as
// Terraform's PlannedDataResourceObject does.
func TestPlannedDataObject(t *testing.T) {
	b := proposedSchema()
	s, null, unknown := cty.StringVal, cty.NullVal(cty.String), cty.UnknownVal(cty.String)
	el := func(name, id, mode cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": name, "id": id, "mode": mode})
	}
	config := proposedObj(b, map[string]cty.Value{"name": s("x"), "policy": s("{}"),
		"list": cty.ListVal([]cty.Value{el(s("a"), null, null)}), "single": el(s("b"), null, s("m"))})
	want := proposedObj(b, map[string]cty.Value{"name": s("x"), "policy": s("{}"), "arn": unknown,
		"dyn": cty.DynamicVal, "oc": cty.UnknownVal(b.Attributes["oc"].Type),
		"list": cty.ListVal([]cty.Value{el(s("a"), unknown, unknown)}), "single": el(s("b"), unknown, s("m")),
		"group": el(null, unknown, unknown)})
	if got := PlannedDataObject(b, config); !got.RawEquals(want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

// TestUnchangedCostsNoCopy checks that an object the configuration leaves
// as it was (most instances of a large plan) is proposed and checked
// without building anything: ProposedNew gives the prior object back and
// PlanProblems finds nothing, neither allocating for an object of plain
// attributes. (go-cty allocates to iterate a collection, so those still
// cost something.)
func TestUnchangedCostsNoCopy(t *testing.T) {
	b := proposedSchema()
	s, null := cty.StringVal, cty.NullVal(cty.String)
	el := func(name, id, mode cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"name": name, "id": id, "mode": mode})
	}
	prior := proposedObj(b, map[string]cty.Value{"name": s("x"), "arn": s("arn:1"), "policy": s("{}"),
		"tags": cty.MapVal(map[string]cty.Value{"k": s("v")}), "list": cty.ListVal([]cty.Value{el(s("a"), s("id-a"), s("m"))}),
		"single": el(s("b"), s("id-b"), s("m"))})
	config := proposedObj(b, map[string]cty.Value{"name": s("x"), "tags": cty.MapVal(map[string]cty.Value{"k": s("v")}),
		"list": cty.ListVal([]cty.Value{el(s("a"), null, s("m"))}), "single": el(s("b"), null, s("m"))})
	if got := ProposedNew(b, prior, config); !got.RawEquals(prior) {
		t.Fatalf("proposed %#v\nwant the prior object %#v", got, prior)
	}

	plain := &Block{Attributes: map[string]*Attribute{}}
	pv, cv := map[string]cty.Value{}, map[string]cty.Value{}
	for _, name := range []string{"name", "desc", "arn", "policy", "dyn"} {
		a := b.Attributes[name]
		plain.Attributes[name] = a
		pv[name], cv[name] = prior.GetAttr(name), config.GetAttr(name)
	}
	pv["dyn"] = s("chosen")
	plainPrior, plainConfig := cty.ObjectVal(pv), cty.ObjectVal(cv)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"ProposedNew", func() {
			if got := ProposedNew(plain, plainPrior, plainConfig); !got.RawEquals(plainPrior) {
				t.Fatalf("proposed %#v, want the prior object", got)
			}
		}},
		{"PlanProblems", func() {
			if p := PlanProblems(plain, plainPrior, plainConfig, plainPrior); len(p) > 0 {
				t.Fatal(p)
			}
		}},
	} {
		if n := testing.AllocsPerRun(20, c.f); n > 0 {
			t.Errorf("%s of an unchanged object allocated %v times, want none", c.name, n)
		}
	}
}

// TestProposedCreateOfPlainAttributes checks that a create of a block of
// plain attributes proposes the configuration itself, and that this is
// what merging it onto the block's empty value gives, as ProposedNew
// merges every other create.
func TestProposedCreateOfPlainAttributes(t *testing.T) {
	plain := &Block{Attributes: map[string]*Attribute{
		"input":  {Type: cty.String, Required: true},
		"output": {Type: cty.String, Computed: true},
		"id":     {Type: cty.String, Computed: true},
		"zone":   {Type: cty.String, Optional: true, Computed: true},
		"delay":  {Type: cty.Number, Optional: true},
	}}
	dynamic := &Block{Attributes: map[string]*Attribute{
		"input": {Type: cty.DynamicPseudoType, Optional: true},
		"id":    {Type: cty.String, Computed: true},
	}}
	obj := func(input, output, id, zone, delay cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"input": input, "output": output, "id": id, "zone": zone, "delay": delay})
	}
	nullS, nullN := cty.NullVal(cty.String), cty.NullVal(cty.Number)
	for _, tc := range []struct {
		name   string
		b      *Block
		config cty.Value
		itself bool
	}{
		{"computed left null", plain, obj(cty.StringVal("v"), nullS, nullS, nullS, nullN), true},
		{"optional and computed set", plain, obj(cty.StringVal("v"), nullS, nullS, cty.StringVal("z"), cty.NumberIntVal(3)), true},
		{"unknown input", plain, obj(cty.UnknownVal(cty.String), nullS, nullS, nullS, nullN), true},
		{"dynamic attribute of a concrete type", dynamic, cty.ObjectVal(map[string]cty.Value{"input": cty.StringVal("v"), "id": nullS}), true},
		{"computed null of another type", dynamic, cty.ObjectVal(map[string]cty.Value{"input": cty.StringVal("v"), "id": cty.NullVal(cty.DynamicPseudoType)}), false},
		{"computed dynamic null of a concrete type", &Block{Attributes: map[string]*Attribute{
			"input":  {Type: cty.String, Required: true},
			"output": {Type: cty.DynamicPseudoType, Computed: true},
		}}, cty.ObjectVal(map[string]cty.Value{"input": cty.StringVal("v"), "output": cty.NullVal(cty.String)}), false},
		// The empty value merged onto itself is itself: only the
		// equality is checked.
		{"nested blocks", proposedSchema(), cty.NilVal, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := tc.config
			if config == cty.NilVal {
				config = tc.b.EmptyValue()
			}
			got := ProposedNew(tc.b, cty.NullVal(tc.b.ImpliedType()), config)
			want := proposedBlock(tc.b, tc.b.EmptyValue(), config)
			if !got.RawEquals(want) {
				t.Errorf("ProposedNew = %#v, the merge onto the empty value %#v", got, want)
			}
			if itself := ctysame.Identical(got, config); itself != tc.itself {
				t.Errorf("the configuration itself proposed: %v, want %v", itself, tc.itself)
			}
		})
	}
}
