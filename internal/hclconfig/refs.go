package hclconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/funcs"
)

// evalRef is one reference a node's expressions make, resolved to the node
// it names and to where in the evaluation context its value goes.
type evalRef struct {
	addr string
	// path is the position in the evaluation context: ["var", "x"],
	// ["tether_file", "a"], ["data", "tether_file", "b"]; for a module
	// output ["module", "net", "id"].
	path []string
	// repeat is the module call's count/for_each kind, for module outputs.
	repeat string
}

func hclsyntaxValidName(name string) bool {
	if asciiIdentifier(name) {
		return true
	}
	return hclsyntax.ValidIdentifier(name)
}

// asciiIdentifier reports whether name is a letter or an underscore
// followed by letters, digits, underscores and dashes, all ASCII: an
// identifier, as nearly every name is. hclsyntax.ValidIdentifier runs its
// scanner over the name to say so, a microsecond and a slice of tokens for
// each of a configuration's resources; it decides the rest (Unicode).
func asciiIdentifier(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return name != ""
}

// traversalAddr returns the module-relative address of the node a
// traversal refers to, and whether the traversal names the node as a whole
// (no attribute after it). It returns "" for roots that name no node.
func traversalAddr(t hcl.Traversal) (addr string, whole bool) {
	names := attrNames(t)
	switch t.RootName() {
	case "path", "terraform", "count", "each", "self", "module":
		return "", false
	case "var", "local":
		if len(names) < 2 {
			return "", false
		}
		return names[0] + "." + names[1], len(t) == 2
	case "data", "ephemeral":
		if len(names) < 3 {
			return "", false
		}
		return names[0] + "." + names[1] + "." + names[2], len(t) == 3
	default:
		if len(names) < 2 {
			return "", false
		}
		return names[0] + "." + names[1], len(t) == 2
	}
}

// dependsOnAddr returns the declaration a depends_on entry names, with
// Terraform's rule: a whole object, optionally one of its instances
// (tether_file.a[0], module.m["k"]), a module call's output (module.m.o,
// which orders after the whole call here), a variable or a local value;
// nothing may follow it. An instance key orders after every instance, as
// in Terraform, where depends_on works on configuration objects.
func dependsOnAddr(t hcl.Traversal) (string, bool) {
	names := attrNames(t)
	var n int // how many names make the address
	switch t.RootName() {
	case "var", "local":
		if len(names) != 2 || len(t) != 2 {
			return "", false
		}
		return names[0] + "." + names[1], true
	case "module":
		if len(names) < 2 {
			return "", false
		}
		rest := t[2:]
		if len(rest) > 0 {
			if _, ok := rest[0].(hcl.TraverseIndex); ok {
				rest = rest[1:]
			}
		}
		if len(rest) > 0 {
			if _, ok := rest[0].(hcl.TraverseAttr); ok {
				rest = rest[1:] // the call's output
			}
		}
		if len(rest) > 0 {
			return "", false
		}
		return "module." + names[1], true
	case "data", "ephemeral":
		n = 3
	case "path", "terraform", "count", "each", "self":
		return "", false
	default:
		n = 2
	}
	if len(names) < n {
		return "", false
	}
	rest := t[n:]
	if len(rest) > 0 {
		if _, ok := rest[0].(hcl.TraverseIndex); ok {
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		return "", false
	}
	return strings.Join(names[:n], "."), true
}

// attrNames returns the leading names of a traversal, up to the first step
// that is not an attribute access.
// moduleOutput is the output a module reference names (id in
// module.net.id and module.net["k"].id), false when it names the call or
// one of its instances as a whole.
func moduleOutput(t hcl.Traversal) (string, bool) {
	rest := t[1:]
	if len(rest) > 0 {
		rest = rest[1:] // the call's name
	}
	if len(rest) > 0 {
		if _, ok := rest[0].(hcl.TraverseIndex); ok {
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		if a, ok := rest[0].(hcl.TraverseAttr); ok {
			return a.Name, true
		}
	}
	return "", false
}

func attrNames(t hcl.Traversal) []string {
	var out []string
	for _, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			out = append(out, s.Name)
		case hcl.TraverseAttr:
			out = append(out, s.Name)
		default:
			return out
		}
	}
	return out
}

