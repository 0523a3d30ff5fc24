package engine

import (
	"context"
	"fmt"
	"slices"
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
//
// It follows Terraform's rules (internal/refactoring): a moved block
// declared in a module applies in every instance of that module; the
// statements are taken together, each after those it chains from (a to b
// before b to c) or is nested in, so that a chain of moves resolves in one
// plan; statements that form a cycle move nothing (validateMoves reports
// them after planning, as Terraform does). A move
// whose target already holds an object is skipped, and the object left
// where it was (to be destroyed, if nothing declares it): a warning lists
// those, as Terraform's "Unresolved resource instance address changes"
// does.
func applyMoves(moved []config.Moved, snap *state.Snapshot) ([]move, hcl.Diagnostics) {
	if len(moved) == 0 {
		return nil, nil
	}
	stmts := make([]*moveStmt, 0, len(moved))
	for _, m := range moved {
		st, err := parseMove(m)
		if err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid moved address", Detail: err.Error() + ".", Subject: m.Range.Ptr()}}
		}
		stmts = append(stmts, st)
	}
	order, diags := orderMoves(stmts)
	if diags.HasErrors() {
		// Nothing moves; validateMoves reports the cycle after planning,
		// unless a statement has a plainer error, as Terraform does.
		return nil, nil
	}
	// origin is where each moved object was recorded before any move,
	// so that a chain of moves shows, and is committed, as one.
	origin := map[string]string{}
	last := map[string]*moveStmt{}
	var blocked []string
	parsed := map[string]addr.Instance{} // each address parsed once
	for _, st := range order {
		for _, g := range st.groups(snap, parsed) {
			if st.occupied(snap, g.to) {
				blocked = append(blocked, fmt.Sprintf("%s could not move to %s", g.from, g.to))
				continue
			}
			for _, o := range g.objects {
				obj := *snap.Objects[o.from]
				obj.Address = o.to
				delete(snap.Objects, o.from)
				snap.Objects[o.to] = &obj
				first := o.from
				if f, ok := origin[o.from]; ok {
					first = f
					delete(origin, o.from)
					delete(last, o.from)
				}
				origin[o.to] = first
				last[o.to] = st
			}
		}
	}
	var moves []move
	for to, from := range origin {
		mv := move{from: from, to: to}
		if t := resourceType(to); t != "" && t != snap.Objects[to].Type {
			mv.retype = &retype{block: last[to].Moved}
		}
		moves = append(moves, mv)
	}
	sort.Slice(moves, func(i, j int) bool { return addr.Less(moves[i].to, moves[j].to) })
	if len(blocked) > 0 {
		sort.Strings(blocked)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Unresolved resource instance address changes",
			Detail: "Tether tried to adjust resource instance addresses in the prior state as the configuration's moved blocks say, but some adjustments did not succeed because objects are already recorded at the intended addresses:\n  - " +
				strings.Join(blocked, "\n  - ") +
				"\n\nTether has planned to destroy these objects. If these changes are not what you want, resolve the conflicts first with the \"tether state\" commands, then plan again.",
		})
	}
	return moves, diags
}

