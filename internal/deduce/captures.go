package deduce

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// captures finds the captured properties a function reads through values
// computed outside it: what its free variables and the globals it loads
// were computed from. A getter called by the program's function, whose
// result (an Output, its String token, a string formatted from it, the
// result of tether.Apply or All over it) a closure captured, is read by
// the closure: at run time the closure needs the value, which the SDK
// puts in place of the token from the closure's environment.
//
// The values are followed backwards through every operand, stores into
// the variables, fields and elements they are loaded from, the values
// sent on channels of the type they are received from, the returns of the
// program's functions (called directly or through function values and
// interfaces) and the arguments of its calls; never into a resource (what
// a closure does with a captured resource, the walk sees) nor into
// functions (the walk follows those it calls). What cannot be followed
// back, the result of a call through reflection, is reported as Opaque:
// a value made at deploy may reach the function there unseen.
func (a *analyzer) captures(fn *ssa.Function, out *funcOut) {
	if out.sliced == nil {
		out.sliced = map[ssa.Value]bool{}
	}
	s := &slicer{a: a, out: out}
	for i := range fn.FreeVars {
		for _, mc := range a.closures[fn] {
			s.value(mc.Bindings[i])
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if u, ok := instr.(*ssa.UnOp); ok && u.Op == token.MUL {
				if g, ok := u.X.(*ssa.Global); ok {
					s.value(g)
				}
			}
		}
	}
}

type slicer struct {
	a   *analyzer
	out *funcOut
}

func (s *slicer) value(v ssa.Value) {
	if v == nil || s.out.sliced[v] {
		return
	}
	s.out.sliced[v] = true
	t := v.Type()
	if isResource(t) {
		return
	}
	if _, ok := t.Underlying().(*types.Signature); ok {
		return
	}
	a := s.a
	switch v := v.(type) {
	case *ssa.Call:
		s.call(v.Common(), v)
	case *ssa.Extract:
		s.value(v.Tuple)
	case *ssa.Parameter:
		idx := slices.Index(v.Parent().Params, v)
		for _, c := range append(a.callers[v.Parent()], a.dynamicCallers(v.Parent())...) {
			if idx >= 0 && idx < len(c.Args) {
				s.value(c.Args[idx])
			}
		}
	case *ssa.FreeVar:
		idx := slices.Index(v.Parent().FreeVars, v)
		for _, mc := range a.closures[v.Parent()] {
			s.value(mc.Bindings[idx])
		}
	case *ssa.Alloc, *ssa.MakeSlice, *ssa.MakeMap:
		s.stores(v)
	case *ssa.Global:
		for _, st := range a.globals[v] {
			s.value(st.Val)
		}
	case *ssa.UnOp:
		s.value(v.X)
		if v.Op == token.ARROW {
			s.received(v.X.Type())
		}
	case *ssa.MakeChan:
		s.received(v.Type())
	case *ssa.Select:
		for _, st := range v.States {
			if st.Dir == types.RecvOnly {
				s.value(st.Chan)
				s.received(st.Chan.Type())
			}
		}
	case *ssa.Next:
		s.value(v.Iter)
	case *ssa.Range:
		s.value(v.X)
	case *ssa.MultiConvert:
		s.value(v.X)
	case *ssa.BinOp:
		s.value(v.X)
		s.value(v.Y)
	case *ssa.Phi:
		for _, e := range v.Edges {
			s.value(e)
		}
	case *ssa.FieldAddr:
		s.value(v.X)
	case *ssa.IndexAddr:
		s.value(v.X)
	case *ssa.Field:
		s.value(v.X)
	case *ssa.Index:
		s.value(v.X)
	case *ssa.Lookup:
		s.value(v.X)
	case *ssa.MakeInterface:
		s.value(v.X)
	case *ssa.ChangeType:
		s.value(v.X)
	case *ssa.ChangeInterface:
		s.value(v.X)
	case *ssa.Convert:
		s.value(v.X)
	case *ssa.TypeAssert:
		s.value(v.X)
	case *ssa.Slice:
		s.value(v.X)
	case *ssa.SliceToArrayPointer:
		s.value(v.X)
	}
}

