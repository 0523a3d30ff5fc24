package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
)

// modPath is a static module path and its instances.
type modPath struct {
	name   string // "" or "module.a.module.b"
	parent *modPath
	call   *node // the module call; nil for the root
	// instances are known once the call has been planned in every
	// instance of the parent; a parent instance whose expansion is unknown
	// contributes none and is listed in deferredIn.
	instances  []*modInstance
	deferredIn map[*modInstance]string
	children   map[*modInstance][]*modInstance
}

// modInstance is one instance of a module.
type modInstance struct {
	path   *modPath
	index  int
	steps  []addr.Step
	str    string // module.a["x"].module.b
	parent *modInstance
	key    cty.Value
	each   cty.Value
	// override is the outputs object a test's override_module gives this
	// instance (see PlanOptions.ModuleOverrides), cty.NilVal when none.
	override cty.Value
	// scope is scopeAt's answer for this instance, made once (see
	// withScope): boxed anew, it was an allocation per evaluation.
	scope config.Scope
}

// overridden reports whether a test's override_module stands in for the
// instance: nothing in it is planned, and its outputs are the override's.
func (mi *modInstance) overridden() bool { return mi.override != cty.NilVal }

// moduleOverride is the outputs object PlanOptions.ModuleOverrides gives
// module instance mi: its own, else its call's (every instance of it),
// as Terraform's test framework looks them up; cty.NilVal when none.
func (p *Planned) moduleOverride(mi *modInstance) cty.Value {
	if len(p.opts.ModuleOverrides) == 0 {
		return cty.NilVal
	}
	if v, ok := p.opts.ModuleOverrides[mi.str]; ok {
		return v
	}
	call := append([]addr.Step(nil), mi.steps...)
	call[len(call)-1].Key = cty.NilVal
	if v, ok := p.opts.ModuleOverrides[addr.ModulePath(call)]; ok {
		return v
	}
	return cty.NilVal
}

// overrideOutput is the value the override of mi gives its output name:
// the one its outputs object sets, null otherwise, as in Terraform.
func overrideOutput(mi *modInstance, name string) cty.Value {
	v := mi.override
	if v.Type().IsObjectType() && v.Type().HasAttribute(name) {
		return v.GetAttr(name)
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

// modulePaths makes the static module paths of a configuration; the root
// has its one instance from the start.
func modulePaths(cfg *config.Config) map[string]*modPath {
	root := &modPath{name: ""}
	root.instances = []*modInstance{{path: root}}
	mods := map[string]*modPath{"": root}
	var get func(name string) *modPath
	get = func(name string) *modPath {
		if m, ok := mods[name]; ok {
			return m
		}
		parentName := ""
		if i := strings.LastIndex(name, ".module."); i >= 0 {
			parentName = name[:i]
		}
		m := &modPath{name: name, parent: get(parentName)}
		mods[name] = m
		return m
	}
	for _, n := range cfg.Nodes {
		get(n.Module)
		if n.Kind == config.Module {
			get(n.Addr)
		}
	}
	return mods
}

// expandModule plans a module call in every instance of the calling
// module: it evaluates count or for_each and makes the module's instances.
func (p *Planned) expandModule(n *node) hcl.Diagnostics {
	child := p.mods[n.addr]
	child.instances = nil
	child.deferredIn = map[*modInstance]string{}
	child.children = map[*modInstance][]*modInstance{}
	var diags hcl.Diagnostics
	n.per = newNodeInsts(n.mod.instances)
	for i, pi := range n.mod.instances {
		ni := n.per[i]
		if n.mod.deferredIn[pi] != "" || pi.overridden() {
			// Nothing inside an overridden module instance is expanded.
			continue
		}
		keys, deferredBy, d := p.repeatKeys(n, pi)
		diags = append(diags, d...)
		if d.HasErrors() {
			return diags
		}
		if deferredBy != "" {
			child.deferredIn[pi] = deferredBy
			ni.deferred, ni.waiting = true, deferredBy
			n.deferredAny = true
			continue
		}
		for _, k := range keys {
			mi := p.withScope(&modInstance{path: child, index: len(child.instances), parent: pi, key: k.key, each: k.each})
			mi.steps = append(append([]addr.Step(nil), pi.steps...), addr.Step{Name: n.cfg.Name, Key: k.key})
			mi.str = addr.ModulePath(mi.steps)
			mi.override = p.moduleOverride(mi)
			child.instances = append(child.instances, mi)
			child.children[pi] = append(child.children[pi], mi)
		}
	}
	// Instances of deferred parents count as deferred here too.
	for pi, why := range n.mod.deferredIn {
		child.deferredIn[pi] = why
	}
	return diags
}

// repeatKey is one instance key with its each.value.
type repeatKey struct {
	key, each cty.Value
}

// ref is k for an instance to hold, or nil when k has neither key nor
// each.value (an instance's key and each read cty.NilVal then). The keys
// k is in must not change afterwards: instances share them.
func (k *repeatKey) ref() *repeatKey {
	if k.key == cty.NilVal && k.each == cty.NilVal {
		return nil
	}
	return k
}

// repeatKeys evaluates a node's count or for_each in one module instance.
// When the collection is not known yet it returns what it waits for
// instead.
// single is the one key of a node that is not repeated, shared: the
// callers of repeatKeys only read what it returns.
var single = []repeatKey{{key: cty.NilVal, each: cty.NilVal}}

func (p *Planned) repeatKeys(n *node, mi *modInstance) ([]repeatKey, string, hcl.Diagnostics) {
	r := n.cfg.Repeat
	if r == nil && n.cfg.Enabled != nil {
		return p.enabledKeys(n, mi)
	}
	if r == nil {
		return single, "", nil
	}
	v, diags := r.Eval(p.scopeAt(mi))
	if diags.HasErrors() {
		return nil, "", attribute(n.addr, n.cfg, diags)
	}
	uv, _ := v.UnmarkDeep()
	if !uv.IsKnown() || (r.ForEach && !uv.IsWhollyKnown() && !keysKnown(uv)) {
		why := p.waitingOn(n, mi)
		if why == "" {
			why = "its count or for_each value"
		}
		return nil, why, nil
	}
	if !r.ForEach {
		count, _ := uv.AsBigFloat().Int64()
		keys := make([]repeatKey, count)
		for i := range keys {
			keys[i] = repeatKey{key: cty.NumberIntVal(int64(i)), each: cty.NilVal}
		}
		return keys, "", nil
	}
	var keys []repeatKey
	if uv.Type().IsSetType() {
		for it := uv.ElementIterator(); it.Next(); {
			_, e := it.Element()
			keys = append(keys, repeatKey{key: e, each: e})
		}
	} else {
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			keys = append(keys, repeatKey{key: k, each: e})
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].key.AsString() < keys[j].key.AsString() })
	return keys, "", nil
}