// resolveRepeat resolves the references of a count, for_each or enabled
// expression (what names it): they are the node's references too, but
// count.* and each.* cannot appear in them.
func (m *module) resolveRepeat(n *config.Node, traversals []hcl.Traversal, what string) []evalRef {
	var keep []hcl.Traversal
	for _, t := range traversals {
		if r := t.RootName(); r == "count" || r == "each" {
			m.l.errorf(t.SourceRange(), fmt.Sprintf("Invalid reference to %q in %s", r, what),
				"%s decides how many instances there are, so it cannot depend on an instance's own %s.*.", what, r)
			continue
		}
		keep = append(keep, t)
	}
	return m.refs(n, keep, "", false)
}

// resolve checks every traversal of a node against the declarations in the
// module, records the node's references and returns them for evaluation.
// repeatKind ("", "count", "for_each") says which of count.* and each.* the
// node may use.
func (m *module) resolve(n *config.Node, traversals []hcl.Traversal, repeatKind string) []evalRef {
	refs := m.refs(n, traversals, repeatKind, true)
	if len(refs) == 0 {
		// Most nodes of a large configuration refer to nothing: an entry
		// each would be held for the whole run to say so.
		return m.l.evalRefs[n.Addr]
	}
	m.l.evalRefs[n.Addr] = append(m.l.evalRefs[n.Addr], refs...)
	return m.l.evalRefs[n.Addr]
}

