package engine

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/plan"
)

// narrow applies -target, -exclude and -refresh-only to a finished plan: the changes
// they leave out become no-ops, and what would be computed from a change
// left out (a local, an output, a check) is held, neither evaluated nor
// recorded at apply, so that it keeps the value state has.
//
// Everything is planned first and narrowed after, so that what stays is
// planned exactly as a whole plan would plan it.
func (p *Planned) narrow() hcl.Diagnostics {
	o := p.opts
	if !p.narrowing() && !o.RefreshOnly {
		return nil
	}
	if p.narrowing() {
		var diags hcl.Diagnostics
		if p.targets, diags = p.targetClosure(); diags.HasErrors() {
			return diags
		}
	}
	kept := func(n *node, in *instance) bool {
		return !o.RefreshOnly && p.targeted(n, in.addr)
	}
	dropped := make([]bool, len(p.nodes))
	for _, n := range p.nodes {
		if !isResourceNode(n) {
			continue
		}
		insts := []*instance{n.orphan}
		if n.orphan == nil {
			insts = nil
			for _, ni := range n.per {
				insts = append(insts, ni.insts...)
				if ni.deferred && (o.RefreshOnly || !p.targets.whole[n.id]) {
					n.held = true // its deferred part is not listed either
				}
			}
		}
		for _, in := range insts {
			if in.change == nil || kept(n, in) {
				continue
			}
			changed := p.drop(n, in)
			if p.narrowing() && n.id < len(p.targets.seeds) && p.targets.seeds[n.id] {
				// A target's sibling instance (or an excluded instance):
				// Terraform's plan does not expand it, so nothing computed
				// from the resource waits for it, and one that does not
				// exist is not in its value.
				in.leftOut = in.recorded == nil
				continue
			}
			if changed {
				dropped[n.id] = true
			}
		}
	}
	// What is computed from a dropped change is held, in dependency order.
	tainted := make([]bool, len(p.nodes))
	var visit func(n *node) bool
	seen := make([]bool, len(p.nodes))
	visit = func(n *node) bool {
		if seen[n.id] {
			return tainted[n.id]
		}
		seen[n.id] = true
		t := dropped[n.id]
		for _, d := range n.deps {
			if visit(p.nodes[d]) {
				t = true
			}
		}
		tainted[n.id] = t
		return t
	}
	for _, n := range p.nodes {
		if n.cfg == nil {
			continue
		}
		switch n.cfg.Kind {
		case config.Variable, config.Local, config.Output, config.Check:
			if visit(n) || (o.Destroy && n.cfg.Kind == config.Output) {
				n.held = true
			}
			if n.cfg.Kind == config.Output && n.cfg.Module == "" && p.narrowing() && !p.outputTargeted(n) {
				n.held = true
			}
		}
	}
	return p.withoutLeftOut()
}

// withoutLeftOut evaluates again, without the instances -target (or -exclude) leaves
// out that do not exist, the values computed from their resources that
// are not held: as in Terraform, whose targeted plan never expands them,
// `[for x in tether_value.x : x.id]` lists the targeted ones alone, and
// an output that indexes one left out fails the plan.
func (p *Planned) withoutLeftOut() hcl.Diagnostics {
	changed := make([]bool, len(p.nodes))
	any := false
	for _, n := range p.nodes {
		if n.cfg == nil || !isResourceNode(n) {
			continue
		}
		for _, ni := range n.per {
			for _, in := range ni.insts {
				if in.leftOut && !ni.deferred {
					changed[n.id], any = true, true
				}
			}
			if changed[n.id] && !ni.deferred {
				ni.value = aggregate(n.cfg, live(ni.insts))
			}
		}
	}
	if !any {
		return nil
	}
	_, order, diags := p.graph()
	for _, id := range order {
		n := p.nodes[id]
		if n.cfg == nil || n.held {
			continue
		}
		switch n.cfg.Kind {
		case config.Variable, config.Local, config.Output:
		default:
			continue
		}
		for _, d := range n.deps {
			changed[id] = changed[id] || changed[d]
		}
		if !changed[id] {
			continue
		}
		for _, ni := range n.per {
			if ni.deferred {
				continue
			}
			var d hcl.Diagnostics
			if n.cfg.Kind == config.Output {
				d = p.planOutput(n, ni)
			} else {
				ni.value, d = p.evalValue(n, ni.mi)
			}
			diags = append(diags, attribute(n.addr, n.cfg, d)...)
		}
	}
	return diags
}

// targetSet is what -target (or -exclude) keeps: the nodes kept whole
// (see targetClosure) and, through the addresses, the targets' own
// instances (or the excluded instances' siblings).
type targetSet struct {
	whole []bool
	// seeds are the nodes the addresses name (a resource, or one of its
	// instances) or hold (a module); with -exclude, only those of which
	// the addresses leave some instances (by their keys).
	seeds []bool
	// need is, by node, which of its instances the targets need (see
	// instanceNeeds); nil for a node they do not need, and for a destroy.
	need []*keyNeed
}

