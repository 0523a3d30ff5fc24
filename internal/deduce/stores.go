package deduce

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

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
