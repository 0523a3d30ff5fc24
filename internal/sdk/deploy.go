package sdk

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/deduce"
	"github.com/tetherhq/tether/internal/diagnostic"
)

// programType is the copy of the program its closures' functions and
// tests run (provider/tether's tether_program).
var programType = &Type{Provider: "tether", Source: "registry.terraform.io/tetherhq/tether", Name: "tether_program", Func: "tether (the program's closures)"}

// programID is the id of the stack's tether_program.
const programID = "self"

// deployClosures turns the closures declared while the program's function
// ran into configuration: it declares the program's copy, finds out with
// the deducer which captured properties each closure reads, and gives each
// closure's function (or test) the command that runs it and the
// environment it needs, which makes it wait for those resources. It
// writes .tether/arch.json. Mistakes are reported like any other.
func (st *Stack) deployClosures() {
	set := closuresOf(st)
	if mode.closure.Load() {
		return
	}
	if len(set.list) == 0 {
		removeArch()
		return
	}
	st.mu.Lock()
	failed := st.diags.HasErrors()
	st.mu.Unlock()
	if failed {
		return
	}
	first := set.list[0].pos
	program := declare(st, first, programType, kindResource, programID, nil, &options{lifecycle: config.Lifecycle{CreateBeforeDestroy: true}, internal: true})
	program.unseen = true
	st.terraformProgram(program)
	// To destroy, what the closures read does not matter, and a program
	// the deducer now refuses can still be destroyed.
	results, err := make([]deduce.FuncResult, len(set.list)), error(nil)
	if !st.in.Destroying {
		results, err = deduceClosures(set.list)
	}

	st.mu.Lock()
	defer st.mu.Unlock()
	if program.dead {
		return
	}
	if err != nil {
		st.report(diagAt(first, "Cannot deduce what the closures read",
			"Before deploying closures, Tether reads the program's source to find the captured properties each one reads: %v", err))
		return
	}
	decls := st.declarations()
	for i, cl := range set.list {
		st.resolve(cl, results[i], decls)
	}
	if st.diags.HasErrors() {
		return
	}
	st.checkEnvNames(set.list)
	if st.diags.HasErrors() {
		return
	}
	path := attrAt[string](constructRef{program}, "path", program.pos)
	for _, cl := range set.list {
		if cl.kind == closureHandler {
			st.configureFunction(cl, path)
		}
	}
	testers := map[*construct][]*closure{}
	var order []*construct
	for _, cl := range set.list {
		if cl.kind == closureTest {
			if testers[cl.owner] == nil {
				order = append(order, cl.owner)
			}
			testers[cl.owner] = append(testers[cl.owner], cl)
		}
	}
	for _, tc := range order {
		st.configureTests(tc, testers[tc], path)
	}
	if st.diags.HasErrors() {
		return
	}
	st.checkCycles(set.list)
	if st.in.Destroying {
		return
	}
	if err := writeArch(st, set.list); err != nil {
		st.diags = append(st.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Cannot write the architecture file",
			Detail:   diagnostic.Failed("writing .tether/arch.json", err),
		})
	}
}

// deduceHook replaces the deducer in tests of this package, whose
// closures live in a test binary the deducer cannot load.
var deduceHook func(deduce.Request) (*deduce.Result, error)

// deduced caches the deducer's answers for this process: `tether test`
// loads the program twice, to deploy and to destroy.
var deduced = struct {
	sync.Mutex
	m map[string][]deduce.FuncResult
}{m: map[string][]deduce.FuncResult{}}

