package deduce

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// frameFor interns the frame of a call to fn with these parameter
// bindings, so that equal contexts share memoized results.
func (a *analyzer) frameFor(fn *ssa.Function, params map[*ssa.Parameter]vset, mc *ssa.MakeClosure, mcFrame *frame, depth int) *frame {
	if depth > maxDepth {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%p|%p|%p", fn, mc, mcFrame)
	for _, p := range fn.Params {
		b.WriteString("|")
		for _, v := range params[p] {
			b.WriteString(v.key())
			b.WriteString(",")
		}
	}
	k := b.String()
	if f, ok := a.frames[k]; ok {
		return f
	}
	f := &frame{fn: fn, params: params, mc: mc, mcFrame: mcFrame, depth: depth}
	a.frames[k] = f
	return f
}

// callFrame is the frame of a call of fn (a closure when mc is set) with
// args, evaluated in the caller's frame.
func (a *analyzer) callFrame(t target, args []ssa.Value, caller *frame) *frame {
	fn := t.fn
	depth := 1
	if caller != nil {
		depth = caller.depth + 1
	}
	params := map[*ssa.Parameter]vset{}
	i := 0
	recv := t.recv
	if t.invoke && len(fn.Params) > 0 {
		params[fn.Params[0]] = recv
		i = 1
	}
	for _, arg := range args {
		if i >= len(fn.Params) {
			break
		}
		params[fn.Params[i]] = a.flow(arg, caller)
		i++
	}
	return a.frameFor(fn, params, t.mc, t.mcFrame, depth)
}

func calleeDesc(c *ssa.CallCommon) string {
	if c.IsInvoke() {
		return shortName(c.Value.Type().String()) + "." + c.Method.Name()
	}
	if fn := c.StaticCallee(); fn != nil {
		return shortName(fn.String())
	}
	return "a function value"
}

// callResults is what result index of a call may hold.
func (a *analyzer) callResults(c *ssa.CallCommon, call ssa.Value, index int, f *frame) vset {
	resType := call.Type()
	if t, ok := resType.(*types.Tuple); ok {
		resType = t.At(index).Type()
	}
	var out vset
	for _, t := range a.callees(c, f) {
		if t.unknown != nil {
			out = out.add(t.unknown...)
			continue
		}
		fn := t.fn
		switch {
		case !a.user[pkgOf(fn)] && isResource(resType):
			// Outside the program's code (in the bindings) a call that
			// returns a resource declares it: that call is its origin.
			out = out.add(&abs{kind: aOrigin, call: c, pos: c.Pos(), callee: calleeName(fn), ty: resType})
		case !a.bodies[fn]:
			out = out.add(unknown(c.Pos(), "it comes from a call of %s, outside the program's code", shortName(fn.String()))...)
		default:
			out = out.add(prefixVia(a.returns(fn, index, a.callFrame(t, c.Args, f)), []token.Pos{c.Pos()})...)
		}
	}
	return out
}

func calleeName(fn *ssa.Function) string {
	if fn.Origin() != nil {
		fn = fn.Origin()
	}
	return fn.Name()
}

// returns is what result index of fn may hold when called in frame f.
func (a *analyzer) returns(fn *ssa.Function, index int, f *frame) vset {
	var out vset
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && index < len(r.Results) {
			out = out.add(a.flow(r.Results[index], f)...)
		}
	}
	return out
}

// target is one function a call may reach: with the closure that made
// it and the receiver bound by an interface call, or unknown.
type target struct {
	fn      *ssa.Function
	mc      *ssa.MakeClosure
	mcFrame *frame
	recv    vset
	// invoke is set for a call through an interface, whose receiver is
	// recv rather than the first argument.
	invoke  bool
	unknown vset
}