// received follows what is sent on channels of type ch.
func (s *slicer) received(ch types.Type) {
	for _, v := range s.a.sent(ch) {
		s.value(v)
	}
}

// stores follows what is stored into an object: the variable itself, its
// fields and elements, its map entries.
func (s *slicer) stores(obj ssa.Value) {
	var visit func(addr ssa.Value, depth int)
	visit = func(addr ssa.Value, depth int) {
		refs := addr.Referrers()
		if refs == nil || depth > 4 {
			return
		}
		for _, r := range *refs {
			switch in := r.(type) {
			case *ssa.Store:
				if in.Addr == addr {
					s.value(in.Val)
				}
			case *ssa.MapUpdate:
				s.value(in.Key)
				s.value(in.Value)
			case *ssa.FieldAddr:
				visit(in, depth+1)
			case *ssa.IndexAddr:
				visit(in, depth+1)
			case *ssa.Slice:
				visit(in, depth+1)
			case ssa.CallInstruction:
				// Code outside the program given the object may keep the
				// other arguments in it: sync.Map.Store, atomic.Value.Store.
				c := in.Common()
				if callee := c.StaticCallee(); callee != nil && !s.a.bodies[callee] {
					for _, arg := range c.Args {
						if arg != addr {
							s.value(arg)
						}
					}
				}
			}
		}
	}
	visit(obj, 0)
}

// call follows the result of a call: a getter's read, the returns of a
// function of the program, the arguments of anything else (tether.Apply,
// fmt.Sprintf, strings.ToUpper).
func (s *slicer) call(c *ssa.CallCommon, v ssa.Value) {
	a := s.a
	callee := c.StaticCallee()
	switch {
	case callee != nil && isSDKFunc(callee, "Attr"):
		a.read(c, nil, c.Pos(), nil, s.out)
		return
	case callee != nil && a.bodies[callee] && !a.user[pkgOf(callee)] && returnsOutput(callee):
		// A getter of the bindings.
		a.walk(callee, a.callFrame(target{fn: callee}, c.Args, nil), c.Pos(), callee, s.out)
		return
	case callee != nil && a.bodies[callee]:
		s.returns(callee)
		return
	case callee != nil:
		if what, ok := reflective(callee); ok {
			s.out.opaque(Problem{At: a.position(c.Pos()), Expr: a.exprAt(c.Pos()),
				Reason: fmt.Sprintf("it is the result of %s, which the deducer cannot follow", what)})
			return
		}
	default:
		// Through a function value or an interface: the returns of the
		// program's functions it may call, and, as for code outside the
		// program, the receiver and arguments (a method's result comes
		// from its receiver's fields).
		for _, t := range s.callees(c) {
			if a.bodies[t] && a.user[pkgOf(t)] {
				s.returns(t)
			}
		}
	}
	if c.IsInvoke() {
		s.value(c.Value)
	}
	for _, arg := range c.Args {
		s.value(arg)
	}
}

// callees are the functions a call through a function value or an
// interface may reach: those the analysis resolves, or else every
// function of the program of its signature used as a value.
func (s *slicer) callees(c *ssa.CallCommon) []*ssa.Function {
	var out []*ssa.Function
	for _, t := range s.a.callees(c, nil) {
		if t.fn != nil {
			out = append(out, t.fn)
		}
	}
	if len(out) > 0 || c.IsInvoke() {
		return out
	}
	for _, fn := range s.a.valueFuncs {
		if s.a.user[pkgOf(fn)] && types.Identical(withoutRecv(fn.Signature), withoutRecv(c.Signature())) {
			out = append(out, fn)
		}
	}
	return out
}

// returns follows what fn returns.
func (s *slicer) returns(fn *ssa.Function) {
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			for _, res := range r.Results {
				s.value(res)
			}
		}
	}
}