// impliedMoves are the moves Terraform makes without a moved block
// (refactoring.ImpliedMoveStatements): a resource that gained count keeps
// its unkeyed object as instance 0, and one that lost count and for_each
// keeps instance 0 as its unkeyed object, unless a moved block names the
// resource.
func impliedMoves(cfg *config.Config, snap *state.Snapshot) []config.Moved {
	named := map[string]bool{}
	for _, m := range cfg.Moved {
		for _, end := range []string{m.From, m.To} {
			if ia, err := addr.ParseInstance(end); err == nil && ia.Resource != "" {
				named[ia.Static()] = true
			}
		}
	}
	// The resources that may take a move, by address: the counted ones
	// at once, all of them only once an object has a key (an index of
	// every resource is most of the cost when none has).
	counted := map[string]*config.Node{}
	for _, n := range cfg.Nodes {
		if n.Kind == config.Resource && !named[n.Addr] && n.Repeat != nil && !n.Repeat.ForEach {
			counted[n.Addr] = n
		}
	}
	var byStatic map[string]*config.Node
	var out []config.Moved
	seen := map[string]bool{}
	for a, obj := range snap.Objects {
		if obj.Mode != state.Managed {
			continue
		}
		keyed := strings.Contains(a, "[")
		if !keyed && counted[a] == nil {
			// No key anywhere: the address is its own static address,
			// and only a counted resource takes it (as its [0]). Nearly
			// every object is so, and need not be parsed.
			continue
		}
		ia, err := addr.ParseInstance(a)
		if err != nil {
			continue
		}
		n := counted[ia.Static()]
		if keyed {
			if byStatic == nil {
				byStatic = make(map[string]*config.Node, len(cfg.Nodes))
				for _, n := range cfg.Nodes {
					if n.Kind == config.Resource && !named[n.Addr] {
						byStatic[n.Addr] = n
					}
				}
			}
			n = byStatic[ia.Static()]
		}
		if n == nil || seen[n.Addr] {
			continue
		}
		switch {
		case n.Repeat != nil && !n.Repeat.ForEach && ia.Key == cty.NilVal:
			out = append(out, config.Moved{From: n.Addr, To: n.Addr + "[0]", Module: n.Module, Range: n.Repeat.Range})
		case n.Repeat == nil && ia.Key != cty.NilVal && ia.Key.Type() == cty.Number && ia.Key.Equals(cty.Zero).True():
			out = append(out, config.Moved{From: n.Addr + "[0]", To: n.Addr, Module: n.Module, Range: n.DeclRange})
		default:
			continue
		}
		seen[n.Addr] = true
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}

// moveKind is what a moved block's endpoints name, as Terraform tells
// them apart (addrs.UnifyMoveEndpoints).
type moveKind int

const (
	moveModuleCall     moveKind = iota // module.a: every instance of the call
	moveModuleInstance                 // module.a[0], or module.a as its unkeyed instance
	moveResource                       // tether_file.a: every instance
	moveInstance                       // tether_file.a[0], or tether_file.a as its unkeyed instance
)

// moveStmt is a moved block read for execution: its endpoints relative to
// the module it is declared in.
type moveStmt struct {
	config.Moved
	// mod are the names of the module calls of the block's own module.
	mod      []string
	kind     moveKind
	from, to addr.Instance // relative to mod
	// fromRel and toRel are from and to written out.
	fromRel, toRel string
}

func parseMove(m config.Moved) (*moveStmt, error) {
	st := &moveStmt{Moved: m}
	rel := func(a string) string {
		if m.Module == "" {
			return a
		}
		return strings.TrimPrefix(a, m.Module+".")
	}
	var err error
	if st.from, err = addr.ParseInstance(rel(m.From)); err != nil {
		return nil, err
	}
	if st.to, err = addr.ParseInstance(rel(m.To)); err != nil {
		return nil, err
	}
	if m.Module != "" {
		mi, err := addr.ParseInstance(m.Module)
		if err != nil {
			return nil, err
		}
		for _, s := range mi.Module {
			st.mod = append(st.mod, s.Name)
		}
	}
	st.fromRel, st.toRel = st.from.String(), st.to.String()
	switch {
	case (st.from.Resource == "") != (st.to.Resource == ""):
		return nil, fmt.Errorf("from and to must both name resources or both name modules")
	case st.from.Resource == "":
		st.kind = moveModuleInstance
		if lastKey(st.from) == cty.NilVal && lastKey(st.to) == cty.NilVal {
			st.kind = moveModuleCall
		}
	default:
		st.kind = moveInstance
		if st.from.Key == cty.NilVal && st.to.Key == cty.NilVal {
			st.kind = moveResource
		}
	}
	return st, nil
}

// lastKey is the key of the last module call of a module address.
func lastKey(a addr.Instance) cty.Value {
	if len(a.Module) == 0 {
		return cty.NilVal
	}
	return a.Module[len(a.Module)-1].Key
}

// endpointString is an end of the statement as Terraform's diagnostics
// write it: the instances of its own module, and of a whole call or
// resource, as [*].
func (st *moveStmt) endpointString(a addr.Instance) string {
	var b strings.Builder
	for _, name := range st.mod {
		b.WriteString("module." + name + "[*].")
	}
	b.WriteString(a.String())
	if st.kind == moveModuleCall || st.kind == moveResource {
		b.WriteString("[*]")
	}
	return b.String()
}

// movedObject is one recorded object a statement moves.
type movedObject struct{ from, to string }

// moveGroup is what a statement moves as one: a resource with all its
// instances, one instance, or one module instance with everything in it.
// Its objects move together, or none does when the target is occupied.
type moveGroup struct {
	from, to string
	objects  []movedObject
}

// groups finds the recorded objects the statement moves, in every
// instance of its module, grouped by what moves as one.
func (st *moveStmt) groups(snap *state.Snapshot, parsed map[string]addr.Instance) []moveGroup {
	addrs := make([]string, 0, len(snap.Objects))
	for a := range snap.Objects {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	byFrom := map[string]*moveGroup{}
	var out []*moveGroup
	for _, a := range addrs {
		ia, ok := parsed[a]
		if !ok {
			var err error
			if ia, err = addr.ParseInstance(a); err != nil {
				continue
			}
			parsed[a] = ia
		}
		if len(ia.Module) < len(st.mod) || snap.Objects[a].Mode != state.Managed && st.kind >= moveResource {
			continue
		}
		match := true
		for i, name := range st.mod {
			match = match && ia.Module[i].Name == name
		}
		if !match {
			continue
		}
		prefix := addr.ModulePath(ia.Module[:len(st.mod)])
		relIA := ia
		relIA.Module = ia.Module[len(st.mod):]
		rel := relIA.String()
		if !matchesMove(rel, st.fromRel, st.toRel) {
			continue
		}
		to := addr.Join(prefix, st.toRel+strings.TrimPrefix(rel, st.fromRel))
		var gFrom, gTo string
		switch st.kind {
		case moveResource, moveInstance:
			gFrom, gTo = addr.Join(prefix, st.fromRel), addr.Join(prefix, st.toRel)
		default:
			// The module instance: as many calls deep as from names.
			n := len(st.from.Module)
			gFrom = addr.Join(prefix, addr.ModulePath(relIA.Module[:n]))
			gTo = strings.TrimSuffix(to, strings.TrimPrefix(a, gFrom))
		}
		g := byFrom[gFrom]
		if g == nil {
			g = &moveGroup{from: gFrom, to: gTo}
			byFrom[gFrom] = g
			out = append(out, g)
		}
		g.objects = append(g.objects, movedObject{from: a, to: to})
	}
	res := make([]moveGroup, len(out))
	for i, g := range out {
		res[i] = *g
	}
	return res
}

// occupied reports whether an object is recorded at the target of a
// group: at the instance, at any instance of the resource, or anywhere in
// the module instance.
func (st *moveStmt) occupied(snap *state.Snapshot, to string) bool {
	if _, ok := snap.Objects[to]; ok {
		return true
	}
	if st.kind == moveInstance {
		return false
	}
	for a := range snap.Objects {
		if st.kind == moveResource && strings.HasPrefix(a, to+"[") || st.kind < moveResource && strings.HasPrefix(a, to+".") {
			return true
		}
	}
	return false
}

// orderMoves orders the statements so that each runs after those it
// depends on, as Terraform orders them (refactoring.ApplyMoves); a cycle
// is Terraform's error.
func orderMoves(stmts []*moveStmt) ([]*moveStmt, hcl.Diagnostics) {
	n := len(stmts)
	deps := make([][]bool, n)
	for i := range stmts {
		deps[i] = make([]bool, n)
		for j := range stmts {
			deps[i][j] = i != j && stmtDependsOn(stmts[i], stmts[j])
		}
	}
	// Cycles: statements that reach each other.
	reach := make([][]bool, n)
	for i := range deps {
		reach[i] = slices.Clone(deps[i])
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			if reach[i][k] {
				for j := 0; j < n; j++ {
					reach[i][j] = reach[i][j] || reach[k][j]
				}
			}
		}
	}
	var diags hcl.Diagnostics
	inCycle := make([]bool, n)
	for i := 0; i < n; i++ {
		if !reach[i][i] || inCycle[i] {
			continue
		}
		var lines []string
		for j := 0; j < n; j++ {
			if reach[i][j] && reach[j][i] {
				inCycle[j] = true
				st := stmts[j]
				r := st.Range
				lines = append(lines, fmt.Sprintf("\n  - %s:%d,%d: %s → %s", r.Filename, r.Start.Line, r.Start.Column, st.endpointString(st.from), st.endpointString(st.to)))
			}
		}
		sort.Strings(lines)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cyclic dependency in move statements",
			Detail:   "The following chained move statements form a cycle, and so there is no final location to move objects to:" + strings.Join(lines, "") + "\n\nA chain of move statements must end with an address that doesn't appear in any other statements, and which typically also refers to an object still declared in the configuration.",
		})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	var order []*moveStmt
	done := make([]bool, n)
	for len(order) < n {
		for i := 0; i < n; i++ {
			if done[i] {
				continue
			}
			ready := true
			for j := 0; j < n && ready; j++ {
				ready = !deps[i][j] || done[j]
			}
			if ready {
				done[i] = true
				order = append(order, stmts[i])
			}
		}
	}
	return order, nil
}

