package engine

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/state"
)

// TestApplyMoves renames recorded objects as Terraform's moved blocks do.
func TestApplyMoves(t *testing.T) {
	for _, tc := range []struct {
		name     string
		moved    []config.Moved
		recorded []string
		want     []string
		// warn is the summary of the one warning expected, if any.
		warn string
	}{
		{
			name:     "resource",
			moved:    []config.Moved{{From: "tether_file.a", To: "tether_file.b"}},
			recorded: []string{"tether_file.a", "tether_file.ab"},
			want:     []string{"tether_file.ab", "tether_file.b"},
		},
		{
			name:     "every instance of a resource",
			moved:    []config.Moved{{From: "tether_file.a", To: "tether_file.b"}},
			recorded: []string{`tether_file.a[0]`, `tether_file.a["k"]`},
			want:     []string{`tether_file.b["k"]`, `tether_file.b[0]`},
		},
		{
			name:     "one instance to a key",
			moved:    []config.Moved{{From: "tether_file.a[0]", To: `tether_file.a["zero"]`}},
			recorded: []string{"tether_file.a[0]", "tether_file.a[1]"},
			want:     []string{`tether_file.a["zero"]`, "tether_file.a[1]"},
		},
		{
			name:     "a resource gains count",
			moved:    []config.Moved{{From: "tether_value.single", To: "tether_value.single[0]"}},
			recorded: []string{"tether_value.single"},
			want:     []string{"tether_value.single[0]"},
		},
		{
			// The moved block stays after the move was applied; the
			// recorded instance is where it belongs and must not become
			// tether_value.single[0][0].
			name:     "a resource gained count, applied before",
			moved:    []config.Moved{{From: "tether_value.single", To: "tether_value.single[0]"}},
			recorded: []string{"tether_value.single[0]"},
			want:     []string{"tether_value.single[0]"},
		},
		{
			name:     "a whole module",
			moved:    []config.Moved{{From: "module.before", To: "module.after"}},
			recorded: []string{"module.before.tether_file.f", `module.before.module.sub.tether_value.v["x"]`, "module.beforehand.tether_file.f"},
			want:     []string{"module.after.module.sub.tether_value.v[\"x\"]", "module.after.tether_file.f", "module.beforehand.tether_file.f"},
		},
		{
			// A moved block in a module called with for_each applies in
			// each of its instances.
			name:     "in every instance of a module",
			moved:    []config.Moved{{From: "module.store.tether_file.old", To: "module.store.tether_file.new", Module: "module.store"}},
			recorded: []string{`module.store["a"].tether_file.old`, `module.store["b"].tether_file.old`, "tether_file.old"},
			want:     []string{`module.store["a"].tether_file.new`, `module.store["b"].tether_file.new`, "tether_file.old"},
		},
		{
			name:     "in every instance of a nested module",
			moved:    []config.Moved{{From: "module.a.module.b.tether_file.x[0]", To: `module.a.module.b.tether_file.x["k"]`, Module: "module.a.module.b"}},
			recorded: []string{`module.a[0].module.b["p"].tether_file.x[0]`, `module.a[1].module.b["q"].tether_file.x[0]`, `module.a[1].module.c["q"].tether_file.x[0]`},
			want:     []string{`module.a[0].module.b["p"].tether_file.x["k"]`, `module.a[1].module.b["q"].tether_file.x["k"]`, `module.a[1].module.c["q"].tether_file.x[0]`},
		},
		{
			// Statements are taken together: b to c runs after a to b,
			// whatever order they are written in.
			name: "a chain in one plan",
			moved: []config.Moved{
				{From: "tether_value.b", To: "tether_value.c"},
				{From: "tether_value.a", To: "tether_value.b"},
			},
			recorded: []string{"tether_value.a"},
			want:     []string{"tether_value.c"},
		},
		{
			name: "a chain through a module instance",
			moved: []config.Moved{
				{From: "module.m.tether_value.y", To: "module.m.tether_value.z", Module: "module.m"},
				{From: "tether_value.x", To: "module.m[0].tether_value.y"},
			},
			recorded: []string{"tether_value.x"},
			want:     []string{"module.m[0].tether_value.z"},
		},
		{
			name: "a module move and a move inside it",
			moved: []config.Moved{
				{From: "module.new.tether_value.a", To: "module.new.tether_value.b", Module: "module.new"},
				{From: "module.old", To: "module.new"},
			},
			recorded: []string{`module.old["k"].tether_value.a`},
			want:     []string{`module.new["k"].tether_value.b`},
		},
		{
			// The target holds an object already: nothing moves, and a
			// warning says so, as Terraform's does.
			name:     "target occupied",
			moved:    []config.Moved{{From: "tether_value.a", To: "tether_value.b"}},
			recorded: []string{"tether_value.a", "tether_value.b[0]"},
			want:     []string{"tether_value.a", "tether_value.b[0]"},
			warn:     "Unresolved resource instance address changes",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := &state.Snapshot{Objects: map[string]*state.Object{}}
			for _, a := range tc.recorded {
				snap.Objects[a] = &state.Object{Address: a, Mode: state.Managed}
			}
			_, diags := applyMoves(tc.moved, snap)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			switch {
			case tc.warn == "" && len(diags) > 0:
				t.Errorf("unexpected diagnostics: %v", diags)
			case tc.warn != "" && (len(diags) != 1 || diags[0].Summary != tc.warn):
				t.Errorf("diagnostics %v, want one warning %q", diags, tc.warn)
			}
			var got []string
			for a, obj := range snap.Objects {
				if obj.Address != a {
					t.Errorf("object at %s records address %s", a, obj.Address)
				}
				got = append(got, a)
			}
			sort.Strings(got)
			sort.Strings(tc.want)
			if len(got) != len(tc.want) {
				t.Fatalf("recorded after moves: %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("recorded after moves: %q, want %q", got, tc.want)
				}
			}
		})
	}
}

