package hclconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

// evalRef is one reference a node's expressions make, already resolved to
// the node it names and to where in the evaluation context it goes.
type evalRef struct {
	addr string
	// path is the position in the evaluation context: ["var", "x"],
	// ["tether_file", "a"], ["data", "tether_file", "b"].
	path []string
}

func hclsyntaxValidName(name string) bool { return hclsyntax.ValidIdentifier(name) }

// traversalAddr returns the address of the node a traversal refers to, and
// whether the traversal names the node as a whole (no attribute after it).
// It returns "" for roots that name no node (path, terraform, ...).
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
	case "data":
		if len(names) < 3 {
			return "", false
		}
		return "data." + names[1] + "." + names[2], len(t) == 3
	default:
		if len(names) < 2 {
			return "", false
		}
		return names[0] + "." + names[1], len(t) == 2
	}
}

// attrNames returns the leading names of a traversal, up to the first step
// that is not an attribute access.
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

func traversalString(t hcl.Traversal) string {
	var b strings.Builder
	for _, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			b.WriteString("[...]")
		}
	}
	return b.String()
}

// resolve checks every traversal of a node against the declarations and
// records the node's references.
func (l *loader) resolve(n *config.Node, traversals []hcl.Traversal) []evalRef {
	var refs []evalRef
	seen := map[string]bool{}
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
		case "count", "each":
			l.errorf(rng, fmt.Sprintf("Reference to %q in context without %s", root, map[string]string{"count": "count", "each": "for_each"}[root]),
				"%s.* can be used only inside a resource that sets %s, and that is not supported in this version of Tether.", root, map[string]string{"count": "count", "each": "for_each"}[root])
			continue
		case "self":
			l.errorf(rng, "Invalid reference to self", "self can be used only in provisioner and connection blocks, which Tether does not run.")
			continue
		case "module":
			l.errorf(rng, "Modules are not supported yet", "This version of Tether reads one folder of configuration; module calls are not available.")
			continue
		}
		addr, _ := traversalAddr(t)
		if addr == "" {
			l.errorf(rng, "Invalid reference", "A reference to %q must name an object, such as %s.NAME.", root, root)
			continue
		}
		target, ok := l.decls[addr]
		if !ok || target.Kind == config.Output || target.Kind == config.Provider {
			l.undeclared(rng, addr, root, names)
			continue
		}
		if target == n {
			l.errorf(rng, "Self-referential block", "%s cannot refer to itself; remove the reference to %s.", n.Addr, addr)
			continue
		}
		if seen[addr] {
			continue
		}
		seen[addr] = true
		n.Refs = append(n.Refs, config.Ref{Addr: addr, Range: rng})
		path := strings.Split(addr, ".")
		refs = append(refs, evalRef{addr: addr, path: path})
	}
	for _, d := range n.DependsOn {
		if t, ok := l.decls[d.Addr]; !ok || (t.Kind != config.Resource && t.Kind != config.DataSource) {
			l.undeclared(d.Range, d.Addr, strings.SplitN(d.Addr, ".", 2)[0], strings.Split(d.Addr, "."))
		}
	}
	return refs
}

func (l *loader) undeclared(rng hcl.Range, addr, root string, names []string) {
	var candidates []string
	for a, d := range l.decls {
		if d.Kind != config.Output && d.Kind != config.Provider && strings.HasPrefix(a, root+".") == (root == "var" || root == "local" || root == "data") {
			candidates = append(candidates, a)
		}
	}
	switch root {
	case "var":
		l.errorf(rng, "Reference to undeclared input variable", "An input variable named %q has not been declared.%s", names[1], didYouMean(addr, candidates))
	case "local":
		l.errorf(rng, "Reference to undeclared local value", "A local value named %q has not been declared.%s", names[1], didYouMean(addr, candidates))
	case "data":
		l.errorf(rng, "Reference to undeclared data source", "A data source %q %q has not been declared.%s", names[1], names[2], didYouMean(addr, candidates))
	default:
		l.errorf(rng, "Reference to undeclared resource", "A managed resource %q %q has not been declared.%s", names[0], names[1], didYouMean(addr, candidates))
	}
}

// evalContext builds the variables for one evaluation, holding only what
// the expression refers to: building the whole configuration's values for
// every evaluation would cost the square of its size.
func (l *loader) evalContext(refs []evalRef, scope config.Scope) *hcl.EvalContext {
	root := map[string]any{}
	for _, r := range refs {
		m := root
		for _, step := range r.path[:len(r.path)-1] {
			next, ok := m[step].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[step] = next
			}
			m = next
		}
		m[r.path[len(r.path)-1]] = scope.Value(r.addr)
	}
	vars := make(map[string]cty.Value, len(root)+2)
	for k, v := range root {
		vars[k] = toObject(v)
	}
	vars["path"] = cty.ObjectVal(map[string]cty.Value{
		"module": cty.StringVal("."),
		"root":   cty.StringVal("."),
		"cwd":    cty.StringVal(l.cwd),
	})
	vars["terraform"] = cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal("default")})
	return &hcl.EvalContext{Variables: vars, Functions: l.funcs}
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
		if d := levenshtein(name, c); d < bestDist {
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