// endpoint is one end of a statement with its whole module path, the
// steps of the statement's own module matching any instance.
type endpoint struct {
	steps []endpointStep // module calls, with the call itself for a module endpoint
	kind  moveKind
	res   string
	key   cty.Value
}

type endpointStep struct {
	name string
	key  cty.Value
	any  bool
}

func (st *moveStmt) endpoint(a addr.Instance) endpoint {
	e := endpoint{kind: st.kind, res: a.Resource, key: a.Key}
	for _, name := range st.mod {
		e.steps = append(e.steps, endpointStep{name: name, any: true})
	}
	for i, s := range a.Module {
		last := i == len(a.Module)-1 && a.Resource == ""
		e.steps = append(e.steps, endpointStep{name: s.Name, key: s.Key, any: last && st.kind == moveModuleCall})
	}
	return e
}

// stepsMatch reports whether the module path a can be the start of b,
// steps matching any instance where either says so.
func stepsMatch(a, b []endpointStep) bool {
	if len(a) > len(b) {
		return false
	}
	for i, s := range a {
		if s.name != b[i].name {
			return false
		}
		if !s.any && !b[i].any && !keysEqual(s.key, b[i].key) {
			return false
		}
	}
	return true
}

func keysEqual(a, b cty.Value) bool {
	if a == cty.NilVal || b == cty.NilVal {
		return a == b
	}
	return a.Type().Equals(b.Type()) && a.RawEquals(b)
}

