package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// TestOwners checks that each instance is found with its node instance
// whether a node has one module instance (no map is made) or several.
func TestOwners(t *testing.T) {
	a, b := &nodeInst{}, &nodeInst{}
	ins := []*instance{{addr: "a0"}, {addr: "b0"}, {addr: "a1"}, {addr: "b1"}}
	want := []*nodeInst{a, b, a, b}
	var o owners
	o.add(ins[0], a)
	if o.by != nil {
		t.Error("one node instance made a map")
	}
	for i := 1; i < len(ins); i++ {
		o.add(ins[i], want[i])
	}
	for i, in := range ins {
		if got := o.of(in); got != want[i] {
			t.Errorf("instance %s: got node instance %p, want %p", in.addr, got, want[i])
		}
	}
}

// TestInstanceSize keeps an instance, one per resource instance of a run
// and held for the whole of it, within 512 bytes: an object with pointers
// above 512 bytes carries an 8-byte header, so 632 bytes took the 640-byte
// class; its key and each.value behind one pointer, and its secrets
// behind another, save 128 bytes an instance (12.8 MB at 100,000).
func TestInstanceSize(t *testing.T) {
	if n := unsafe.Sizeof(instance{}); n > 512 {
		t.Errorf("an instance takes %d bytes, want at most 512", n)
	}
}

// TestImpliedMovesParsesOnlyWhatMayMove checks that finding the moves
// count implies (a resource that gained count, or lost it) still finds
// them both ways, and reads the address of an object with no key and no
// counted resource, nearly every object of a large state, without parsing
// it, and without an index of every resource while no object has a key:
// the cost does not grow with such objects and resources.
func TestImpliedMovesParsesOnlyWhatMayMove(t *testing.T) {
	counted := &config.Node{Kind: config.Resource, Addr: "tether_value.counted", Repeat: &config.Repeat{}}
	single := &config.Node{Kind: config.Resource, Addr: "tether_value.single"}
	build := func(plain int) (*config.Config, *state.Snapshot) {
		cfg := &config.Config{Nodes: []*config.Node{counted, single}}
		snap := &state.Snapshot{Objects: map[string]*state.Object{
			"tether_value.counted":   {Mode: state.Managed},
			"tether_value.single[0]": {Mode: state.Managed},
		}}
		for i := range plain {
			a := fmt.Sprintf("tether_value.r%d", i)
			cfg.Nodes = append(cfg.Nodes, &config.Node{Kind: config.Resource, Addr: a})
			snap.Objects[a] = &state.Object{Mode: state.Managed}
		}
		return cfg, snap
	}
	cfg, snap := build(10)
	var got []string
	for _, m := range impliedMoves(cfg, snap) {
		got = append(got, m.From+" -> "+m.To)
	}
	if want := []string{"tether_value.counted -> tether_value.counted[0]", "tether_value.single[0] -> tether_value.single"}; !slices.Equal(got, want) {
		t.Errorf("implied moves %q, want %q", got, want)
	}
	cost := func(plain int) float64 {
		cfg, snap := build(plain)
		return testing.AllocsPerRun(5, func() { impliedMoves(cfg, snap) })
	}
	if small, large := cost(10), cost(1000); large > small+5 {
		t.Errorf("impliedMoves allocated %v times with 1,000 plain objects, %v with 10: it parses each, or indexes every resource", large, small)
	}
}

// TestOneInstanceWalkAllocatesNothing checks that walking a node of one
// instance, as nearly every node of a wide configuration is, makes no lock,
// list nor closure of its own: at 100,000 nodes each was 100,000 objects.
func TestOneInstanceWalkAllocatesNothing(t *testing.T) {
	p := &Planned{sem: make(chan struct{}, 2)}
	all := []*instance{{addr: "a"}}
	ni := &nodeInst{}
	var o owners
	o.add(all[0], ni)
	var got *nodeInst
	f := func(owner *nodeInst, in *instance) hcl.Diagnostics {
		got = owner
		return nil
	}
	if n := testing.AllocsPerRun(10, func() { p.eachInstance(all, o, f) }); n != 0 {
		t.Errorf("walking one instance made %v allocations, want none", n)
	}
	if got != ni {
		t.Errorf("the instance was walked with node instance %p, want %p", got, ni)
	}
}