// enabledKeys evaluates OpenTofu's lifecycle { enabled } in one module
// instance: the one instance, without a key, or none. Unlike count, a
// value not known yet does not defer the object: as in OpenTofu it is an
// error at the expression while planning; a destroy, which plans the
// deletion of what is recorded whatever the configuration says, waits.
func (p *Planned) enabledKeys(n *node, mi *modInstance) ([]repeatKey, string, hcl.Diagnostics) {
	en := n.cfg.Enabled
	v, diags := en.Eval(p.scopeAt(mi))
	if diags.HasErrors() {
		return nil, "", attribute(n.addr, n.cfg, diags)
	}
	v, _ = v.UnmarkDeep()
	switch {
	case !v.IsKnown() && p.opts.Destroy:
		return nil, "its enabled value", nil
	case !v.IsKnown():
		return nil, "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid enabled argument",
			Detail: fmt.Sprintf("The enabled value of %s is derived from a value that is not known until apply, so Tether cannot tell whether the object is declared. "+
				"Set it from values known while planning, such as variables, locals and data sources.", addr.Join(mi.str, relAddr(n))),
			Subject: en.Range.Ptr(),
		}}
	case v.True():
		return []repeatKey{{key: cty.NilVal, each: cty.NilVal}}, "", nil
	}
	return nil, "", nil
}

// keysKnown reports whether a map's keys are known even though some of
// its values are not: the instances are then known.
func keysKnown(v cty.Value) bool {
	if !v.IsKnown() || v.Type().IsSetType() {
		return false
	}
	return v.Type().IsMapType() || v.Type().IsObjectType()
}

// waitingOn names the first resource with pending changes that a node's
// references lead to, for saying what a deferred node waits for.
func (p *Planned) waitingOn(n *node, mi *modInstance) string {
	seen := map[int]bool{}
	var find func(m *node) string
	find = func(m *node) string {
		for _, d := range m.deps {
			if seen[d] {
				continue
			}
			seen[d] = true
			dn := p.nodes[d]
			ni := dn.at(mi)
			if ni == nil || !ni.pending {
				continue
			}
			if ni.deferred && ni.waiting != "" {
				return ni.waiting
			}
			if dn.cfg != nil && (dn.cfg.Kind == config.Resource || dn.cfg.Kind == config.DataSource) {
				return dn.addr
			}
			if s := find(dn); s != "" {
				return s
			}
		}
		return ""
	}
	return find(n)
}

