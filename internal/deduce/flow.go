package deduce

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// absKind is the kind of an abstract value: what the analysis knows a Go
// value may be.
type absKind int

const (
	// aOrigin is a resource, declared by a call.
	aOrigin absKind = iota
	// aFunc is a function, or a closure with its free variables bound.
	aFunc
	// aObject is something with an identity that holds other values: a
	// variable, a struct, an array or slice, a map, a global.
	aObject
	// aUnknown is a value the analysis cannot follow.
	aUnknown
)

type abs struct {
	kind absKind
	// aOrigin
	call   *ssa.CallCommon
	pos    token.Pos
	callee string
	// aFunc: fn, and for a closure the MakeClosure and the frame in which
	// its bindings are evaluated.
	fn      *ssa.Function
	mc      *ssa.MakeClosure
	mcFrame *frame
	// aObject
	site ssa.Value
	// aUnknown: why, where, and whether the value was chosen at run time
	// among several (a map read with a key that is not a constant).
	why    string
	chosen bool
	// ty is the static type of the value where it was made, for method
	// lookups on objects and origins.
	ty types.Type
	// via are the calls of the program's functions, outermost first, out
	// of which an origin or object was returned: a router that component
	// constructor NewSite declares, returned by the NewSite call at line
	// 47, is the router of that call, not of the one at line 48.
	via []token.Pos
	// latest is set on an origin read from a local variable that each run
	// of its function, or iteration of its loop, makes afresh: a closure
	// made there reads the resource its own run declared, the latest one
	// declared when the closure was.
	latest bool
}

// maxVia bounds how many calls an origin remembers.
const maxVia = 8

func (v *abs) key() string {
	return v.identity() + fmt.Sprint(v.via, v.latest)
}

// identity is the key of the value without the calls it came through.
func (v *abs) identity() string {
	switch v.kind {
	case aOrigin:
		return fmt.Sprintf("o%d", v.pos)
	case aFunc:
		if v.mc != nil {
			return fmt.Sprintf("f%p/%p/%p", v.fn, v.mc, v.mcFrame)
		}
		return fmt.Sprintf("f%p", v.fn)
	case aObject:
		return fmt.Sprintf("b%p", v.site)
	}
	return fmt.Sprintf("u%d/%t/%s", v.pos, v.chosen, v.why)
}

// vset is a set of abstract values, in the order found.
type vset []*abs

func (s vset) add(more ...*abs) vset {
	for _, m := range more {
		dup := false
		k := m.key()
		for _, x := range s {
			if x.key() == k {
				dup = true
				break
			}
		}
		if !dup {
			s = append(s, m)
		}
	}
	return s
}

// prefixVia returns the values with via put before the calls they came
// through.
func prefixVia(s vset, via []token.Pos) vset {
	if len(via) == 0 {
		return s
	}
	out := make(vset, 0, len(s))
	for _, v := range s {
		if v.kind != aOrigin && v.kind != aObject {
			out = out.add(v)
			continue
		}
		c := *v
		c.via = append(append([]token.Pos(nil), via...), v.via...)
		if len(c.via) > maxVia {
			c.via = c.via[:maxVia]
		}
		out = out.add(&c)
	}
	return out
}

func unknown(pos token.Pos, format string, args ...any) vset {
	return vset{{kind: aUnknown, pos: pos, why: fmt.Sprintf(format, args...)}}
}

// frame is a calling context: the values a function's parameters and free
// variables hold in one call. A nil frame, or a parameter it does not
// bind, means every call.
type frame struct {
	fn      *ssa.Function
	params  map[*ssa.Parameter]vset
	mc      *ssa.MakeClosure
	mcFrame *frame
	depth   int
}

// maxDepth bounds how many calls deep parameters stay bound to the
// arguments of one call; deeper, every call site counts.
const maxDepth = 8

type memoKey struct {
	v ssa.Value
	f *frame
}

type walkKey struct {
	fn   *ssa.Function
	f    *frame
	site token.Pos
}