// keyNeed is which instances of a node a targeted apply needs: all, or
// those with the keys (addr.KeyString) listed, in every module instance.
type keyNeed struct {
	all  bool
	keys map[string]bool
}

// targeted reports whether the plan may change the instance at a of node
// n: always without -target and -exclude; under -target, when n is kept
// whole or an address covers a; under -exclude, when n is kept whole, or
// is a seed and no address covers a. A node added after the set was made
// (an orphan) is decided by address only.
func (p *Planned) targeted(n *node, a string) bool {
	if !p.narrowing() {
		return true
	}
	t := p.targets
	known := t != nil && n.id < len(t.whole)
	if known && t.whole[n.id] {
		return true
	}
	if len(p.opts.Excludes) > 0 {
		return (!known || t.seeds[n.id]) && !coveredBy(p.opts.Excludes, a)
	}
	return coveredBy(p.opts.Targets, a)
}

// narrowing reports whether -target or -exclude narrows the plan.
func (p *Planned) narrowing() bool {
	return len(p.opts.Targets) > 0 || len(p.opts.Excludes) > 0
}

// coveredBy reports whether one of the addresses covers a.
func coveredBy(addrs []string, a string) bool {
	for _, t := range addrs {
		if addr.Covers(t, a) {
			return true
		}
	}
	return false
}

// outputTargeted reports whether a root output is recorded under -target
// (or -exclude).
// As in Terraform, it is when what it is computed from (through
// variables, locals, other outputs and module calls) includes a resource,
// data source or module output kept by -target, and nothing left out: an
// output of constants, or of variables only, keeps the value state has.
func (p *Planned) outputTargeted(out *node) bool {
	in, outside := false, false
	seen := make([]bool, len(p.nodes))
	var walk func(n *node)
	walk = func(n *node) {
		for _, d := range n.deps {
			if seen[d] {
				continue
			}
			seen[d] = true
			dn := p.nodes[d]
			if isResourceNode(dn) {
				if p.targets.whole[d] || p.targets.seeds[d] {
					in = true
				} else {
					outside = true
				}
				continue
			}
			walk(dn)
		}
	}
	walk(out)
	return in && !outside
}

// refNeed is which instances of node d a reference from n names: those
// of the constant keys every reference of n to d gives (tether_value.x["a"]),
// or all (all true).
func refNeed(n, d *node) (keys []cty.Value, all bool) {
	if n.cfg == nil {
		return nil, true
	}
	keys, narrowed := n.cfg.RefKeys[d.addr]
	if !narrowed {
		return nil, true
	}
	for _, r := range n.cfg.DependsOn {
		if r.Addr == d.addr {
			return nil, true // depends_on waits for every instance
		}
	}
	return keys, false
}

// instanceNeeds follows the references of the targets' nodes down to
// instances, as Terraform's apply graph does, where a reference with a
// constant key (tether_value.x["a"]) leads to that instance of x alone
// (in every instance of its module) and any other reference to them all:
// a targeted apply carries out the changes of the instances needed, and
// leaves out those of their siblings that a whole plan of the node
// planned (see applies).
func (p *Planned) instanceNeeds(seeds []bool) []*keyNeed {
	need := make([]*keyNeed, len(p.nodes))
	visited := make([]bool, len(p.nodes))
	var visit func(id int)
	visit = func(id int) {
		if visited[id] {
			return
		}
		visited[id] = true
		n := p.nodes[id]
		for _, d := range n.deps {
			kn := need[d]
			if kn == nil {
				kn = &keyNeed{keys: map[string]bool{}}
				need[d] = kn
			}
			keys, all := refNeed(n, p.nodes[d])
			kn.all = kn.all || all
			for _, k := range keys {
				kn.keys[addr.KeyString(k)] = true
			}
			visit(d)
		}
	}
	for id, s := range seeds {
		if s {
			visit(id)
		}
	}
	return need
}

// applies reports whether a targeted apply carries out the planned change
// of instance in of node n: one an address covers, or one the targets
// need (see instanceNeeds). An instance whose key left count or
// for_each goes with its node's other instances, when all are needed.
func (p *Planned) applies(n *node, in *instance) bool {
	t := p.targets
	if len(p.opts.Targets) == 0 || t == nil || t.need == nil || n.id >= len(t.need) {
		return p.targeted(n, in.addr)
	}
	if coveredBy(p.opts.Targets, in.addr) {
		return true
	}
	kn := t.need[n.id]
	return kn != nil && (kn.all || (!in.gone && kn.keys[addr.KeyString(in.key())]))
}

func isResourceNode(n *node) bool {
	return n.orphan != nil || n.cfg.Kind == config.Resource || n.cfg.Kind == config.DataSource
}

