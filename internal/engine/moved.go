package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// move is one recorded object renamed by a moved block.
type move struct {
	from, to string
	// retype is set when the move changes the resource type: the object
	// keeps its old type in the snapshot until the target's provider has
	// converted it (see moveAcrossTypes).
	retype *retype
}

// retype is a move from one resource type to another, as Terraform 1.8
// does them: the provider of the target type converts the recorded object
// (MoveResourceState) when the target is planned.
type retype struct {
	block config.Moved
	// converted is the object as the target's provider converted it, set
	// while planning by the one instance at the move's target, read by
	// Apply after planning has finished; nil until then, or when the
	// target was not planned (deferred) or the conversion failed.
	converted *state.Object
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
			mv := move{from: a, to: to}
			if resourceType(to) != "" && resourceType(to) != obj.Type {
				mv.retype = &retype{block: m}
			}
			moves = append(moves, mv)
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

// resourceType is the resource type of an instance address, "" for an
// address that names no resource (a module) or cannot be read.
func resourceType(a string) string {
	ia, err := addr.ParseInstance(a)
	if err != nil || ia.Resource == "" {
		return ""
	}
	r := strings.TrimPrefix(ia.Resource, "data.")
	if i := strings.IndexByte(r, '.'); i > 0 {
		return r[:i]
	}
	return ""
}

// moveAcrossTypes converts the recorded object of in, which a moved block
// brought from a resource of another type, into an object of cn's type:
// the target's provider (prov) is asked with the object as recorded, its
// raw JSON, schema version and private data, as Terraform asks. in then
// holds the converted object, recorded under the target's type, schema
// version and provider configuration; Apply stores it (commitMoves).
//
// Errors name both addresses and point at the moved block.
func (e *Engine) moveAcrossTypes(ctx context.Context, p *Planned, prov provider.Provider, rs *provider.ResourceSchema, in *instance, cn *config.Node) hcl.Diagnostics {
	obj := in.recorded
	var rt *retype
	from := "an address of type " + obj.Type
	for _, m := range p.moves {
		if m.to == in.addr && m.retype != nil {
			rt, from = m.retype, m.from
		}
	}
	fail := func(summary, detail string) hcl.Diagnostics {
		return hcl.Diagnostics{moveDiag(rt, cn, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}, from, in.addr)}
	}
	raw, err := open(e.Keys, obj.Value)
	if err != nil {
		return fail("Cannot read recorded object", fmt.Sprintf("The recorded object cannot be opened: %s.", err))
	}
	priv, err := e.openPrivate(obj)
	if err != nil {
		return fail("Cannot read recorded object", fmt.Sprintf("The provider's private data recorded with the object cannot be opened: %s.", err))
	}
	source := obj.Provider
	if pc, err := addr.ParseProviderConfig(obj.Provider); err == nil {
		source = pc.Source.String()
	}
	resp := prov.MoveResourceState(ctx, provider.MoveRequest{
		SourceProviderAddress: source,
		SourceTypeName:        obj.Type,
		SourceSchemaVersion:   obj.SchemaVersion,
		SourceStateJSON:       raw,
		SourcePrivate:         priv,
		TargetTypeName:        cn.Type,
	})
	diags := make(hcl.Diagnostics, 0, len(resp.Diagnostics))
	for _, d := range resp.Diagnostics {
		diags = append(diags, moveDiag(rt, cn, d, from, in.addr))
	}
	if diags.HasErrors() {
		return diags
	}
	ty := rs.Block.ImpliedType()
	v := resp.TargetState
	if v == cty.NilVal || v.IsNull() || !v.IsWhollyKnown() {
		return append(diags, fail("Provider produced an invalid moved object",
			fmt.Sprintf("The provider of %s answered the move with no object, or one with unknown values, and no error. This is a bug in the provider.", cn.Type))...)
	}
	converted, err := ctyjson.Marshal(v, ty)
	if err != nil {
		return append(diags, fail("Provider produced an invalid moved object",
			fmt.Sprintf("The provider returned a %s object that does not conform to its own schema: %s. This is a bug in the provider.", cn.Type, err))...)
	}
	// Sealed stays sealed: a secret of the old type is likely still in the
	// new one, whatever its schema says.
	sealed := secrets.IsSealed(obj.Value) || len(rs.Block.SensitivePaths(v, nil)) > 0
	newPriv, privRefs := e.sealPrivate(in, prov, resp.TargetPrivate, sealed || secrets.IsSealed(obj.Private))
	// The sensitive paths and references recorded were paths of the old
	// type; the configuration marks the new object's again.
	meta, err := encodeMeta(objectMeta{PrivateRefs: privRefs})
	if err != nil {
		return append(diags, fail("Cannot record object", diagnostic.Failed("recording the moved object", err))...)
	}
	moved := &state.Object{
		Address: in.addr, Mode: state.Managed, Type: cn.Type, Provider: cn.Provider + in.provKey,
		SchemaVersion: rs.Version, Value: seal(e.Keys, converted, sealed), Private: newPriv,
		Sensitive:    meta,
		Dependencies: obj.Dependencies, Status: obj.Status, CreateBeforeDestroy: obj.CreateBeforeDestroy,
	}
	in.recorded = moved
	if rt != nil {
		rt.converted = moved
	}
	return diags
}

// moveDiag puts a diagnostic of a move across types at its moved block,
// saying what was moved where.
func moveDiag(rt *retype, cn *config.Node, d *hcl.Diagnostic, from, to string) *hcl.Diagnostic {
	out := *d
	where := "a moved block"
	if rt != nil {
		r := rt.block.Range
		where = fmt.Sprintf("the moved block at %s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
		if out.Subject == nil {
			out.Subject = r.Ptr()
		}
	} else if out.Subject == nil && cn != nil {
		out.Subject = cn.DeclRange.Ptr()
	}
	sentence := fmt.Sprintf("While moving %s to %s, as %s says.", from, to, where)
	if out.Detail == "" {
		out.Detail = sentence
	} else {
		out.Detail = strings.TrimRight(out.Detail, "\n") + "\n\n" + sentence
	}
	return &out
}
