package deduce

import (
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
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

// abs is an abstract value: one thing a Go value may be, with where it
// came from.
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