// canChainFrom reports whether e, the to of one statement, can select
// what other, the from of another, selects: the second then moves on what
// the first moved.
func (e endpoint) canChainFrom(other endpoint) bool {
	if len(e.steps) != len(other.steps) || !stepsMatch(other.steps, e.steps) {
		return false
	}
	switch {
	case e.kind < moveResource && other.kind < moveResource:
		return true
	case e.kind == moveResource && other.kind == moveResource:
		return e.res == other.res
	case e.kind == moveInstance && other.kind == moveInstance:
		return e.res == other.res && keysEqual(e.key, other.key)
	}
	return false
}

// nestedWithin reports whether e is inside what other can select.
func (e endpoint) nestedWithin(other endpoint) bool {
	if !stepsMatch(other.steps, e.steps) {
		return false
	}
	switch other.kind {
	case moveModuleCall, moveModuleInstance:
		if e.kind < moveResource {
			return len(e.steps) > len(other.steps)
		}
		return true
	case moveResource:
		return len(e.steps) == len(other.steps) && e.kind == moveInstance && e.res == other.res
	}
	return false
}

// stmtDependsOn reports whether a must run after b (Terraform's
// statementDependsOn): a moves on what b moved, or one is nested in the
// other and b is the outer one.
func stmtDependsOn(a, b *moveStmt) bool {
	aFrom, aTo, bFrom, bTo := a.endpoint(a.from), a.endpoint(a.to), b.endpoint(b.from), b.endpoint(b.to)
	if aFrom.canChainFrom(bTo) {
		return true
	}
	if !(aFrom.nestedWithin(bTo) || aTo.nestedWithin(bTo) || bFrom.nestedWithin(aFrom) || bTo.nestedWithin(aFrom)) {
		return false
	}
	if len(a.mod) >= len(b.mod) {
		return true
	}
	// A move inside a module whose instances only change keys must not
	// wait for the move of the module itself, or the two would wait on
	// each other.
	return !(a.kind < moveResource && len(a.from.Module) == len(a.to.Module) && a.from.Static() == a.to.Static())
}