// at returns the node in the module instance mi, or in the ancestor of mi
// that belongs to the node's module; nil when the node has no instance
// there.
func (n *node) at(mi *modInstance) *nodeInst {
	for m := mi; m != nil; m = m.parent {
		if m.path == n.mod {
			if m.index < len(n.per) {
				return n.per[m.index]
			}
			return nil
		}
	}
	return nil
}

// scopeAt evaluates references from within module instance mi.
func (p *Planned) scopeAt(mi *modInstance) config.Scope {
	if mi != nil && mi.scope != nil {
		return mi.scope
	}
	return scope{p: p, mi: mi}
}

// withScope gives module instance mi the scope scopeAt returns for it.
func (p *Planned) withScope(mi *modInstance) *modInstance {
	mi.scope = &scope{p: p, mi: mi}
	return mi
}

// scope is the config.RunScope of an evaluation in a module instance.
type scope struct {
	p  *Planned
	mi *modInstance
}

func (s scope) Value(a string) cty.Value {
	id, ok := s.p.byAddr[a]
	if !ok {
		return cty.DynamicVal
	}
	return s.p.valueAt(s.p.nodes[id], s.mi)
}

func (s scope) Run() config.Run { return s.p.run }

// valueAt is the value of node t as seen from module instance mi: its own
// value when t is in mi's module or an enclosing one, and for an output of
// a module called from mi, the outputs of all that call's instances shaped
// like the call (one value, a tuple, or an object by key).
func (p *Planned) valueAt(t *node, mi *modInstance) cty.Value {
	if ni := t.at(mi); ni != nil {
		if ni.value == cty.NilVal {
			return cty.DynamicVal
		}
		return ni.value
	}
	if t.mod.parent != mi.path {
		// A node of an unrelated module (a sibling's, or one nested deeper
		// than a child): when that module has a single instance, its value
		// is the same wherever it is seen from.
		if len(t.mod.instances) == 1 && len(t.per) == 1 && t.per[0].value != cty.NilVal {
			return t.per[0].value
		}
		return cty.DynamicVal
	}
	child := t.mod
	if child.deferredIn[mi] != "" || child.call == nil {
		return cty.DynamicVal
	}
	kids := child.children[mi]
	r := child.call.cfg.Repeat
	switch {
	case child.call.cfg.Enabled != nil:
		// None or one: the front-end makes a disabled module null.
		elems := make([]cty.Value, len(kids))
		for i, k := range kids {
			elems[i] = p.valueAt(t, k)
		}
		return cty.TupleVal(elems)
	case r == nil:
		if len(kids) != 1 {
			return cty.DynamicVal
		}
		return p.valueAt(t, kids[0])
	case !r.ForEach:
		elems := make([]cty.Value, len(kids))
		for i, k := range kids {
			elems[i] = p.valueAt(t, k)
		}
		return cty.TupleVal(elems)
	default:
		attrs := make(map[string]cty.Value, len(kids))
		for _, k := range kids {
			attrs[k.key.AsString()] = p.valueAt(t, k)
		}
		return cty.ObjectVal(attrs)
	}
}

// aggregate is the value of a repeated node as expressions see it: a
// tuple for count, an object by key for for_each, the one value
// otherwise, or null when lifecycle { enabled } is false, as in OpenTofu.
func aggregate(cn *config.Node, insts []*instance) cty.Value {
	r := cn.Repeat
	switch {
	case cn.Enabled != nil && len(insts) == 0:
		return cty.NullVal(cty.DynamicPseudoType)
	case r == nil:
		if len(insts) == 0 {
			return cty.DynamicVal
		}
		return insts[0].value
	case !r.ForEach:
		elems := make([]cty.Value, len(insts))
		for i, in := range insts {
			elems[i] = in.value
		}
		return cty.TupleVal(elems)
	default:
		attrs := make(map[string]cty.Value, len(insts))
		for _, in := range insts {
			attrs[in.key().AsString()] = in.value
		}
		return cty.ObjectVal(attrs)
	}
}

// instanceAddr is the address of one instance of a resource node.
func instanceAddr(n *node, mi *modInstance, key cty.Value) string {
	rel := strings.TrimPrefix(n.addr, n.mod.name+".")
	if n.mod.name == "" {
		rel = n.addr
	}
	return addr.Join(mi.str, rel+addr.KeyString(key))
}

// relAddr is a node's address within its module.
func relAddr(n *node) string {
	if n.mod.name == "" {
		return n.addr
	}
	return strings.TrimPrefix(n.addr, n.mod.name+".")
}
