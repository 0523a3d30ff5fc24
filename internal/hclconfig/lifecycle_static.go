package hclconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
)

// staticBool settles a lifecycle argument (prevent_destroy,
// create_before_destroy) written as an expression: beyond Terraform, which
// takes only a literal, and as OpenTofu 1.12 does for prevent_destroy, it
// may refer to variables and locals whose values are known before anything
// is planned. The value is one for every instance of the resource, in
// every instance of its module, since it decides how the resource is
// planned as a whole. Anything else is an error at the reference.
func (m *module) staticBool(n *config.Node, name string, a *hcl.Attribute, dst *bool) {
	l := m.l
	s := m.staticScope()
	v, missing := s.value(a.Expr)
	if missing != nil {
		why := "it is known only once something is planned"
		if names := attrNames(*missing); len(names) >= 2 && missing.RootName() == "var" && s.unknown[names[1]] != "" {
			why = s.unknown[names[1]]
		}
		if why == noValue {
			return // the variable's own error says so
		}
		l.errorf(missing.SourceRange(), fmt.Sprintf("Invalid %s", name),
			"%s of %s is decided before anything is planned, so it may refer only to variables (set by -var, -var-file, .tfvars files, TF_VAR_ or defaults, or in a called module by its call's arguments known then) and to locals computed from them. %s is not known then: %s.",
			name, n.Addr, traversalSource(*missing), why)
		return
	}
	bad := func(detail string, args ...any) {
		l.errorf(a.Expr.Range(), fmt.Sprintf("Invalid %s", name), detail, args...)
	}
	switch {
	case marks.ContainsSensitive(v):
		bad("%s of %s cannot be a sensitive value: whether it holds would reveal it. Use nonsensitive() on a value that is safe to show.", name, n.Addr)
		return
	case marks.ContainsEphemeral(v):
		bad("%s of %s cannot be derived from an ephemeral value: it must stay the same between plan and apply.", name, n.Addr)
		return
	case !v.IsWhollyKnown():
		bad("%s of %s is decided before anything is planned, and this expression's value is not known then.", name, n.Addr)
		return
	case v.IsNull():
		bad("%s of %s is null: write false instead.", name, n.Addr)
		return
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		bad("%s of %s must be true or false: %s.", name, n.Addr, err)
		return
	}
	*dst = b.True()
}

// noValue is why a root variable is not known before planning when it has
// no value at all, which its own error reports.
const noValue = "it has no value"

// staticScope is what the module's expressions can know before anything
// is planned, made once: the root's variables as given (-var, -var-file,
// .tfvars files, TF_VAR_, defaults), a called module's as its call's
// arguments known then give them or their defaults, and the locals
// computed from those.
func (m *module) staticScope() *staticScope {
	if m.static != nil {
		return m.static
	}
	l := m.l
	s := &staticScope{l: l, vars: map[string]cty.Value{}, locals: m.localExprs, values: map[string]cty.Value{}, busy: map[string]bool{}, unknown: map[string]string{}}
	if s.locals == nil {
		s.locals = map[string]hcl.Expression{}
	}
	m.static = s
	var parent *staticScope
	if m.call != nil && m.call.external == nil {
		parent = m.call.parent.staticScope()
	}
	for _, n := range l.cfg.Nodes {
		if n.Kind != config.Variable || n.Module != m.path {
			continue
		}
		switch {
		case m.call == nil:
			s.unknown[n.Name] = noValue
			if n.Eval != nil {
				if v, d := n.Eval.Evaluate(nil, config.NoInstance); !d.HasErrors() {
					s.vars[n.Name] = v
					delete(s.unknown, n.Name)
				}
			}
		case parent == nil:
			s.unknown[n.Name] = "a Go program gives it its value"
		default:
			if a, ok := m.call.args[n.Name]; ok {
				v, missing := parent.value(a.Expr)
				switch {
				case missing != nil && (missing.RootName() == "count" || missing.RootName() == "each"):
					s.unknown[n.Name] = fmt.Sprintf("its module call's argument (%s) refers to %s, which differs from one instance of the call to the next", rangeString(a.Expr.Range()), traversalSource(*missing))
				case missing != nil:
					s.unknown[n.Name] = fmt.Sprintf("its module call's argument (%s) refers to %s, which is not known then", rangeString(a.Expr.Range()), traversalSource(*missing))
				case !v.IsWhollyKnown():
					s.unknown[n.Name] = fmt.Sprintf("its module call's argument (%s) has no value then", rangeString(a.Expr.Range()))
				default:
					s.vars[n.Name] = v
				}
			} else if n.Syntax != nil && n.Syntax.Declared().Default != cty.NilVal {
				s.vars[n.Name] = n.Syntax.Declared().Default
			} else {
				s.unknown[n.Name] = "its module call gives it no value and it has no default"
			}
		}
	}
	return s
}