// matchesMove reports whether the recorded address a is the object, one
// of the instances of the resource, or inside the module named by from
// (moving to to), all relative to the same module instance.
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

// validateMoves checks the moved blocks against what the plan declared,
// as Terraform does after planning (refactoring.ValidateMoves): a block
// moving from an address that is still declared, moving an object to
// itself, or disagreeing with another block about where an object goes or
// comes from is an error. Its errors take the place of the plan's own,
// which a wrong move may well have caused.
func (p *Planned) validateMoves() hcl.Diagnostics {
	if len(p.cfg.Moved) == 0 {
		return nil
	}
	modInsts := map[string]*modInstance{}
	for _, mp := range p.mods {
		for _, mi := range mp.instances {
			modInsts[mi.str] = mi
		}
	}
	insts := map[string]*node{}
	for _, n := range p.nodes {
		if n.cfg == nil || n.cfg.Kind != config.Resource {
			continue
		}
		for _, ni := range n.per {
			for _, in := range ni.insts {
				if !in.gone {
					insts[in.addr] = n
				}
			}
		}
	}
	// declared says where the object at a (an address of st's kind) is
	// declared, if it is.
	declared := func(st *moveStmt, a string) (hcl.Range, bool) {
		ia, err := addr.ParseInstance(a)
		if err != nil {
			return hcl.Range{}, false
		}
		switch st.kind {
		case moveInstance:
			if n, ok := insts[a]; ok {
				return repeatRange(n.cfg), true
			}
		case moveResource:
			mod := addr.ModulePath(ia.Module)
			if _, ok := modInsts[mod]; !ok {
				return hcl.Range{}, false
			}
			if id, ok := p.byAddr[ia.Static()]; ok && p.nodes[id].cfg.Kind == config.Resource {
				return p.nodes[id].cfg.DeclRange, true
			}
		case moveModuleInstance:
			if _, ok := modInsts[a]; ok {
				if id, ok := p.byAddr[ia.Static()[:len(ia.Static())-1]]; ok {
					return repeatRange(p.nodes[id].cfg), true
				}
			}
		case moveModuleCall:
			parent := addr.ModulePath(ia.Module[:len(ia.Module)-1])
			if _, ok := modInsts[parent]; !ok {
				return hcl.Range{}, false
			}
			if id, ok := p.byAddr[strings.TrimSuffix(ia.Static(), ".")]; ok {
				return p.nodes[id].cfg.DeclRange, true
			}
		}
		return hcl.Range{}, false
	}
	type end struct {
		other string
		rng   hcl.Range
	}
	froms, tos := map[string]end{}, map[string]end{}
	var diags hcl.Diagnostics
	var stmts []*moveStmt
	for _, m := range p.cfg.Moved {
		st, err := parseMove(m)
		if err != nil {
			continue // applyMoves reported it
		}
		stmts = append(stmts, st)
		mp := p.mods[m.Module]
		if mp == nil {
			continue
		}
		noun, short := moveNouns(st.kind)
		for _, mi := range mp.instances {
			from, to := addr.Join(mi.str, st.fromRel), addr.Join(mi.str, st.toRel)
			if from == to {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Redundant move statement",
					Detail:  fmt.Sprintf("This statement declares a move from %s to the same address, which is the same as not declaring this move at all.", from),
					Subject: m.Range.Ptr()})
				continue
			}
			if r, ok := declared(st, from); ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Moved object still exists",
					Detail: fmt.Sprintf("This statement declares a move from %s, but that %s is still declared at %s.\n\nChange your configuration so that this %s will be declared as %s instead.",
						from, noun, startString(r), short, to),
					Subject: m.Range.Ptr()})
			}
			if e, ok := froms[from]; ok && e.other != to {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Ambiguous move statements",
					Detail: fmt.Sprintf("A statement at %s declared that %s moved to %s, but this statement instead declares that it moved to %s.\n\nEach %s can move to only one destination %s.",
						startString(e.rng), from, e.other, to, noun, short),
					Subject: m.Range.Ptr()})
			} else if !ok {
				froms[from] = end{to, m.Range}
			}
			if e, ok := tos[to]; ok && e.other != from {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Ambiguous move statements",
					Detail: fmt.Sprintf("A statement at %s declared that %s moved to %s, but this statement instead declares that %s moved there.\n\nEach %s can have moved from only one source %s.",
						startString(e.rng), e.other, to, from, noun, short),
					Subject: m.Range.Ptr()})
			} else if !ok {
				tos[to] = end{from, m.Range}
			}
		}
	}
	if !diags.HasErrors() {
		// Cycles last: other errors may well be their cause, and say more.
		_, diags = orderMoves(stmts)
	}
	return diags
}