// TestPerNodeStepsAllocateNothing checks the steps every node takes that
// were an allocation each: the scope of its module instance, the key of a
// node that is not repeated, and the key its recorded objects are found by.
func TestPerNodeStepsAllocateNothing(t *testing.T) {
	p := &Planned{}
	mi := p.withScope(&modInstance{str: "module.m"})
	n := &node{addr: "module.m.tether_value.a", mod: &modPath{name: "module.m"}, cfg: &config.Node{Kind: config.Resource, Addr: "module.m.tether_value.a"}}
	p.recorded = map[claim]*recordGroup{claimKey("module.m", "tether_value.a"): {objs: []*state.Object{{Address: "module.m.tether_value.a"}}}}
	for name, f := range map[string]func(){
		"the scope of a module instance": func() { p.scopeAt(mi) },
		"the key of a single instance":   func() { p.repeatKeys(n, mi) },
		"finding recorded objects":       func() { _ = p.recordedAt(n, mi) },
	} {
		if got := testing.AllocsPerRun(10, f); got != 0 {
			t.Errorf("%s: %v allocations, want none", name, got)
		}
	}
	if s, ok := p.scopeAt(mi).(*scope); !ok || s.p != p || s.mi != mi {
		t.Errorf("scopeAt = %#v, want the module instance's own", p.scopeAt(mi))
	}
	if keys, _, _ := p.repeatKeys(n, mi); len(keys) != 1 || keys[0].key != cty.NilVal {
		t.Errorf("repeatKeys of a node not repeated = %v, want one key, none", keys)
	}
	if g := p.recordedAt(n, mi); g == nil || len(g.objs) != 1 || g.objs[0].Address != "module.m.tether_value.a" {
		t.Errorf("recordedAt = %v, want the object recorded for module.m.tether_value.a", g)
	}
}