type analyzer struct {
	prog *ssa.Program
	// analyzed are the packages loaded from source; user those of them
	// that are the program's own, where reads are reported.
	analyzed map[*types.Package]bool
	user     map[*types.Package]bool
	mainPkg  *ssa.Package
	files    map[string]*ast.File

	bodies   map[*ssa.Function]bool
	callers  map[*ssa.Function][]*ssa.CallCommon
	closures map[*ssa.Function][]*ssa.MakeClosure
	// stores by the address stored to, as it appears in the Store.
	stores map[ssa.Value][]*ssa.Store
	// fieldStores by struct type and field index.
	fieldStores map[fieldKey][]*ssa.Store
	indexStores []*ssa.Store
	mapUpdates  []*ssa.MapUpdate
	// sends are the values sent on channels, by send statements and
	// select cases; dynCalls the calls through function values.
	sends    []chanSend
	dynCalls []*ssa.CallCommon
	// valueFuncs are functions used as values, which calls through
	// function values and interfaces may reach.
	valueFuncs []*ssa.Function
	isValue    map[*ssa.Function]bool
	methods    map[string][]*ssa.Function
	globals    map[*ssa.Global][]*ssa.Store

	memo   map[memoKey]vset
	frames map[string]*frame
	walked map[walkKey]bool
}

// chanSend is one value sent on a channel.
type chanSend struct {
	ch, val ssa.Value
}

type fieldKey struct {
	t     string
	field int
}

func newAnalyzer(prog *ssa.Program) *analyzer {
	return &analyzer{
		prog: prog, analyzed: map[*types.Package]bool{}, user: map[*types.Package]bool{},
		files: map[string]*ast.File{}, bodies: map[*ssa.Function]bool{},
		callers: map[*ssa.Function][]*ssa.CallCommon{}, closures: map[*ssa.Function][]*ssa.MakeClosure{},
		stores: map[ssa.Value][]*ssa.Store{}, fieldStores: map[fieldKey][]*ssa.Store{},
		methods: map[string][]*ssa.Function{}, globals: map[*ssa.Global][]*ssa.Store{}, isValue: map[*ssa.Function]bool{},
		memo: map[memoKey]vset{}, frames: map[string]*frame{}, walked: map[walkKey]bool{},
	}
}

func pkgOf(fn *ssa.Function) *types.Package {
	for fn != nil {
		if fn.Pkg != nil {
			return fn.Pkg.Pkg
		}
		if fn.Origin() != nil && fn.Origin() != fn {
			fn = fn.Origin()
			continue
		}
		fn = fn.Parent()
	}
	return nil
}

// index records every call, closure, store and map update of the
// functions with bodies: those of the analyzed packages and the wrappers
// SSA makes for them.
func (a *analyzer) index() {
	for fn := range ssautil.AllFunctions(a.prog) {
		if len(fn.Blocks) == 0 {
			continue
		}
		p := pkgOf(fn)
		if p != nil && !a.analyzed[p] {
			continue
		}
		a.bodies[fn] = true
		if fn.Signature.Recv() != nil && fn.Synthetic == "" {
			a.methods[fn.Name()] = append(a.methods[fn.Name()], fn)
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				for _, op := range instr.Operands(nil) {
					if f, ok := (*op).(*ssa.Function); ok {
						if c, isCall := instr.(ssa.CallInstruction); !isCall || c.Common().Value != f {
							a.usedAsValue(f)
						}
					}
				}
				switch in := instr.(type) {
				case ssa.CallInstruction:
					if callee := in.Common().StaticCallee(); callee != nil {
						a.callers[callee] = append(a.callers[callee], in.Common())
					} else if !in.Common().IsInvoke() {
						a.dynCalls = append(a.dynCalls, in.Common())
					}
				case *ssa.Send:
					a.sends = append(a.sends, chanSend{in.Chan, in.X})
				case *ssa.Select:
					for _, st := range in.States {
						if st.Dir == types.SendOnly {
							a.sends = append(a.sends, chanSend{st.Chan, st.Send})
						}
					}
				case *ssa.MakeClosure:
					f := in.Fn.(*ssa.Function)
					a.closures[f] = append(a.closures[f], in)
					a.usedAsValue(f)
				case *ssa.Store:
					switch addr := in.Addr.(type) {
					case *ssa.FieldAddr:
						k := fieldKey{types.TypeString(deref(addr.X.Type()), nil), addr.Field}
						a.fieldStores[k] = append(a.fieldStores[k], in)
					case *ssa.IndexAddr:
						a.indexStores = append(a.indexStores, in)
					case *ssa.Global:
						a.globals[addr] = append(a.globals[addr], in)
					default:
						a.stores[in.Addr] = append(a.stores[in.Addr], in)
					}
				case *ssa.MapUpdate:
					a.mapUpdates = append(a.mapUpdates, in)
				}
			}
		}
	}
}

func (a *analyzer) usedAsValue(f *ssa.Function) {
	if !a.isValue[f] {
		a.isValue[f] = true
		a.valueFuncs = append(a.valueFuncs, f)
	}
}