// moveNouns names what a statement of kind moves, as Terraform's
// diagnostics do.
func moveNouns(k moveKind) (noun, short string) {
	switch k {
	case moveModuleInstance:
		return "module instance", "instance"
	case moveModuleCall:
		return "module call", "call"
	case moveResource:
		return "resource", "resource"
	}
	return "resource instance", "instance"
}

// repeatRange is what decides the instances of a resource or module call:
// its count or for_each expression, or its block when it has neither.
func repeatRange(cn *config.Node) hcl.Range {
	if cn.Repeat != nil {
		return cn.Repeat.Range
	}
	return cn.DeclRange
}

// startString is where a range starts as Terraform's messages write it.
func startString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d,%d", r.Filename, r.Start.Line, r.Start.Column)
}

// verifyTargetedMoves is Terraform's refusal to plan with -target options
// that leave out an object a move renames, at its old or new address
// (prePlanVerifyTargetedMoves): planning part of a move would record the
// rest wrongly. With -exclude, as OpenTofu, an exclude that covers either
// address is refused for the same reason.
func verifyTargetedMoves(moves []move, targets, excludes []string) hcl.Diagnostics {
	if len(targets) == 0 && len(excludes) == 0 {
		return nil
	}
	coveredBy := func(list []string, a string) bool {
		return slices.ContainsFunc(list, func(t string) bool { return addr.Covers(t, a) })
	}
	leftOut := func(a string) bool { return !coveredBy(targets, a) }
	flag := "target"
	if len(targets) == 0 {
		leftOut = func(a string) bool { return coveredBy(excludes, a) }
		flag = "exclude"
	}
	var excluded []string
	for _, m := range moves {
		for _, a := range []string{m.from, m.to} {
			if leftOut(a) {
				excluded = append(excluded, a)
			}
		}
	}
	if len(excluded) == 0 {
		return nil
	}
	// Whole resources, as Terraform lists them.
	seen := map[string]bool{}
	var list strings.Builder
	addr.Sort(excluded, func(a string) string { return a })
	for _, a := range excluded {
		ia, err := addr.ParseInstance(a)
		if err != nil {
			continue
		}
		ia.Key = cty.NilVal
		r := ia.String()
		if !seen[r] {
			seen[r] = true
			fmt.Fprintf(&list, "\n  -%s=%q", flag, r)
		}
	}
	detail := "Resource instances in your current state have moved to new addresses in the latest configuration. Tether must include those resource instances while planning in order to ensure a correct result, but your -target=... options do not fully cover all of those resource instances.\n\nTo create a valid plan, either remove your -target=... options altogether or add the following additional target options:" + list.String() + "\n\nNote that adding these options may include further additional resource instances in your plan, in order to respect object dependencies."
	if flag == "exclude" {
		detail = "Resource instances in your current state have moved to new addresses in the latest configuration. Tether must include those resource instances while planning in order to ensure a correct result, but your -exclude=... options leave some of them out.\n\nTo create a valid plan, remove these exclude options:" + list.String()
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Moved resource instances excluded by targeting",
		Detail:   detail,
	}}
}