// deduceClosures asks the deducer what each closure reads.
func deduceClosures(list []*closure) ([]deduce.FuncResult, error) {
	req := deduce.Request{}
	var key strings.Builder
	for _, cl := range list {
		req.Funcs = append(req.Funcs, cl.fn)
		fmt.Fprintf(&key, "%s|%s|%d;", cl.fn.Name, cl.fn.File, cl.fn.Line)
	}
	deduced.Lock()
	defer deduced.Unlock()
	if r, ok := deduced.m[key.String()]; ok {
		return r, nil
	}
	analyze := deduce.Analyze
	if deduceHook != nil {
		analyze = deduceHook
	} else {
		dir, err := programDir()
		if err != nil {
			return nil, err
		}
		req.Dir = dir
	}
	res, err := analyze(req)
	if err != nil {
		return nil, err
	}
	if len(res.Funcs) != len(list) {
		return nil, errors.New("the deducer answered for a different number of closures")
	}
	deduced.m[key.String()] = res.Funcs
	return res.Funcs, nil
}

// programDir is the folder of the program's main package, from where its
// main function was compiled.
func programDir() (string, error) {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := nextFrame(frames)
		if f.Function == "main.main" {
			if !filepath.IsAbs(f.File) {
				return "", fmt.Errorf("the program was built without the full paths of its source files (with -trimpath?), so its source cannot be found; build it without -trimpath")
			}
			return filepath.Dir(f.File), nil
		}
		if !more {
			break
		}
	}
	return "", errors.New("the program's main function is not on the call stack: call tether.Main or tether.Run from main")
}

// declKey is where a resource was declared: the file and line of the
// call.
type declKey struct {
	file string
	line int
}