func (m *module) refs(n *config.Node, traversals []hcl.Traversal, repeatKind string, record bool) []evalRef {
	l := m.l
	var refs []evalRef
	seen := map[string]bool{}
	for _, r := range n.Refs {
		seen[r.Addr] = true
	}
	add := func(addr string, rng hcl.Range, path []string, repeat string) {
		refs = append(refs, evalRef{addr: addr, path: path, repeat: repeat})
		if !seen[addr] {
			seen[addr] = true
			n.Refs = append(n.Refs, config.Ref{Addr: addr, Range: rng})
		}
	}
	// first records whether a resource is referenced for the first time,
	// for refKey.
	first := func(addr string) bool { return !seen[addr] }
	for _, t := range traversals {
		rng := t.SourceRange()
		root := t.RootName()
		names := attrNames(t)
		switch root {
		case "path":
			if len(names) < 2 || (names[1] != "module" && names[1] != "root" && names[1] != "cwd") {
				l.errorf(rng, "Invalid path attribute", "The path object has the attributes module, root and cwd.")
			}
			continue
		case "terraform":
			if len(names) < 2 || names[1] != "workspace" {
				l.errorf(rng, "Invalid terraform attribute", "The terraform object has one attribute, workspace.")
			}
			continue
		case "count":
			if repeatKind != "count" {
				l.errorf(rng, `Reference to "count" in context without count`,
					"count.index can be used only in a resource, data source or module block that sets count. Add count, or use a plain value instead.")
			} else if len(names) < 2 || names[1] != "index" {
				l.errorf(rng, "Invalid count attribute", "The count object has one attribute, index.")
			}
			continue
		case "each":
			if repeatKind != "for_each" {
				l.errorf(rng, `Reference to "each" in context without for_each`,
					"each.key and each.value can be used only in a resource, data source or module block that sets for_each. Add for_each, or use a plain value instead.")
			} else if len(names) < 2 || (names[1] != "key" && names[1] != "value") {
				l.errorf(rng, "Invalid each attribute", "The each object has the attributes key and value.")
			}
			continue
		case "self":
			l.errorf(rng, "Invalid reference to self", "self refers to a resource instance only inside its own postconditions.")
			continue
		case "module":
			if len(names) < 2 {
				l.errorf(rng, "Invalid module reference", "A module reference names a module call, such as module.net.NAME.")
				continue
			}
			call, ok := m.calls[names[1]]
			if !ok {
				var known []string
				for c := range m.calls {
					known = append(known, c)
				}
				l.errorf(rng, "Reference to undeclared module", "No module call named %q is declared in this module.%s", names[1], didYouMean(names[1], known))
				continue
			}
			if call.child == nil || call.child.calls == nil {
				continue // the call itself failed to load and said why
			}
			var outputs []string
			if o, ok := moduleOutput(t); ok {
				// module.net.x or module.net["k"].x: as in Terraform, the
				// output alone, so that what it depends on (and only that)
				// is what the reference depends on.
				outputs = []string{o}
			} else {
				// module.net, module.net["k"] or module.net[local.k].x (an
				// index that is not a constant): every output is needed to
				// build the object.
				outputs = call.child.outputNames()
			}
			for _, o := range outputs {
				addr := call.child.prefix("output." + o)
				if _, ok := l.decls[addr]; !ok {
					l.errorf(rng, "Unsupported attribute", "The module %s has no output named %q.%s", call.node.Addr, o, didYouMean(o, call.child.outputNames()))
					continue
				}
				add(addr, rng, []string{"module", names[1], o}, call.repeat)
			}
			// The call's own expansion must be known before its outputs.
			if !seen[call.node.Addr] {
				seen[call.node.Addr] = true
				n.Refs = append(n.Refs, config.Ref{Addr: call.node.Addr, Range: rng})
			}
			if _, ok := moduleOutput(t); !ok {
				for i := range n.Refs {
					if n.Refs[i].Addr == call.node.Addr {
						n.Refs[i].WholeModule = true
					}
				}
			}
			continue
		}
		rel, _ := traversalAddr(t)
		if rel == "" {
			l.errorf(rng, "Invalid reference", "A reference to %q must name an object, such as %s.NAME.", root, root)
			continue
		}
		addr := m.prefix(rel)
		target, ok := l.decls[addr]
		if !ok || target.Kind == config.Output || target.Kind == config.Provider || target.Kind == config.Check {
			m.undeclared(n, rng, rel, root, names)
			continue
		}
		if target.Check != "" && target.Check != n.Addr {
			l.errorf(rng, "Reference to scoped resource", "The referenced data resource %q %q is not available from this context: it is declared inside %s, and only that check's assertions may refer to it.", target.Type, target.Name, target.Check)
			continue
		}
		if target == n && !n.Argument {
			l.errorf(rng, "Self-referential block", "%s cannot refer to itself; remove the reference to %s.", n.Addr, rel)
			continue
		}
		isNew := first(addr)
		add(addr, rng, strings.Split(rel, "."), "")
		if target.Kind == config.Resource || target.Kind == config.DataSource {
			refKey(n, addr, t, len(strings.Split(rel, ".")), isNew)
		}
	}
	return refs
}

// refKey records in n.RefKeys the constant instance key a traversal of a
// resource (named by its first size steps) gives, as long as every
// reference n makes to it has one; a reference without one, or a first
// reference recorded elsewhere, makes it a whole reference.
func refKey(n *config.Node, addr string, t hcl.Traversal, size int, isNew bool) {
	var key cty.Value
	if len(t) > size {
		if idx, ok := t[size].(hcl.TraverseIndex); ok && idx.Key.IsKnown() && !idx.Key.IsNull() {
			key = idx.Key
		}
	}
	keys, narrowed := n.RefKeys[addr]
	switch {
	case key == cty.NilVal || (!isNew && !narrowed):
		delete(n.RefKeys, addr)
	case isNew:
		if n.RefKeys == nil {
			n.RefKeys = map[string][]cty.Value{}
		}
		n.RefKeys[addr] = []cty.Value{key}
	default:
		n.RefKeys[addr] = append(keys, key)
	}
}

