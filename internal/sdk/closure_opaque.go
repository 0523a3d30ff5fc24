package sdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/deduce"
	"github.com/tetherhq/tether/internal/diagnostic"
)

// A closure sees the real value of an Output the program made while it
// deploys (u := router.URL()), and of a string made from one (u :=
// router.URL().String()), because the deducer followed what the closure
// captured back to the getters, which then reach the closure's
// environment; the rebuilt program gives their values where the tokens
// were. Where the deducer cannot follow a captured value back
// (deduce.FuncResult.Opaque: the result of a call through reflection),
// such a value could reach the closure unseen: a string would stay a
// token, a silently wrong value at request time, and an Output would fail
// to read inside the closure.
//
// So the deploy fails when a closure takes a value the deducer cannot
// follow and the program made, while deploying, an Output or a token the
// closure's environment does not cover: one whose value could not be
// computed from the captured properties the closure gets. A program that
// makes neither, or whose closure declares what it reads with
// tether.Uses, is deployed as before.

// checkOpaque reports the Outputs and tokens that could reach cl unseen.
// The caller holds mu.
func (st *Stack) checkOpaque(cl *closure, res deduce.FuncResult) {
	if len(res.Opaque) == 0 || len(cl.opts.uses) > 0 || st.in.Destroying || st.tokens == nil {
		return
	}
	covered := map[coverKey]bool{}
	for _, u := range cl.uses {
		covered[coverKey{u.c, u.name}] = true
	}
	t := st.tokens
	t.mu.Lock()
	lazies, made, outputs := slices.Clone(t.lazies), slices.Clone(t.made), slices.Clone(t.outputs)
	t.mu.Unlock()
	var escaped []string
	var first hcl.Range
	seen := map[string]bool{}
	add := func(what string, at hcl.Range) {
		if seen[what] {
			return
		}
		seen[what] = true
		if len(escaped) == 0 {
			first = at
		}
		if len(escaped) < 3 {
			escaped = append(escaped, what)
		} else {
			escaped[2] = "and others"
		}
	}
	for i, l := range lazies {
		if from, ok := uncovered(st, l, covered); ok {
			add(fmt.Sprintf("a string made from %s at %s", from, posString(made[i])), made[i])
		}
	}
	for _, o := range outputs {
		if from, ok := uncovered(st, o.l, covered); ok {
			at, _ := siteOf(o.pcs)
			what := "an Output computed from " + from
			if _, ok := attrOf(o.l); ok {
				what = "the Output " + from
			}
			add(fmt.Sprintf("%s at %s", what, posString(at)), at)
		}
	}
	if len(escaped) == 0 {
		return
	}
	o := res.Opaque[0]
	subject := fmt.Sprintf("%s (the function at %s)", capitalize(cl.what), funcSource(cl))
	d := diagnostic.At(first, "Deploy-time value out of the deducer's view",
		fmt.Sprintf("%s uses %s at %s, and %s. This program made %s while it deployed: each stands for a value "+
			"known only once deployed, and the closure's environment does not carry what it comes from. Had one "+
			"reached the closure that way, the closure would see a token in place of a string's value, or fail "+
			"to read an Output. Declare the captured properties the closure reads: %s(..., tether.Uses(router.URL())), "+
			"say, or tether.Uses() when it reads none.",
			subject, exprOr(o.Expr, "a value"), where(o.At), o.Reason, strings.Join(escaped, ", "), cl.api))
	d.Context = cl.pos.Ptr()
	st.report(d)
}

type coverKey struct {
	c    *construct
	name string
}

// uncovered says what of l's value the covered captured properties do
// not give: the attribute it comes from, or false when they give it all.
func uncovered(st *Stack, l *lazy, covered map[coverKey]bool) (string, bool) {
	if l == nil || l.err != nil || l.eval == nil || l.ref != nil {
		return "", false
	}
	if r, ok := attrOf(l); ok {
		return r.c.addr + "." + r.name, !covered[coverKey{r.c, r.name}]
	}
	v, _ := l.eval(&coverScope{st: st, covered: covered})
	_, marks := v.UnmarkDeep()
	var missing []string
	for m := range marks {
		if u, ok := m.(uncoveredMark); ok {
			missing = append(missing, string(u))
		}
	}
	if len(missing) == 0 {
		return "", false
	}
	slices.Sort(missing)
	return missing[0], true
}

// coverScope gives every attribute as unknown, marked when it is not
// covered, so that a value computed from one carries the mark.
type coverScope struct {
	st      *Stack
	covered map[coverKey]bool
}

// uncoveredMark marks an attribute a closure's environment lacks:
// tether_router.main.url.
type uncoveredMark string

func (s *coverScope) Value(addr string) cty.Value {
	c := findConstruct(s.st.root, addr)
	if c == nil || c.schema == nil || c.schema.Block == nil {
		return cty.DynamicVal.Mark(uncoveredMark(addr))
	}
	ty := c.schema.Block.ImpliedType()
	attrs := map[string]cty.Value{}
	for name, at := range ty.AttributeTypes() {
		v := cty.UnknownVal(at)
		if !s.covered[coverKey{c, name}] {
			v = v.Mark(uncoveredMark(c.addr + "." + name))
		}
		attrs[name] = v
	}
	return cty.ObjectVal(attrs)
}

var _ config.Scope = (*coverScope)(nil)
