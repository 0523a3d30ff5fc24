package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/state"
)

// move is one recorded object renamed by a moved block.
type move struct {
	from, to string
}

// applyMoves renames recorded objects in the snapshot as moved blocks say,
// before planning, so that a rename plans as no change instead of a
// destroy and create. Apply records the new addresses first.
func applyMoves(moved []config.Moved, snap *state.Snapshot) ([]move, hcl.Diagnostics) {
	var moves []move
	var diags hcl.Diagnostics
	for _, m := range moved {
		var hits []string
		for a := range snap.Objects {
			if matchesMove(a, m.From, m.To) {
				hits = append(hits, a)
			}
		}
		sort.Strings(hits)
		for _, a := range hits {
			to := m.To + strings.TrimPrefix(a, m.From)
			if _, exists := snap.Objects[to]; exists {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Moved object still exists",
					Detail:   fmt.Sprintf("Cannot move %s to %s: an object is already recorded at %s. Remove the moved block, or destroy one of the two first.", a, to, to),
					Subject:  m.Range.Ptr(),
				})
				continue
			}
			obj := *snap.Objects[a]
			obj.Address = to
			delete(snap.Objects, a)
			snap.Objects[to] = &obj
			moves = append(moves, move{from: a, to: to})
		}
	}
	return moves, diags
}

// matchesMove reports whether the recorded address a is the object, one
// of the instances of the resource, or inside the module named by from
// (moving to to).
func matchesMove(a, from, to string) bool {
	if a == from {
		return true
	}
	if !strings.HasPrefix(a, from) {
		return false
	}
	switch a[len(from)] {
	case '.':
		ia, err := addr.ParseInstance(from)
		return err == nil && ia.Resource == "" && len(ia.Module) > 0
	case '[':
		// An unkeyed from names every instance only when to is unkeyed
		// too; moved to a keyed address it is the single unkeyed object.
		return !strings.HasSuffix(from, "]") && !strings.HasSuffix(to, "]")
	}
	return false
}