// drop turns an instance's change into a no-op and reports whether it was
// anything else. With -refresh-only the instance keeps what refresh read;
// left out by -target, it keeps what state records, as if never read.
func (p *Planned) drop(n *node, in *instance) bool {
	c := in.change
	changed := c.Action != plan.NoOp || c.Importing != ""
	if p.opts.RefreshOnly && c.Action == plan.Update {
		// The refreshed object stands in for the update left out: what
		// depends on it sees the object as it is.
		changed = false
	}
	if !p.opts.RefreshOnly && in.recorded != nil && n.schema != nil && in.recordedVal != cty.NilVal {
		in.prior = in.recordedVal
		in.priorPrivate = in.recordedPrivate
		in.resourceDeps = in.recorded.Dependencies
		c.Before = withMarks(n.schema.Block, in.recordedVal, in.meta.Sensitive)
	}
	c.Action, c.After = plan.NoOp, c.Before
	c.RequiresReplace, c.Reason, c.Tainted, c.Requested, c.Importing = nil, "", false, false, ""
	in.importID = ""
	in.planned, in.plannedPriv = cty.NilVal, nil
	in.checkAfterApply = false
	in.value = c.Before
	return changed
}

// targetClosure finds the nodes -target keeps whole: for a plan, those
// the targets depend on; for a destroy, those that depend on the targets.
// The targets' own instances are kept by address. -exclude is its
// complement, as OpenTofu's: what the addresses name is left out, and
// with it what depends on it (for a destroy, what it depends on, which
// cannot go while it stays); everything else is kept whole, but for the
// resources of which an address names instances only, whose other
// instances are kept by address. An address that matches nothing in the
// configuration or state is an error rather than an empty plan.
func (p *Planned) targetClosure() (*targetSet, hcl.Diagnostics) {
	if !p.narrowing() {
		return nil, nil
	}
	addrs, flag := p.opts.Targets, "target"
	if len(addrs) == 0 {
		addrs, flag = p.opts.Excludes, "exclude"
	}
	var diags hcl.Diagnostics
	seeds := make([]bool, len(p.nodes))
	// named are the seeds an address names whole (excludes only).
	named := make([]bool, len(p.nodes))
	for _, t := range addrs {
		static := strings.Join(addr.Split(t), ".")
		found := false
		for _, n := range p.nodes {
			if !isResourceNode(n) && n.cfg.Kind != config.Module {
				continue
			}
			whole := addr.Covers(t, n.addr) || (n.orphan != nil && addr.Covers(t, n.orphan.addr))
			if whole || addr.Covers(static, n.addr) {
				seeds[n.id] = true
				named[n.id] = named[n.id] || whole
				found = true
			}
		}
		if !found {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid " + flag + " address",
				Detail:   fmt.Sprintf("-%s %s matches no resource, data source or module in the configuration or in state.", flag, t),
			})
		}
	}
	// A plan follows dependencies, a destroy dependents; an exclude the
	// other way.
	dependents := len(p.opts.Excludes) > 0 != p.opts.Destroy
	next := make([][]int, len(p.nodes))
	edge := func(from, to int) { // from depends on to
		if dependents {
			next[to] = append(next[to], from)
		} else {
			next[from] = append(next[from], to)
		}
	}
	for _, n := range p.nodes {
		for _, d := range n.deps {
			edge(n.id, d)
		}
	}
	if p.opts.Destroy {
		// A destroy plans recorded objects, which know what they depended
		// on when last written.
		byStatic := map[string][]int{}
		for _, n := range p.nodes {
			if n.orphan != nil {
				byStatic[staticOf(n.addr)] = append(byStatic[staticOf(n.addr)], n.id)
			}
		}
		for _, n := range p.nodes {
			if n.orphan == nil {
				continue
			}
			for _, dep := range n.orphan.recorded.Dependencies {
				for _, d := range byStatic[dep] {
					edge(n.id, d)
				}
			}
		}
	}
	whole := make([]bool, len(p.nodes))
	var mark func(id int)
	mark = func(id int) {
		for _, d := range next[id] {
			if !whole[d] {
				whole[d] = true
				mark(d)
			}
		}
	}
	for id, s := range seeds {
		if s {
			mark(id)
		}
	}
	if flag == "exclude" {
		// whole holds what the excludes reach: keep the rest.
		for id := range whole {
			out := whole[id] || named[id]
			whole[id] = !out && !seeds[id]
			seeds[id] = seeds[id] && !out
		}
		return &targetSet{whole: whole, seeds: seeds}, diags
	}
	set := &targetSet{whole: whole, seeds: seeds}
	if !p.opts.Destroy {
		set.need = p.instanceNeeds(seeds)
	}
	return set, diags
}

// replaceRequested reports whether -replace names the instance.
func (p *Planned) replaceRequested(instance string) bool {
	for _, r := range p.opts.Replace {
		if r == instance {
			return true
		}
	}
	return false
}

// walked reports whether apply reaches the node at the static address:
// always without -target and -exclude; under them, what they keep, and
// the root outputs it records.
func (p *Planned) walked(static string) bool {
	t := p.targets
	if !p.narrowing() || t == nil {
		return true
	}
	id, ok := p.byAddr[static]
	if !ok || id >= len(t.whole) {
		return false
	}
	n := p.nodes[id]
	if n.cfg.Kind == config.Output && n.cfg.Module == "" {
		return !n.held
	}
	return t.whole[id] || t.seeds[id]
}