// valuesEngine is an engine with the built-in provider and a state of its
// own, and a configuration of n tether_values of literals.
func valuesEngine(t *testing.T, n int) (*Engine, *config.Config) {
	t.Helper()
	dir := t.TempDir()
	var tf strings.Builder
	for i := range n {
		fmt.Fprintf(&tf, "resource \"tether_value\" \"r%d\" {\n  input = \"v%d\"\n}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.OpenSQLite(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := &Engine{Store: store, Providers: provider.Only(config.BuiltinSource.String(), func() provider.Provider { return tetherprovider.New() })}
	schema, _ := e.Providers.Schema(config.BuiltinSource.String())
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return e, cfg
}

// TestHeldValuesShareTypes checks that the objects an instance holds from
// its plan to its apply (the configuration, the planned object) and after
// it (the applied object), and the recorded objects the next plan reads,
// hold the type of the first equal one, not one type map each: at 100,000
// instances those maps were 80 MB of the heap.
func TestHeldValuesShareTypes(t *testing.T) {
	e, cfg := valuesEngine(t, 3)
	ctx := context.Background()
	p, diags := e.Plan(ctx, cfg, PlanOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	words := func(v cty.Value) [2]uintptr {
		ty := v.Type()
		return *(*[2]uintptr)(unsafe.Pointer(&ty))
	}
	var insts []*instance
	for _, n := range p.nodes {
		for _, ni := range n.per {
			insts = append(insts, ni.insts...)
		}
	}
	if len(insts) != 3 {
		t.Fatalf("planned %d instances, want 3", len(insts))
	}
	same := func(what string, of func(*instance) cty.Value) {
		t.Helper()
		for _, in := range insts[1:] {
			if words(of(in)) != words(of(insts[0])) {
				t.Errorf("%s of %s holds a type of its own", what, in.addr)
			}
		}
	}
	same("the configuration", func(in *instance) cty.Value { return in.configVal })
	same("the planned object", func(in *instance) cty.Value { return in.planned })
	if _, diags := e.Apply(ctx, p); diags.HasErrors() {
		t.Fatal(diags)
	}
	same("the applied object", func(in *instance) cty.Value { return in.value })
	// The next plan reads them back from state, and holds them all along.
	if p, diags = e.Plan(ctx, cfg, PlanOptions{}); diags.HasErrors() {
		t.Fatal(diags)
	}
	insts = insts[:0]
	for _, n := range p.nodes {
		for _, ni := range n.per {
			insts = append(insts, ni.insts...)
		}
	}
	same("the recorded object", func(in *instance) cty.Value { return in.prior })
}

// TestNoOpPlanAllocationsPerResource checks what a no-op plan costs a
// resource of literals, state load and refresh included: 16.8
// allocations, where the walk's own lists, maps, closures and contexts,
// a node and its list of dependencies each made apart, the state's
// strings of repeated columns, the recorded object's type maps and its
// output made again from the same text as its input made it 38.5, and
// the index of recorded objects and the recorded strings' copies and
// their interface values 19.8.
func TestNoOpPlanAllocationsPerResource(t *testing.T) {
	checkPerResource(t, 18, func(n int) (func(), func()) {
		e, cfg := valuesEngine(t, n)
		ctx := context.Background()
		p, diags := e.Plan(ctx, cfg, PlanOptions{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if _, diags := e.Apply(ctx, p); diags.HasErrors() {
			t.Fatal(diags)
		}
		replan := func() { p, diags = e.Plan(ctx, cfg, PlanOptions{}) }
		return replan, func() {
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, c := range p.Plan.Changes {
				if c.Action != plan.NoOp {
					t.Fatalf("the second plan is not a no-op: %s %s", c.Action, c.Addr)
				}
			}
		}
	})
}

// raceDetector is set when the tests run under the race detector
// (race_internal_test.go).
var raceDetector bool

// checkPerResource fails t when step allocates more than most for each
// resource more, from 10 resources to 410: setup(n) makes a step for n
// resources, and a check of what it did once it ran. The least of three
// tries counts, each with a setup of its own: a try may allocate more
// when the state's writer groups fewer commits.
func checkPerResource(t *testing.T, most float64, setup func(n int) (step, check func())) {
	t.Helper()
	if raceDetector {
		// sync.Pool drops what it is given at random under the race
		// detector, so the state writer's pooled requests are made anew.
		t.Skip("allocation counts are not the program's under the race detector")
	}
	allocs := func(n int) float64 {
		var least uint64
		for range 3 {
			step, check := setup(n)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			step()
			runtime.ReadMemStats(&after)
			check()
			if d := after.Mallocs - before.Mallocs; least == 0 || d < least {
				least = d
			}
		}
		return float64(least)
	}
	small, large := allocs(10), allocs(410)
	per := (large - small) / 400
	t.Logf("%.1f allocations per resource", per)
	if per > most {
		t.Errorf("%.1f allocations per resource (%v for 10, %v for 410), want at most %v", per, small, large, most)
	}
}

// TestFirstApplyAllocationsPerResource checks what applying a plan of
// creates costs a resource of literals, the state's writer included (it
// runs in the same process): the provider's answer and its checks, the
// recorded object's encoding, the handed-over commit and its database
// arguments. The visit's handover carries the object it records and is
// itself told the commit's outcome, where a closure and an object with
// its list were two more allocations a resource (16.4 then, 14.4 without
// them, 13.5 once the result's check allocated nothing without a problem,
// about 13.3 with the state writer's arguments handed to its driver;
// about 12.5 with the context naming the object made in the handover).
func TestFirstApplyAllocationsPerResource(t *testing.T) {
	checkPerResource(t, 12.8, func(n int) (func(), func()) {
		e, cfg := valuesEngine(t, n)
		ctx := context.Background()
		p, diags := e.Plan(ctx, cfg, PlanOptions{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		apply := func() { _, diags = e.Apply(ctx, p) }
		return apply, func() {
			if diags.HasErrors() {
				t.Fatal(diags)
			}
		}
	})
}

// TestRecordedByAddr checks that a node's recorded objects are each found
// once by address, and that those no instance took are left in address
// order, whether there are none or one (no map is made) or several.
func TestRecordedByAddr(t *testing.T) {
	obj := func(a string) *state.Object { return &state.Object{Address: a} }
	for _, tc := range []struct {
		name     string
		recorded []string
		take     []string
		found    []bool
		left     []string
	}{
		{"none", nil, []string{"a"}, []bool{false}, nil},
		{"one taken", []string{"a"}, []string{"a", "a"}, []bool{true, false}, nil},
		{"one left", []string{"a"}, []string{"b"}, []bool{false}, []string{"a"}},
		{"several", []string{"a[2]", "a[0]", "a[1]", "a[10]"}, []string{"a[1]", "a[5]"}, []bool{true, false}, []string{"a[0]", "a[10]", "a[2]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*state.Object
			for _, a := range tc.recorded {
				objs = append(objs, obj(a))
			}
			r := newRecordedByAddr(objs)
			if len(objs) <= 1 && r.m != nil {
				t.Errorf("%d recorded objects made a map", len(objs))
			}
			for i, a := range tc.take {
				got := r.take(a)
				if (got != nil) != tc.found[i] || (got != nil && got.Address != a) {
					t.Errorf("take(%q) = %v, want found %v", a, got, tc.found[i])
				}
			}
			var left []string
			for _, o := range r.left() {
				left = append(left, o.Address)
			}
			if !slices.Equal(left, tc.left) {
				t.Errorf("left %q, want %q", left, tc.left)
			}
		})
	}
}