func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// isResource reports whether t is a resource of the bindings: a pointer
// to a struct that embeds tether.Resource.
func isResource(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	st, ok := p.Elem().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		if n, ok := types.Unalias(f.Type()).(*types.Named); ok && isSDKType(n, "Resource") {
			return true
		}
	}
	return false
}

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

// flow is what v may hold in frame f.
func (a *analyzer) flow(v ssa.Value, f *frame) vset {
	k := memoKey{v, f}
	if r, ok := a.memo[k]; ok {
		return r
	}
	a.memo[k] = nil // a cycle through v adds nothing
	r := a.flow1(v, f)
	a.memo[k] = r
	return r
}

func (a *analyzer) flow1(v ssa.Value, f *frame) vset {
	switch v := v.(type) {
	case *ssa.Const:
		return nil
	case *ssa.Function:
		return vset{{kind: aFunc, fn: v}}
	case *ssa.MakeClosure:
		return vset{{kind: aFunc, fn: v.Fn.(*ssa.Function), mc: v, mcFrame: f}}
	case *ssa.MakeInterface:
		return a.flow(v.X, f)
	case *ssa.ChangeType:
		return a.flow(v.X, f)
	case *ssa.ChangeInterface:
		return a.flow(v.X, f)
	case *ssa.Convert:
		return a.flow(v.X, f)
	case *ssa.SliceToArrayPointer:
		return a.flow(v.X, f)
	case *ssa.TypeAssert:
		return a.flow(v.X, f)
	case *ssa.Slice:
		return a.flow(v.X, f)
	case *ssa.Phi:
		var out vset
		for _, e := range v.Edges {
			out = out.add(a.flow(e, f)...)
		}
		return out
	case *ssa.Call:
		return a.callResults(v.Common(), v, 0, f)
	case *ssa.Extract:
		switch t := v.Tuple.(type) {
		case *ssa.Call:
			return a.callResults(t.Common(), t, v.Index, f)
		case *ssa.TypeAssert:
			if v.Index == 0 {
				return a.flow(t.X, f)
			}
			return nil
		case *ssa.Lookup:
			if v.Index == 0 {
				return a.lookup(t, f)
			}
			return nil
		case *ssa.Next:
			if v.Index == 2 && !t.IsString {
				return a.rangeValues(t, f)
			}
			return nil
		}
		return unknown(v.Pos(), "it comes from %s", describe(v.Tuple))
	case *ssa.Parameter:
		return a.paramFlow(v, f)
	case *ssa.FreeVar:
		return a.freeVarFlow(v, f)
	case *ssa.UnOp:
		switch v.Op {
		case token.MUL:
			out := a.load(v.X, v, f)
			if isStruct(v.Type()) {
				// A struct loaded by value is, for its fields, the
				// object it was loaded from: lb := box{R: router}
				// copies the literal's fields into lb.
				out = out.add(objectsIn(a.flow(v.X, f))...)
			}
			return out
		case token.ARROW:
			return unknown(v.Pos(), "it is received from a channel")
		}
		return nil
	case *ssa.Lookup:
		return a.lookup(v, f)
	case *ssa.Index:
		return a.elements(v.X, v.Index, v.Pos(), f)
	case *ssa.Field:
		return a.fieldValues(v.X, v.Field, f)
	case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeSlice, *ssa.Global:
		return vset{{kind: aObject, site: v, ty: v.Type()}}
	case *ssa.FieldAddr, *ssa.IndexAddr:
		// The address of a field or element, passed on: follow what is
		// stored through it where it is loaded.
		return vset{{kind: aObject, site: v, ty: v.Type()}}
	case *ssa.BinOp, *ssa.MakeChan:
		return nil
	}
	return unknown(v.Pos(), "it comes from %s", describe(v))
}

func describe(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Call:
		return "a call of " + calleeDesc(v.Common())
	}
	return "an expression the deducer cannot follow (" + strings.TrimPrefix(fmt.Sprintf("%T", v), "*ssa.") + ")"
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

// load is what a load through addr may read.
func (a *analyzer) load(addr ssa.Value, at ssa.Instruction, f *frame) vset {
	switch x := addr.(type) {
	case *ssa.FieldAddr:
		return a.fieldValues(x.X, x.Field, f)
	case *ssa.IndexAddr:
		return a.elements(x.X, x.Index, x.Pos(), f)
	case *ssa.Global:
		return a.globalValues(x)
	case *ssa.Alloc:
		return a.varValues(x, at)
	}
	var out vset
	for _, o := range a.flow(addr, f) {
		switch o.kind {
		case aObject:
			switch s := o.site.(type) {
			case *ssa.Alloc:
				out = out.add(a.varValues(s, nil)...)
			case *ssa.Global:
				out = out.add(a.globalValues(s)...)
			case *ssa.FieldAddr:
				out = out.add(a.fieldValues(s.X, s.Field, nil)...)
			case *ssa.IndexAddr:
				out = out.add(a.elements(s.X, s.Index, s.Pos(), nil)...)
			}
		case aUnknown:
			out = out.add(o)
		}
	}
	return out
}

