package engine

import (
	"sort"
	"testing"

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