// declarations indexes the stack's resources by the place that declared
// them. The caller holds mu.
func (st *Stack) declarations() map[declKey][]*construct {
	out := map[declKey][]*construct{}
	var walk func(c *construct)
	walk = func(c *construct) {
		for _, id := range sortedKeysOf(c.children) {
			ch := c.children[id]
			if ch.kind == kindResource && !ch.dead && !ch.unseen {
				k := declKey{absFile(ch.pos.Filename), ch.pos.Start.Line}
				out[k] = append(out[k], ch)
			}
			walk(ch)
		}
	}
	walk(st.root)
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func absFile(name string) string {
	if filepath.IsAbs(name) || sources.dir == "" {
		return filepath.Clean(name)
	}
	return filepath.Join(sources.dir, name)
}

// apiCallee is the name a deducer Origin gives the call that declared c:
// NewRouter for builtin.NewRouter, Get for builtin.Router.Get.
func apiCallee(c *construct) string {
	w := c.what
	if i := strings.LastIndex(w, "."); i >= 0 {
		w = w[i+1:]
	}
	return w
}

// where is a deducer position as the program's messages show it.
func where(p deduce.Position) string {
	if p.File == "" {
		return "(unknown)"
	}
	return fmt.Sprintf("%s:%d", relative(p.File), p.Line)
}

// resolve turns what the deducer found for a closure into the resources
// and properties it reads, adding those given with tether.Uses, and
// reports what cannot be decided. The caller holds mu.
func (st *Stack) resolve(cl *closure, res deduce.FuncResult, decls map[declKey][]*construct) {
	declared := map[string]bool{}
	seen := map[string]bool{}
	add := func(u capturedUse) {
		k := u.c.addr + "." + u.name
		if !seen[k] {
			seen[k] = true
			cl.uses = append(cl.uses, u)
		}
	}
	for _, uo := range cl.opts.uses {
		for _, v := range uo.values {
			h, ok := v.(lazyHolder)
			var r attrRead
			if ok {
				r, ok = attrOf(h.lazyRef())
			}
			switch {
			case !ok:
				st.report(diagAt(uo.pos, "Not a captured property", "tether.Uses takes the Outputs of captured properties, such as router.URL(); it was given %s.", describeValue(v)))
			case r.c.stack != st:
				st.report(diagAt(uo.pos, "Captured property of another stack", "tether.Uses was given the %s of %s, which belongs to another stack.", r.name, r.c.addr))
			case r.c.dead:
			case !isCaptured(r.c, r.name):
				st.report(diagAt(uo.pos, "Not a captured property", "tether.Uses was given the %s of %s. %s", r.name, r.c.addr, notCapturedError(r.c, r.name)))
			default:
				declared[r.name] = true
				add(capturedUse{c: r.c, name: r.name, env: capturedEnv(r.c, r.name), at: posString(uo.pos), expr: "tether.Uses", declared: true})
			}
		}
	}
	hint := fmt.Sprintf("Declare the captured properties it reads by hand: %s(..., tether.Uses(router.URL())), say.", cl.api)
	subject := fmt.Sprintf("%s (the function at %s)", capitalize(cl.what), funcSource(cl))
	if !res.Analyzed && strings.HasPrefix(cl.fn.Name, "reflect.") && !st.in.Destroying {
		if len(cl.opts.uses) == 0 {
			st.report(diagAt(cl.pos, "Cannot tell what a closure reads",
				"%s is a function made by reflection (reflect.MakeFunc), whose code the deducer cannot read. %s", capitalize(cl.what), hint))
		}
		return
	}
	for _, p := range res.Problems {
		if (p.Property != "" && declared[p.Property]) || (p.Property == "" && len(cl.opts.uses) > 0) {
			continue
		}
		from := ""
		if p.From.File != "" && (p.From.File != p.At.File || p.From.Line != p.At.Line) {
			from = " (" + where(p.From) + ")"
		}
		detail := fmt.Sprintf("%s calls %s at %s, and %s%s.", subject, exprOr(p.Expr, "a function"), where(p.At), p.Reason, from)
		if p.Property != "" {
			detail = fmt.Sprintf("%s reads the %s of a resource with %s at %s, and the deducer cannot tell which resource: %s%s.", subject, p.Property, exprOr(p.Expr, "a getter"), where(p.At), p.Reason, from)
		}
		st.report(diagAt(cl.pos, "Cannot tell what a closure reads", "%s %s", detail, hint))
	}
	for _, r := range res.Reads {
		var found []*construct
		for _, o := range r.Origins {
			var cands, lacking []*construct
			for _, c := range decls[declKey{filepath.Clean(o.At.File), o.At.Line}] {
				switch {
				case apiCallee(c) != o.Callee:
				case isCaptured(c, r.Property):
					cands = append(cands, c)
				default:
					lacking = append(lacking, c)
				}
			}
			if len(cands) == 0 && len(lacking) > 0 {
				st.report(diagAt(cl.pos, "Not a captured property",
					"%s reads %s at %s, the %s of %s. %s",
					subject, exprOr(r.Expr, r.Property), where(r.At), r.Property, lacking[0].addr, notCapturedError(lacking[0], r.Property)))
				continue
			}
			if len(cands) > 1 && len(o.Via) > 0 {
				cands = declaredVia(cands, o.Via)
			}
			if len(cands) > 1 {
				cands = closest(cands, cl.stack)
			}
			if len(cands) > 1 && o.Latest {
				cands = st.latestBefore(cands, cl.seq)
			}
			if len(cands) > 1 && !declared[r.Property] {
				var addrs []string
				for _, c := range cands {
					addrs = append(addrs, c.addr)
				}
				st.report(diagAt(cl.pos, "Cannot tell what a closure reads",
					"%s reads %s at %s, the %s of a resource declared at %s, where %s were declared: the deducer cannot tell which one it reads. %s",
					subject, exprOr(r.Expr, r.Property), where(r.At), r.Property, where(o.At), strings.Join(addrs, ", "), hint))
				continue
			}
			if len(cands) > 1 {
				continue
			}
			found = append(found, cands...)
		}
		for _, c := range found {
			add(capturedUse{c: c, name: r.Property, env: capturedEnv(c, r.Property), at: where(r.At), expr: r.Expr, client: r.Client})
		}
	}
	sort.SliceStable(cl.uses, func(i, j int) bool { return cl.uses[i].env < cl.uses[j].env })
	st.checkOpaque(cl, res)
}

func exprOr(expr, alt string) string {
	if expr == "" {
		return alt
	}
	return expr
}

func describeValue(v any) string {
	if v == nil {
		return "nil"
	}
	if h, ok := v.(lazyHolder); ok {
		return h.lazyRef().desc
	}
	return fmt.Sprintf("a %T", v)
}

// declaredVia keeps the resources declared through all the calls in via:
// of the routers a component constructor declares, the one its call at
// main.go:47 returned. When none is, it keeps them all.
func declaredVia(cands []*construct, via []deduce.Position) []*construct {
	var out []*construct
	for _, c := range cands {
		lines := map[declKey]bool{}
		frames := runtime.CallersFrames(c.declStack)
		for {
			f, more := nextFrame(frames)
			lines[declKey{filepath.Clean(f.File), f.Line}] = true
			if !more {
				break
			}
		}
		all := true
		for _, p := range via {
			all = all && lines[declKey{filepath.Clean(p.File), p.Line}]
		}
		if all {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}

// latestBefore keeps, of resources one line declared again and again (in
// a loop), the one declared last before the closure: a closure made in
// the loop reads the resource of its own iteration. The caller holds mu.
func (st *Stack) latestBefore(cands []*construct, seq int) []*construct {
	best, bestAt := (*construct)(nil), -1
	for i, n := range st.nodes {
		if i >= seq {
			break
		}
		for _, c := range cands {
			if n.Addr == c.addr && i > bestAt {
				best, bestAt = c, i
			}
		}
	}
	if best == nil {
		return cands
	}
	return []*construct{best}
}

// closest keeps the resources whose declaring call stack shares the most
// outer frames with the stack that declared the closure: of the routers a
// component declares each time it is made, the one made by the same call
// as the closure.
func closest(cands []*construct, stack []uintptr) []*construct {
	best, out := -1, []*construct(nil)
	for _, c := range cands {
		ds := c.declStack
		n := 0
		for n < len(ds) && n < len(stack) && ds[len(ds)-1-n] == stack[len(stack)-1-n] {
			n++
		}
		switch {
		case n > best:
			best, out = n, []*construct{c}
		case n == best:
			out = append(out, c)
		}
	}
	return out
}

// checkEnvNames reports a variable a closure gets whose name another
// attribute of the stack's resources would have too: a closure that reads
// the other one would be given this one's value. The caller holds mu.
func (st *Stack) checkEnvNames(list []*closure) {
	type attr struct {
		c    *construct
		name string
	}
	used := map[string]attr{}
	for _, cl := range list {
		for _, u := range cl.uses {
			used[u.env] = attr{u.c, u.name}
		}
	}
	if len(used) == 0 {
		return
	}
	reported := map[string]bool{}
	var walk func(c *construct)
	walk = func(c *construct) {
		for _, id := range sortedKeysOf(c.children) {
			ch := c.children[id]
			if ch.kind == kindResource && !ch.dead && ch.schema != nil && ch.schema.Block != nil {
				names := sortedKeysOf(ch.schema.Block.Attributes)
				names = append(names, sortedKeysOf(ch.schema.Block.BlockTypes)...)
				for _, name := range names {
					env := capturedEnv(ch, name)
					u, ok := used[env]
					if !ok || (u.c == ch && u.name == name) || reported[env] {
						continue
					}
					reported[env] = true
					st.report(diagAt(ch.pos, "Captured properties collide",
						"The %s of %s (%s) and the %s of %s (%s) would both reach closures as the environment variable %s, named upper(type_id_property) with every other character replaced by \"_\". Rename one of the resources.",
						u.name, u.c.addr, posString(u.c.pos), name, ch.addr, posString(ch.pos), env))
				}
			}
			walk(ch)
		}
	}
	walk(st.root)
}

// envValue is the value of a captured property in an environment
// variable: the attribute's value as text (see encodeEnv).
func envValue(st *Stack, c *construct, name string) Output[string] {
	addr := c.addr
	l := &lazy{stack: st, deps: []string{addr}, desc: addr + "." + name, ty: cty.String, tf: terraformEnv(c, name)}
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) {
		v := getAttr(sc.Value(addr), name, cty.DynamicPseudoType)
		uv, m := v.UnmarkDeep()
		switch {
		case !uv.IsWhollyKnown():
			return cty.UnknownVal(cty.String).WithMarks(m), nil
		case uv.IsNull():
			return cty.NullVal(cty.String).WithMarks(m), nil
		}
		s, err := encodeEnv(uv)
		if err != nil {
			return cty.UnknownVal(cty.String), hcl.Diagnostics{diagnostic.Wrap("Cannot pass a captured property", "writing the "+name+" of "+addr+" as an environment variable", err)}
		}
		return cty.StringVal(s).WithMarks(m), nil
	}
	return Output[string]{l: l}
}

// closureEnvMap is the environment of a closure's function or test. Out
// of the default workspace it holds the workspace's name, so that the
// program, run again as the closure, declares what it declared when it
// was deployed (Stack.Workspace).
func (st *Stack) closureEnvMap(cl *closure) map[string]any {
	env := map[string]any{closureEnv: cl.id}
	if ws := st.Workspace(); ws != "default" {
		env["TF_WORKSPACE"] = ws
	}
	for _, u := range cl.uses {
		env[u.env] = envValue(st, u.c, u.name)
	}
	return env
}

// configureFunction gives a handler's function its real configuration:
// the program's copy as the command, and the environment that selects
// the closure and carries what it reads. The caller holds mu.
func (st *Stack) configureFunction(cl *closure, path Output[string]) {
	n := st.node(cl.owner.addr)
	if n == nil || cl.owner.schema == nil {
		return
	}
	args := map[string]any{"command": []any{path}, "env": st.closureEnvMap(cl), "http": true}
	b := &builder{where: cl.api, pos: cl.pos, want: st}
	tm := b.value(reflect.ValueOf(args), "", 0)
	st.diags = append(st.diags, b.diags...)
	n.Refs = nodeRefs(b.depList(), cl.pos)
	n.Eval = st.evalConfig(n, cl.api, tm, cl.owner.schema.Block)
	terraformNode(n, cl.api, tm)
}

// configureTests adds a tester's test closures to its test blocks. The
// caller holds mu.
func (st *Stack) configureTests(tc *construct, tests []*closure, path Output[string]) {
	n := st.node(tc.addr)
	if n == nil || tc.schema == nil || tc.schema.Block.BlockTypes["test"] == nil {
		return
	}
	nb := tc.schema.Block.BlockTypes["test"]
	blocks := map[string]any{}
	for _, cl := range tests {
		t := map[string]any{"command": []any{path}, "env": st.closureEnvMap(cl)}
		if cl.opts.timeout > 0 {
			t["timeout"] = cl.opts.timeout.String()
		}
		blocks[cl.testName] = t
	}
	b := &builder{where: tests[0].api, pos: tests[0].pos, want: st}
	tm := b.value(reflect.ValueOf(blocks), "", 0)
	st.diags = append(st.diags, b.diags...)
	n.Refs = append(n.Refs, nodeRefs(b.depList(), tests[0].pos)...)
	orig := n.Eval
	byName := map[string]*closure{}
	for _, cl := range tests {
		byName[cl.testName] = cl
	}
	n.Eval = config.EvalFunc(func(sc config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
		v, diags := orig.Evaluate(sc, inst)
		if diags.HasErrors() {
			return v, diags
		}
		uv, m := v.Unmark()
		if !uv.IsKnown() || uv.IsNull() {
			return v, diags
		}
		tv, d := tm.eval(sc)
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.UnknownVal(uv.Type()), diags
		}
		added, err := conformBlocks(tv, nb, cty.GetAttrPath("test"))
		if err != nil {
			return cty.UnknownVal(uv.Type()), append(diags, diagAt(tests[0].pos, "Invalid test", "A test of %s is not valid: %s", tc.addr, pathError(err)))
		}
		own := uv.GetAttr("test")
		ownU, ownM := own.Unmark()
		if !ownU.IsKnown() || !added.IsKnown() {
			return withAttrs(uv, map[string]cty.Value{"test": cty.UnknownVal(own.Type()).WithMarks(ownM)}).WithMarks(m), diags
		}
		merged := map[string]cty.Value{}
		if !ownU.IsNull() {
			for k, e := range ownU.AsValueMap() {
				merged[k] = e
			}
		}
		for k, e := range added.AsValueMap() {
			if _, dup := merged[k]; dup {
				cl := byName[k]
				return cty.UnknownVal(uv.Type()), append(diags, diagAt(cl.pos, "Duplicate test",
					"%s adds the test %q to %s, whose arguments already have a test block of that name.", cl.api, k, tc.addr))
			}
			merged[k] = e
		}
		return withAttrs(uv, map[string]cty.Value{"test": cty.MapVal(merged).WithMarks(ownM)}).WithMarks(m), diags
	})
	terraformTests(n, tm)
}

// withAttrs returns obj with some attributes replaced.
func withAttrs(obj cty.Value, set map[string]cty.Value) cty.Value {
	vals := obj.AsValueMap()
	for k, v := range set {
		vals[k] = v
	}
	return cty.ObjectVal(vals)
}

// checkCycles reports a dependency cycle that goes through a closure's
// captured properties, naming every member in order and why each needs
// the next; the engine reports other cycles. The caller holds mu.
func (st *Stack) checkCycles(list []*closure) {
	why := map[[2]string]string{}
	for _, cl := range list {
		for _, u := range cl.uses {
			k := [2]string{cl.owner.addr, u.c.addr}
			if _, ok := why[k]; !ok {
				why[k] = fmt.Sprintf("%s (%s) reads %s.%s at %s", cl.what, posString(cl.pos), u.c.addr, u.name, u.at)
			}
		}
	}
	nodes := map[string]*config.Node{}
	var order []string
	for _, n := range st.nodes {
		if _, ok := nodes[n.Addr]; !ok {
			nodes[n.Addr] = n
			order = append(order, n.Addr)
		}
	}
	deps := func(addr string) []string {
		n := nodes[addr]
		var out []string
		for _, r := range n.Refs {
			out = append(out, r.Addr)
		}
		for _, r := range n.DependsOn {
			out = append(out, r.Addr)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var path []string
	var cycle []string
	var visit func(a string) bool
	visit = func(a string) bool {
		color[a] = grey
		path = append(path, a)
		for _, d := range deps(a) {
			if nodes[d] == nil {
				continue
			}
			switch color[d] {
			case grey:
				i := slices.Index(path, d)
				cycle = append(append([]string(nil), path[i:]...), d)
				return true
			case white:
				if visit(d) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		color[a] = black
		return false
	}
	for _, a := range order {
		if color[a] == white && visit(a) {
			break
		}
	}
	if cycle == nil {
		return
	}
	var reasons []string
	through := false
	for i := 0; i+1 < len(cycle); i++ {
		if r, ok := why[[2]string{cycle[i], cycle[i+1]}]; ok {
			through = true
			reasons = append(reasons, "  "+cycle[i]+": "+r)
		} else {
			reasons = append(reasons, fmt.Sprintf("  %s: its arguments use %s", cycle[i], cycle[i+1]))
		}
	}
	if !through {
		return
	}
	var members []string
	for i, a := range cycle {
		if i == len(cycle)-1 {
			members = append(members, a)
			break
		}
		members = append(members, fmt.Sprintf("%s (%s)", a, posString(nodes[a].DeclRange)))
	}
	// One line names every member in order, as the engine's cycles do.
	st.report(diagAt(nodes[cycle[0]].DeclRange, "Dependency cycle through closures",
		"Each of these needs the next, and the last the first, through captured properties that closures read:\n\n  %s\n\n%s\n\nA closure's function gets the captured properties it reads when it starts, so it starts after the resources they belong to, and none of these can start first. A function cannot read its own url, for instance: pass what it needs another way (the request's Host, say).",
		strings.Join(members, " -> "), strings.Join(reasons, "\n")))
}