func (a *analyzer) globalValues(g *ssa.Global) vset {
	var out vset
	for _, s := range a.globals[g] {
		out = out.add(a.flow(s.Val, nil)...)
	}
	return out
}

// varValues is what a variable (an Alloc) holds where at reads it; a nil
// at is a read after the function that owns the variable has returned,
// as by a closure run later: a variable reassigned before that is read at
// its last value. When the variable is also written elsewhere (by a
// closure, or through a pointer), every stored value counts.
func (a *analyzer) varValues(v *ssa.Alloc, at ssa.Instruction) vset {
	stores, local := a.varStores(v)
	if !local {
		var out vset
		for _, s := range stores {
			out = out.add(a.flow(s.Val, nil)...)
		}
		return out
	}
	var reaching []*ssa.Store
	seen := map[*ssa.BasicBlock]bool{}
	var search func(b *ssa.BasicBlock, end int)
	search = func(b *ssa.BasicBlock, end int) {
		for i := end - 1; i >= 0; i-- {
			switch in := b.Instrs[i].(type) {
			case *ssa.Store:
				if in.Addr == v {
					reaching = append(reaching, in)
					return
				}
			case *ssa.Alloc:
				if in == v {
					// Before the variable exists: nothing from an earlier
					// iteration of a loop reaches.
					return
				}
			}
		}
		for _, p := range b.Preds {
			if !seen[p] {
				seen[p] = true
				search(p, len(p.Instrs))
			}
		}
	}
	if at != nil && at.Parent() == v.Parent() {
		b := at.Block()
		for i, in := range b.Instrs {
			if in == at {
				search(b, i)
				break
			}
		}
	} else {
		for _, b := range v.Parent().Blocks {
			if len(b.Instrs) > 0 {
				if _, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && !seen[b] {
					seen[b] = true
					search(b, len(b.Instrs))
				}
			}
		}
	}
	var out vset
	for _, s := range reaching {
		vals := a.flow(s.Val, nil)
		// A closure made later reads the value its own run of the
		// function (or iteration of the loop) stored: the one declared
		// last before it, unless the store is repeated in a loop that
		// does not make the variable anew, where every closure reads the
		// last iteration's.
		if at == nil && (!reaches(s.Block(), s.Block()) || (reaches(v.Block(), s.Block()) && reaches(s.Block(), v.Block()))) {
			vals = markLatest(vals)
		}
		out = out.add(vals...)
	}
	return out
}

// reaches reports whether to can run after from, through at least one
// edge: reaches(b, b) is whether b is in a loop.
func reaches(from, to *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), from.Succs...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if !seen[x] {
			seen[x] = true
			stack = append(stack, x.Succs...)
		}
	}
	return false
}

func markLatest(s vset) vset {
	out := make(vset, 0, len(s))
	for _, v := range s {
		if v.kind == aOrigin && !v.latest {
			c := *v
			c.latest = true
			v = &c
		}
		out = out.add(v)
	}
	return out
}

// varStores lists the stores to a variable, and reports whether all of
// them are in the function that owns it and its address goes nowhere but
// to loads, stores and closures that only read it.
func (a *analyzer) varStores(v *ssa.Alloc) ([]*ssa.Store, bool) {
	stores := append([]*ssa.Store(nil), a.stores[v]...)
	local := true
	var visit func(addr ssa.Value)
	visited := map[ssa.Value]bool{}
	visit = func(addr ssa.Value) {
		if visited[addr] {
			return
		}
		visited[addr] = true
		refs := addr.Referrers()
		if refs == nil {
			return
		}
		for _, r := range *refs {
			switch in := r.(type) {
			case *ssa.Store:
				if in.Addr != addr {
					local = false // the address itself is stored somewhere
				} else if addr != ssa.Value(v) {
					stores = append(stores, in)
					local = false
				}
			case *ssa.UnOp, *ssa.DebugRef:
			case *ssa.MakeClosure:
				fn := in.Fn.(*ssa.Function)
				for i, b := range in.Bindings {
					if b == addr {
						visit(fn.FreeVars[i])
					}
				}
			case *ssa.FieldAddr, *ssa.IndexAddr:
			default:
				local = false
			}
		}
	}
	visit(v)
	return stores, local
}