func (m *module) outputNames() []string {
	var out []string
	prefix := m.prefix("output.")
	for a, d := range m.l.decls {
		if d.Kind == config.Output && strings.HasPrefix(a, prefix) && !strings.Contains(a[len(prefix):], ".") {
			out = append(out, a[len(prefix):])
		}
	}
	sort.Strings(out)
	return out
}

// undeclared reports a reference from n to something not declared,
// suggesting a close name; never n itself, which cannot refer to itself.
func (m *module) undeclared(n *config.Node, rng hcl.Range, rel, root string, names []string) {
	l := m.l
	var candidates []string
	for a, d := range l.decls {
		if d == n || d.Module != m.path || d.Kind == config.Output || d.Kind == config.Provider || d.Kind == config.Module {
			continue
		}
		candidates = append(candidates, strings.TrimPrefix(a, m.path+"."))
	}
	where := "this module"
	if m.path == "" {
		where = "the root module"
	}
	switch root {
	case "var":
		l.errorf(rng, "Reference to undeclared input variable", "An input variable named %q has not been declared in %s.%s", names[1], where, didYouMean(rel, candidates))
	case "local":
		l.errorf(rng, "Reference to undeclared local value", "A local value named %q has not been declared in %s.%s", names[1], where, didYouMean(rel, candidates))
	case "data":
		l.errorf(rng, "Reference to undeclared data source", "A data source %q %q has not been declared in %s.%s", names[1], names[2], where, didYouMean(rel, candidates))
	case "ephemeral":
		l.errorf(rng, "Reference to undeclared ephemeral resource", "An ephemeral resource %q %q has not been declared in %s.%s", names[1], names[2], where, didYouMean(rel, candidates))
	default:
		l.errorf(rng, "Reference to undeclared resource", "A managed resource %q %q has not been declared in %s.%s", names[0], names[1], where, didYouMean(rel, candidates))
	}
}

// evalContext builds the variables for one evaluation, holding only what
// the expression refers to: building the whole configuration's values for
// every evaluation would cost the square of its size.
func (m *module) evalContext(refs []evalRef, scope config.Scope, inst config.Instance, self cty.Value) *hcl.EvalContext {
	root := map[string]any{}
	var modules map[string]*moduleValue
	for _, r := range refs {
		if r.path[0] == "module" {
			if modules == nil {
				modules = map[string]*moduleValue{}
			}
			mv := modules[r.path[1]]
			if mv == nil {
				mv = &moduleValue{repeat: r.repeat, outputs: map[string]cty.Value{}}
				modules[r.path[1]] = mv
			}
			mv.outputs[r.path[2]] = scope.Value(r.addr)
			continue
		}
		mm := root
		for _, step := range r.path[:len(r.path)-1] {
			next, ok := mm[step].(map[string]any)
			if !ok {
				next = map[string]any{}
				mm[step] = next
			}
			mm = next
		}
		mm[r.path[len(r.path)-1]] = scope.Value(r.addr)
	}
	vars := make(map[string]cty.Value, len(root)+5)
	for k, v := range root {
		vars[k] = toObject(v)
	}
	if modules != nil {
		mods := map[string]cty.Value{}
		for name, mv := range modules {
			mods[name] = mv.value()
		}
		vars["module"] = cty.ObjectVal(mods)
	}
	m.fixedOnce.Do(func() {
		modDir := m.relDir
		if modDir == "" {
			modDir = "."
		}
		m.pathVal = cty.ObjectVal(map[string]cty.Value{
			"module": cty.StringVal(modDir),
			"root":   cty.StringVal("."),
			"cwd":    cty.StringVal(m.l.cwd),
		})
	})
	vars["path"] = m.pathVal
	vars["terraform"] = m.l.terraformVal()
	if inst.Key != cty.NilVal {
		if inst.Key.Type() == cty.Number {
			vars["count"] = cty.ObjectVal(map[string]cty.Value{"index": inst.Key})
		} else {
			vars["each"] = cty.ObjectVal(map[string]cty.Value{"key": inst.Key, "value": inst.Each})
		}
	}
	if self != cty.NilVal {
		vars["self"] = self
	}
	rs, ok := scope.(config.RunScope)
	if !ok || m.l.lib == nil {
		return &hcl.EvalContext{Variables: vars, Functions: m.functions()}
	}
	// The run's own functions (timestamp, plantimestamp...) are layered
	// over the module's, which every run shares.
	run := rs.Run()
	ctx := (&hcl.EvalContext{Functions: m.functions()}).NewChild()
	ctx.Variables = vars
	ctx.Functions = m.l.funcsForRun(funcs.Run{PlanTime: run.PlanTime, Applying: run.Applying})
	return ctx
}

