package deduce

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// funcOut collects what one requested function reads.
type funcOut struct {
	reads       []Read
	problems    []Problem
	opaques     []Problem
	seenRead    map[string]bool
	seenProblem map[string]bool
	visited     map[walkKey]bool
	// sliced are the values captures has followed.
	sliced map[ssa.Value]bool
}

func (o *funcOut) read(r Read) {
	var origins []string
	for _, x := range r.Origins {
		origins = append(origins, fmt.Sprint(x.At, x.Via, x.Latest))
	}
	k := fmt.Sprintf("%s|%s|%s", r.At, r.Property, strings.Join(origins, ","))
	if !o.seenRead[k] {
		o.seenRead[k] = true
		o.reads = append(o.reads, r)
	}
}

func (o *funcOut) opaque(p Problem) {
	k := fmt.Sprintf("%s|%s", p.At, p.Reason)
	if !o.seenProblem["opaque|"+k] {
		o.seenProblem["opaque|"+k] = true
		o.opaques = append(o.opaques, p)
	}
}

func (o *funcOut) problem(p Problem) {
	k := fmt.Sprintf("%s|%s|%s", p.At, p.Property, p.Reason)
	if !o.seenProblem[k] {
		o.seenProblem[k] = true
		o.problems = append(o.problems, p)
	}
}

// walk visits fn, called in frame f, and everything it may call, and
// records the captured properties read. site is the call in the program's
// code through which the walk entered code that is not the program's (a
// getter of the bindings), and getter the function called there; both
// are unset while the walk is in the program's code.
func (a *analyzer) walk(fn *ssa.Function, f *frame, site token.Pos, getter *ssa.Function, out *funcOut) {
	if out.visited == nil {
		out.visited = map[walkKey]bool{}
	}
	k := walkKey{fn, f, site}
	if out.visited[k] || !a.bodies[fn] {
		return
	}
	out.visited[k] = true
	inUser := a.user[pkgOf(fn)]
	if inUser {
		a.captures(fn, out)
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			c := call.Common()
			callSite, callGetter := site, getter
			if inUser {
				callSite, callGetter = c.Pos(), nil
			}
			if callee := c.StaticCallee(); callee != nil {
				if isSDKFunc(callee, "Attr") {
					a.read(c, f, callSite, callGetter, out)
					continue
				}
				if what, ok := reflective(callee); ok {
					out.problem(Problem{At: a.position(callSite), Expr: a.exprAt(callSite),
						Reason: fmt.Sprintf("%s calls what the deducer cannot follow", what)})
					continue
				}
			}
			for _, t := range a.callees(c, f) {
				if t.fn == nil {
					continue
				}
				if !a.bodies[t.fn] {
					// Code outside the program may call the functions it
					// is given (sort.Slice, sync.Once.Do, http.HandlerFunc).
					a.walkArgs(c, f, callSite, callGetter, out)
					continue
				}
				g := callGetter
				if inUser {
					g = t.fn
				}
				a.walk(t.fn, a.callFrame(t, c.Args, f), callSite, g, out)
			}
		}
	}
}

// walkArgs walks the functions passed to code outside the program.
func (a *analyzer) walkArgs(c *ssa.CallCommon, f *frame, site token.Pos, getter *ssa.Function, out *funcOut) {
	args := c.Args
	if c.IsInvoke() {
		args = append([]ssa.Value{c.Value}, args...)
	}
	for _, arg := range args {
		switch arg.Type().Underlying().(type) {
		case *types.Signature, *types.Interface:
		default:
			continue
		}
		for _, v := range a.flow(arg, f) {
			if v.kind == aFunc && a.bodies[v.fn] {
				a.walk(v.fn, a.frameFor(v.fn, nil, v.mc, v.mcFrame, 1), site, getter, out)
			}
		}
	}
}

// read records a call of tether.Attr: the property and where the
// resource it is given may have been declared.
func (a *analyzer) read(c *ssa.CallCommon, f *frame, site token.Pos, getter *ssa.Function, out *funcOut) {
	at := a.position(site)
	expr := a.exprAt(site)
	name := "tether.Attr"
	client := false
	if getter != nil {
		name = shortName(getter.String())
		client = !returnsOutput(getter)
	}
	if len(c.Args) < 2 {
		return
	}
	prop, ok := constString(c.Args[1])
	if !ok {
		out.problem(Problem{At: at, Expr: expr, Reason: "the property name it gives tether.Attr is not a constant"})
		return
	}
	r := Read{Property: prop, Getter: name, Client: client, At: at, Expr: expr}
	found := false
	for _, v := range a.flow(c.Args[0], f) {
		switch v.kind {
		case aOrigin:
			found = true
			o := Origin{At: a.position(v.pos), Callee: v.callee, Expr: a.exprAt(v.pos), Latest: v.latest}
			for _, p := range v.via {
				o.Via = append(o.Via, a.position(p))
			}
			r.Origins = append(r.Origins, o)
		case aUnknown:
			found = true
			out.problem(Problem{At: at, Expr: expr, Property: prop, Reason: v.why, From: a.position(v.pos)})
		}
	}
	if !found {
		out.problem(Problem{At: at, Expr: expr, Property: prop, Reason: "no declaration of a resource reaches it"})
		return
	}
	if len(r.Origins) == 0 {
		return
	}
	sort.Slice(r.Origins, func(i, j int) bool { return less(r.Origins[i].At, r.Origins[j].At, "", "") })
	out.read(r)
}

// isSDKFunc reports whether fn is (an instance of) the SDK's function
// name.
func isSDKFunc(fn *ssa.Function, name string) bool {
	obj := funcObject(fn)
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == SDK && obj.Name() == name
}

func funcObject(fn *ssa.Function) *types.Func {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, _ := fn.Object().(*types.Func)
	if obj != nil {
		obj = obj.Origin()
	}
	return obj
}

// reflective says which function of package reflect fn is, when it is
// one that calls or makes functions.
func reflective(fn *ssa.Function) (string, bool) {
	obj := funcObject(fn)
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "reflect" {
		return "", false
	}
	switch obj.Name() {
	case "Call", "CallSlice", "MethodByName", "Method", "MakeFunc":
		if sig, ok := obj.Type().(*types.Signature); ok && sig.Recv() != nil {
			return "reflect.Value." + obj.Name(), true
		}
		return "reflect." + obj.Name(), true
	}
	return "", false
}

// returnsOutput reports whether fn returns exactly one tether.Output: a
// plain getter, as opposed to a client that uses the property itself.
func returnsOutput(fn *ssa.Function) bool {
	res := fn.Signature.Results()
	if res.Len() != 1 {
		return false
	}
	n, ok := types.Unalias(res.At(0).Type()).(*types.Named)
	return ok && isSDKType(n, "Output")
}

func constString(v ssa.Value) (string, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(c.Value), true
}