// fieldValues is what field i of the struct x points to may hold: what
// was stored into that field of the same objects, or of any object of the
// type when x cannot be followed.
func (a *analyzer) fieldValues(x ssa.Value, field int, f *frame) vset {
	key := fieldKey{types.TypeString(deref(x.Type()), nil), field}
	readers := a.structCopies(objectsIn(a.flow(x, f)))
	var out vset
	for _, s := range a.fieldStores[key] {
		out = out.add(a.stored(readers, s.Addr.(*ssa.FieldAddr).X, s.Val)...)
	}
	return out
}

// structCopies adds to objects the struct values copied whole into them:
// the fields of a variable that was assigned a struct literal are the
// literal's.
func (a *analyzer) structCopies(objects vset) vset {
	out := objects
	for i := 0; i < len(out) && i < 64; i++ {
		alloc, ok := out[i].site.(*ssa.Alloc)
		if !ok || out[i].kind != aObject || !isStruct(deref(alloc.Type())) {
			continue
		}
		out = out.add(objectsIn(a.varValues(alloc, nil))...)
	}
	return out
}

func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// stored is what a store of val into the object that base holds gives a
// reader of readers: nothing when the objects differ, val otherwise, as
// returned through the same calls as the reader's object.
func (a *analyzer) stored(readers vset, base, val ssa.Value) vset {
	if readers == nil {
		return a.flow(val, nil)
	}
	written := objectsIn(a.flow(base, nil))
	for _, r := range readers {
		for _, w := range written {
			if r.identity() == w.identity() {
				return prefixVia(a.flow(val, nil), r.via)
			}
		}
	}
	return nil
}

// objectsIn are the values of s that have an identity, or nil when there
// is none to compare: then every store counts.
func objectsIn(s vset) vset {
	var out vset
	for _, v := range s {
		if v.kind == aObject || v.kind == aOrigin {
			out = append(out, v)
		}
	}
	return out
}

// elements is what element index of the slice or array x may hold. A
// constant index reads what was stored at that index; any other index
// chooses among all the elements at run time.
func (a *analyzer) elements(x, index ssa.Value, pos token.Pos, f *frame) vset {
	readers := objectsIn(a.flow(x, f))
	k, isConst := constIndex(index)
	var out vset
	for _, s := range a.indexStores {
		ia := s.Addr.(*ssa.IndexAddr)
		if sk, ok := constIndex(ia.Index); isConst && ok && sk != k {
			continue
		}
		out = out.add(a.stored(readers, ia.X, s.Val)...)
	}
	if !isConst {
		out = out.add(&abs{kind: aUnknown, pos: pos, chosen: true, why: "it is chosen at run time, from a slice or array read at an index that is not a constant"})
	}
	return out
}

func constIndex(v ssa.Value) (string, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil {
		return "", false
	}
	return c.Value.ExactString(), true
}

// lookup is what a map read may give: what was stored under that key,
// when the key is a constant; otherwise any value of the map, chosen at
// run time.
func (a *analyzer) lookup(l *ssa.Lookup, f *frame) vset {
	if _, isString := l.X.Type().Underlying().(*types.Basic); isString {
		return nil
	}
	readers := objectsIn(a.flow(l.X, f))
	k, isConst := constKey(l.Index)
	var out vset
	for _, u := range a.mapUpdates {
		if uk, ok := constKey(u.Key); isConst && ok && uk != k {
			continue
		}
		out = out.add(a.stored(readers, u.Map, u.Value)...)
	}
	if !isConst {
		out = out.add(&abs{kind: aUnknown, pos: l.Pos(), chosen: true, why: "it is chosen at run time, from a map read with a key that is not a constant"})
	}
	return out
}

func constKey(v ssa.Value) (string, bool) {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
			continue
		case *ssa.ChangeType:
			v = x.X
			continue
		case *ssa.Const:
			if x.Value == nil {
				return "nil", true
			}
			if x.Value.Kind() == constant.String {
				return "s" + constant.StringVal(x.Value), true
			}
			return x.Value.ExactString(), true
		}
		return "", false
	}
}

// rangeValues is what the values of a range over a map may be: all of
// them.
func (a *analyzer) rangeValues(n *ssa.Next, f *frame) vset {
	r, ok := n.Iter.(*ssa.Range)
	if !ok {
		return unknown(n.Pos(), "it comes from a range the deducer cannot follow")
	}
	readers := objectsIn(a.flow(r.X, f))
	var out vset
	for _, u := range a.mapUpdates {
		out = out.add(a.stored(readers, u.Map, u.Value)...)
	}
	return out
}