// terraformVal is the terraform object: its one attribute, workspace.
func (l *loader) terraformVal() cty.Value {
	l.terraformOnce.Do(func() {
		ws := l.opts.Workspace
		if ws == "" {
			ws = "default"
		}
		l.terraformV = cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal(ws)})
	})
	return l.terraformV
}

// moduleValue gathers the outputs of a module call an expression refers to
// and shapes them like the call: one object, a tuple of objects (count) or
// an object of objects by key (for_each).
type moduleValue struct {
	repeat  string
	outputs map[string]cty.Value // each aggregated over the call's instances
}

func (mv *moduleValue) value() cty.Value {
	if mv.repeat == "" {
		return cty.ObjectVal(mv.outputs)
	}
	for _, v := range mv.outputs {
		if !v.IsKnown() {
			return cty.DynamicVal
		}
	}
	switch mv.repeat {
	case "enabled":
		// Each output is a tuple of none or one (see the engine's
		// valueAt): a disabled module is null, as in OpenTofu.
		attrs := map[string]cty.Value{}
		for name, v := range mv.outputs {
			if v.LengthInt() == 0 {
				return cty.NullVal(cty.DynamicPseudoType)
			}
			attrs[name] = v.Index(cty.Zero)
		}
		return cty.ObjectVal(attrs)
	case "count":
		n := -1
		for _, v := range mv.outputs {
			n = v.LengthInt()
		}
		if n < 0 {
			return cty.DynamicVal
		}
		elems := make([]cty.Value, n)
		for i := range elems {
			attrs := map[string]cty.Value{}
			for name, v := range mv.outputs {
				attrs[name] = v.Index(cty.NumberIntVal(int64(i)))
			}
			elems[i] = cty.ObjectVal(attrs)
		}
		return cty.TupleVal(elems)
	default:
		byKey := map[string]map[string]cty.Value{}
		for name, v := range mv.outputs {
			for it := v.ElementIterator(); it.Next(); {
				k, ev := it.Element()
				if byKey[k.AsString()] == nil {
					byKey[k.AsString()] = map[string]cty.Value{}
				}
				byKey[k.AsString()][name] = ev
			}
		}
		obj := map[string]cty.Value{}
		for k, attrs := range byKey {
			obj[k] = cty.ObjectVal(attrs)
		}
		return cty.ObjectVal(obj)
	}
}

func toObject(v any) cty.Value {
	switch v := v.(type) {
	case cty.Value:
		return v
	case map[string]any:
		attrs := make(map[string]cty.Value, len(v))
		for k, e := range v {
			attrs[k] = toObject(e)
		}
		return cty.ObjectVal(attrs)
	}
	panic("unreachable")
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].NameRange, out[j].NameRange
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return out
}

// didYouMean suggests the candidate closest to name, when one is close.
func didYouMean(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		// The name itself is never a suggestion: where it is a
		// candidate, the mistake is elsewhere.
		if d := levenshtein(name, c); d < bestDist && c != name {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
