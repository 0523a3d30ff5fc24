package deduce

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

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
