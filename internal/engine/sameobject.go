package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/plan"
)

// A plan can destroy an object at one address and create the same real
// object at another: a resource renamed without a moved block, or a
// for_each key that changed, when the provider identifies the object by
// what the configuration gives (a file by its path). Nothing in the
// configuration orders the two, so Terraform runs them at once (it does:
// a renamed tether_file is lost in some runs), and when the delete runs
// last the object is gone while the apply reports success. Tether orders
// such a create after the delete: the same resource type of the same
// provider, with the same id, known when planning.

// objectKey identifies a real object: its provider, resource type and id.
type objectKey struct{ source, typ, id string }

// sameObject is a create that makes the object a planned delete removes.
type sameObject struct {
	create, delete *node
	// deleting is the instance whose delete (or replacement) goes first.
	deleting               *instance
	createAddr, deleteAddr string
	id                     string
}

// sameObjects finds the creates that must wait for a delete: a create, or
// the create of a replacement, of the object that a delete, or the
// replacement of another instance, removes.
func (p *Planned) sameObjects() []sameObject {
	type at struct {
		n  *node
		in *instance
	}
	// The deletes first: without one (a first apply), no create can
	// wait for one, and no create's key is worked out.
	deletes := map[objectKey]at{}
	p.eachChange(func(n *node, in *instance, c *plan.ResourceChange) {
		if c.Action == plan.Delete || c.Action.IsReplace() {
			if k, ok := changeObjectKey(c, c.Before); ok {
				deletes[k] = at{n, in}
			}
		}
	})
	if len(deletes) == 0 {
		return nil
	}
	type create struct {
		at
		key objectKey
	}
	var creates []create
	p.eachChange(func(n *node, in *instance, c *plan.ResourceChange) {
		if c.Action == plan.Create || c.Action.IsReplace() {
			if k, ok := changeObjectKey(c, c.After); ok {
				creates = append(creates, create{at{n, in}, k})
			}
		}
	})
	var out []sameObject
	for _, c := range creates {
		if d, ok := deletes[c.key]; ok && d.in != c.in {
			out = append(out, sameObject{create: c.n, delete: d.n, deleting: d.in, createAddr: c.in.addr, deleteAddr: d.in.addr, id: c.key.id})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].createAddr < out[j].createAddr })
	return out
}

// eachChange calls f with every instance that has a change, orphans
// included.
func (p *Planned) eachChange(f func(n *node, in *instance, c *plan.ResourceChange)) {
	visit := func(n *node, in *instance) {
		if c := in.change; c != nil {
			f(n, in, c)
		}
	}
	for _, n := range p.nodes {
		if n.orphan != nil {
			visit(n, n.orphan)
			continue
		}
		for _, ni := range n.per {
			for _, in := range ni.insts {
				visit(n, in)
			}
		}
	}
}

// changeObjectKey is the object a change's value v (its before or after)
// names, when its id is known.
func changeObjectKey(c *plan.ResourceChange, v cty.Value) (objectKey, bool) {
	if v == cty.NilVal {
		return objectKey{}, false
	}
	// Only the id is read: unmarked where it is, not as a copy of the
	// whole object.
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() {
		return objectKey{}, false
	}
	if _, ok := ctysame.AttrType(v.Type(), "id"); !ok {
		return objectKey{}, false
	}
	id, _ := ctysame.Attr(v, "id").Unmark()
	if !id.IsKnown() || id.IsNull() || id.Type() != cty.String || id.AsString() == "" {
		return objectKey{}, false
	}
	source := c.Provider
	if pc, err := addr.ParseProviderConfig(c.Provider); err == nil {
		source = pc.Source.String()
	}
	return objectKey{source: source, typ: c.Type, id: id.AsString()}, true
}

// orderSameObjects makes each create of g's nodes wait for the delete of
// the same object; a create in the node of its delete is ordered by
// applyNode (deleteFirst). An order that cannot be kept (the delete waits,
// through the configuration, for the create) is an error before anything
// is applied: one of the two would otherwise undo the other.
func (p *Planned) orderSameObjects(g *graph.Graph) hcl.Diagnostics {
	pairs := p.sameObjects()
	var cross []sameObject
	for _, s := range pairs {
		if s.create == s.delete {
			if s.create.deleteFirst == nil {
				s.create.deleteFirst = map[*instance]bool{}
			}
			s.create.deleteFirst[s.deleting] = true
			continue
		}
		g.DependsOn(s.create.id, s.delete.id)
		cross = append(cross, s)
	}
	if len(cross) == 0 {
		return nil
	}
	if _, cycle := g.Order(); cycle == nil {
		return nil
	}
	var lines []string
	for _, s := range cross {
		lines = append(lines, fmt.Sprintf("\n  - %s creates the object %q that the destroy of %s removes", s.createAddr, s.id, s.deleteAddr))
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Cannot order the destroy and create of the same object",
		Detail: "This plan destroys objects and creates the same objects at other addresses:" + strings.Join(lines, "") +
			"\n\nEach create must wait for the destroy, or the destroy would remove what the create made, but the configuration makes the destroy wait for the create. Nothing was changed. Where the object only changes address, a moved block from the old address to the new one keeps it instead; otherwise make the change in two applies.",
	}}
}