// TestApplyMovesCycle: statements that chain into a loop are Terraform's
// error, and nothing moves.
func TestApplyMovesCycle(t *testing.T) {
	snap := &state.Snapshot{Objects: map[string]*state.Object{"tether_value.a": {Address: "tether_value.a", Mode: state.Managed}}}
	moved := []config.Moved{
		{From: "tether_value.a", To: "tether_value.b", Range: hcl.Range{Filename: "main.tf", Start: hcl.Pos{Line: 6, Column: 1}}},
		{From: "tether_value.b", To: "tether_value.a", Range: hcl.Range{Filename: "main.tf", Start: hcl.Pos{Line: 10, Column: 1}}},
	}
	moves, diags := applyMoves(moved, snap)
	if len(moves) > 0 || len(diags) > 0 {
		t.Errorf("applyMoves moved %v, said %v; want nothing moved, the error left to validateMoves", moves, diags)
	}
	_, diags = orderMoves([]*moveStmt{mustParseMove(t, moved[0]), mustParseMove(t, moved[1])})
	if len(diags) != 1 || diags[0].Summary != "Cyclic dependency in move statements" {
		t.Fatalf("diagnostics %v, want the cycle error", diags)
	}
	want := "\n  - main.tf:10,1: tether_value.b[*] → tether_value.a[*]\n  - main.tf:6,1: tether_value.a[*] → tether_value.b[*]\n"
	if !strings.Contains(diags[0].Detail, want) {
		t.Errorf("detail %q does not list the statements as Terraform does (%q)", diags[0].Detail, want)
	}
	if _, ok := snap.Objects["tether_value.a"]; !ok || len(snap.Objects) != 1 {
		t.Errorf("objects moved despite the cycle: %v", snap.Objects)
	}
}

func mustParseMove(t *testing.T, m config.Moved) *moveStmt {
	t.Helper()
	st, err := parseMove(m)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestImpliedMoves: without a moved block naming it, a resource that gained
// count keeps its object as instance 0, one that lost it keeps instance 0
// as its object, in every module instance, as Terraform's implied moves do.
func TestImpliedMoves(t *testing.T) {
	counted := &config.Repeat{}
	cfg := &config.Config{
		Nodes: []*config.Node{
			{Kind: config.Resource, Addr: "tether_value.gains", Repeat: counted},
			{Kind: config.Resource, Addr: "tether_value.loses"},
			{Kind: config.Resource, Addr: "tether_value.named", Repeat: counted},
			{Kind: config.Resource, Addr: "module.m.tether_value.gains", Module: "module.m", Repeat: counted},
			{Kind: config.Resource, Addr: "tether_value.each", Repeat: &config.Repeat{ForEach: true}},
		},
		Moved: []config.Moved{{From: "tether_value.named", To: "tether_value.named[1]"}},
	}
	snap := &state.Snapshot{Objects: map[string]*state.Object{}}
	for _, a := range []string{"tether_value.gains", "tether_value.loses[0]", "tether_value.named", `module.m["x"].tether_value.gains`, "tether_value.each"} {
		snap.Objects[a] = &state.Object{Address: a, Mode: state.Managed}
	}
	moves, diags := applyMoves(append(slices.Clone(cfg.Moved), impliedMoves(cfg, snap)...), snap)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var got []string
	for _, m := range moves {
		got = append(got, m.from+" -> "+m.to)
	}
	sort.Strings(got)
	want := []string{
		`module.m["x"].tether_value.gains -> module.m["x"].tether_value.gains[0]`,
		"tether_value.gains -> tether_value.gains[0]",
		"tether_value.loses[0] -> tether_value.loses",
		"tether_value.named -> tether_value.named[1]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("moves %q, want %q", got, want)
	}
}

// TestVerifyTargetedMoves: -target must cover both ends of every move, as
// Terraform requires, and -exclude neither, as OpenTofu requires; the
// error lists the resources to add (or the excludes to remove).
func TestVerifyTargetedMoves(t *testing.T) {
	moves := []move{{from: "tether_value.a", to: "tether_value.a[0]"}, {from: `module.m["x"].tether_value.b`, to: `module.m["x"].tether_value.c`}}
	for _, tc := range []struct {
		targets, excludes []string
		missing           string // the -target (-exclude) lines of the error, "" for none
	}{
		{targets: nil},
		{targets: []string{"tether_value.a", "module.m"}},
		{targets: []string{"tether_value.a", `module.m["x"].tether_value.b`}, missing: `-target="module.m[\"x\"].tether_value.c"` + "\n\n"},
		{targets: []string{"tether_value.other"}, missing: "-target=\"tether_value.a\"\n  -target=\"module.m[\\\"x\\\"].tether_value.b\"\n  -target=\"module.m[\\\"x\\\"].tether_value.c\"\n\n"},
		// -exclude, as OpenTofu: an exclude covering either address.
		{excludes: []string{"tether_value.other"}},
		{excludes: []string{"module.m"}, missing: "-exclude=\"module.m[\\\"x\\\"].tether_value.b\"\n  -exclude=\"module.m[\\\"x\\\"].tether_value.c\""},
	} {
		diags := verifyTargetedMoves(moves, tc.targets, tc.excludes)
		switch {
		case tc.missing == "" && len(diags) > 0:
			t.Errorf("targets %q: %v", tc.targets, diags)
		case tc.missing != "" && (len(diags) != 1 || diags[0].Summary != "Moved resource instances excluded by targeting" || !strings.Contains(diags[0].Detail, tc.missing)):
			t.Errorf("targets %q: %v, want the error listing %s", tc.targets, diags, tc.missing)
		}
	}
}