// callees lists what a call may reach.
func (a *analyzer) callees(c *ssa.CallCommon, f *frame) []target {
	if c.IsInvoke() {
		recv := a.flow(c.Value, f)
		var out []target
		resolved := false
		for _, r := range recv {
			if r.ty == nil || (r.kind != aOrigin && r.kind != aObject) {
				continue
			}
			sel := a.prog.MethodSets.MethodSet(r.ty).Lookup(c.Method.Pkg(), c.Method.Name())
			if sel == nil {
				continue
			}
			if m := a.prog.MethodValue(sel); m != nil {
				out = append(out, target{fn: m, recv: vset{r}, invoke: true})
				resolved = true
			}
		}
		if !resolved {
			// Any method of the program of that name and signature.
			for _, m := range a.methods[c.Method.Name()] {
				if types.Identical(withoutRecv(m.Signature), withoutRecv(c.Method.Type().(*types.Signature))) && a.user[pkgOf(m)] {
					out = append(out, target{fn: m, recv: recv, invoke: true})
				}
			}
		}
		return out
	}
	switch fn := c.Value.(type) {
	case *ssa.Function:
		return []target{{fn: fn}}
	case *ssa.MakeClosure:
		return []target{{fn: fn.Fn.(*ssa.Function), mc: fn, mcFrame: f}}
	case *ssa.Builtin:
		return nil
	}
	var out []target
	vals := a.flow(c.Value, f)
	for _, v := range vals {
		switch v.kind {
		case aFunc:
			out = append(out, target{fn: v.fn, mc: v.mc, mcFrame: v.mcFrame})
		case aUnknown:
			if v.chosen {
				continue
			}
			// Any function of the program of that signature that is
			// used as a value.
			sig := c.Signature()
			for _, fn := range a.valueFuncs {
				if a.user[pkgOf(fn)] && types.Identical(withoutRecv(fn.Signature), withoutRecv(sig)) {
					out = append(out, target{fn: fn})
				}
			}
		}
	}
	return out
}

// dynamicCallers are the calls through function values that may reach
// fn, a function of the program used as a value: every such call of its
// signature.
func (a *analyzer) dynamicCallers(fn *ssa.Function) []*ssa.CallCommon {
	if !a.isValue[fn] || fn.Signature.Recv() != nil {
		return nil
	}
	var out []*ssa.CallCommon
	for _, c := range a.dynCalls {
		if types.Identical(c.Signature(), fn.Signature) {
			out = append(out, c)
		}
	}
	return out
}

// sent are the values sent on channels of ch's element type: what a
// receive from ch may give, wherever the channel was passed.
func (a *analyzer) sent(ch types.Type) []ssa.Value {
	c, ok := ch.Underlying().(*types.Chan)
	if !ok {
		return nil
	}
	var out []ssa.Value
	for _, s := range a.sends {
		if sc, ok := s.ch.Type().Underlying().(*types.Chan); ok && types.Identical(sc.Elem(), c.Elem()) {
			out = append(out, s.val)
		}
	}
	return out
}

func withoutRecv(s *types.Signature) *types.Signature {
	return types.NewSignatureType(nil, nil, nil, s.Params(), s.Results(), s.Variadic())
}

// paramFlow is what a parameter holds: in frame f when it binds it, else
// at every call the analysis sees.
func (a *analyzer) paramFlow(p *ssa.Parameter, f *frame) vset {
	if f != nil && f.fn == p.Parent() {
		if v, ok := f.params[p]; ok {
			return v
		}
	}
	fn := p.Parent()
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	sites := a.callers[fn]
	if len(sites) == 0 {
		sites = a.dynamicCallers(fn)
	}
	if len(sites) == 0 {
		return unknown(p.Pos(), "it is the parameter %s of %s, which is called from where the deducer cannot see", p.Name(), shortName(fn.String()))
	}
	var out vset
	for _, c := range sites {
		if idx >= 0 && idx < len(c.Args) {
			out = out.add(a.flow(c.Args[idx], nil)...)
		}
	}
	return out
}

// freeVarFlow is what a free variable of a closure is bound to: the
// address of the captured variable, as the closure's MakeClosure gave it.
func (a *analyzer) freeVarFlow(v *ssa.FreeVar, f *frame) vset {
	fn := v.Parent()
	idx := -1
	for i, fv := range fn.FreeVars {
		if fv == v {
			idx = i
		}
	}
	if f != nil && f.fn == fn && f.mc != nil {
		return a.flow(f.mc.Bindings[idx], f.mcFrame)
	}
	var out vset
	for _, mc := range a.closures[fn] {
		out = out.add(a.flow(mc.Bindings[idx], nil)...)
	}
	if len(a.closures[fn]) == 0 {
		return unknown(v.Pos(), "it is the captured variable %s of %s, made where the deducer cannot see", v.Name(), shortName(fn.String()))
	}
	return out
}
