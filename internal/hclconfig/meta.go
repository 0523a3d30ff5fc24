package hclconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// repeat reads count or for_each. It returns the kind ("", "count" or
// "for_each") for checking count.* and each.* references.
func (l *loader) repeat(attrs hcl.Attributes, m *module, n *config.Node) (*config.Repeat, string) {
	countAttr, hasCount := attrs["count"]
	forEachAttr, hasForEach := attrs["for_each"]
	switch {
	case hasCount && hasForEach:
		l.errorf(forEachAttr.NameRange, "Invalid combination of \"count\" and \"for_each\"",
			"A %s may set count or for_each, not both. Use for_each with a map or set to name the instances, or count for numbered ones.", n.Kind)
		return nil, ""
	case hasCount:
		return l.repeatOf(m, n, countAttr.Expr, false, checkCount), "count"
	case hasForEach:
		return l.repeatOf(m, n, forEachAttr.Expr, true, checkForEach), "for_each"
	}
	return nil, ""
}

// repeatOf makes the Repeat of a count or for_each expression, whose value
// check validates.
func (l *loader) repeatOf(m *module, n *config.Node, expr hcl.Expression, forEach bool, check func(cty.Value, hcl.Range) (cty.Value, hcl.Diagnostics)) *config.Repeat {
	r := &config.Repeat{ForEach: forEach, Range: expr.Range(), Expr: expr}
	traversals := expr.Variables()
	l.later(func() {
		refs := m.resolveRepeat(n, traversals, "count or for_each")
		r.Eval = func(scope config.Scope) (cty.Value, hcl.Diagnostics) {
			v, diags := expr.Value(m.evalContext(refs, scope, config.NoInstance, cty.NilVal))
			if diags.HasErrors() {
				return cty.DynamicVal, diags
			}
			return check(v, expr.Range())
		}
	})
	return r
}

func checkCount(v cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	bad := func(detail string) (cty.Value, hcl.Diagnostics) {
		return cty.DynamicVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid count argument", Detail: detail, Subject: rng.Ptr()}}
	}
	if marks.ContainsEphemeral(v) {
		return bad(`The given "count" is derived from an ephemeral value, which means that Tether cannot persist it between plan/apply rounds. Use only non-ephemeral values to specify the number of resource instances.`)
	}
	if marks.ContainsSensitive(v) {
		return bad("count cannot be a sensitive value: the number of instances would reveal it.")
	}
	if v.IsNull() {
		return bad("count must be a whole number, not null.")
	}
	if !v.IsKnown() {
		return cty.UnknownVal(cty.Number), nil
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return bad(fmt.Sprintf("count must be a whole number: %s.", err))
	}
	i, acc := n.AsBigFloat().Int64()
	if acc != 0 || i < 0 {
		return bad(fmt.Sprintf("count must be a whole number of 0 or more, not %s.", n.AsBigFloat().Text('f', -1)))
	}
	return cty.NumberIntVal(i), nil
}

func checkForEach(v cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	bad := func(detail string) (cty.Value, hcl.Diagnostics) {
		return cty.DynamicVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: detail, Subject: rng.Ptr()}}
	}
	if marks.ContainsEphemeral(v) {
		return bad(`The given "for_each" value is derived from an ephemeral value, which means that Tether cannot persist it between plan/apply rounds. Use only non-ephemeral values to specify a resource's instance keys.`)
	}
	if marks.ContainsSensitive(v) {
		return bad("for_each cannot use a sensitive value: instance keys appear in addresses and plans. Use nonsensitive() on a value that is safe to show, or iterate over something else.")
	}
	if v.IsNull() {
		return bad("for_each must be a map or a set of strings, not null.")
	}
	ty := v.Type()
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		return v, nil
	case ty.IsSetType():
		if !ty.ElementType().Equals(cty.String) && ty.ElementType() != cty.DynamicPseudoType {
			return bad(fmt.Sprintf("for_each over a set needs strings, and this is a set of %s. Convert the elements with toset([for x in ... : tostring(x)]) or use a map.", ty.ElementType().FriendlyName()))
		}
		if !v.IsKnown() {
			return v, nil
		}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if !e.IsKnown() {
				return cty.UnknownVal(ty), nil
			}
			if e.IsNull() {
				return bad("for_each cannot have a null element in its set.")
			}
		}
		return v, nil
	case ty.IsListType() || ty.IsTupleType():
		return bad(fmt.Sprintf("for_each needs a map or a set of strings, and this is a %s. For a list of strings, write toset(...); for other lists, build a map: { for x in ... : x.name => x }.", ty.FriendlyName()))
	case ty == cty.DynamicPseudoType:
		return v, nil
	}
	return bad(fmt.Sprintf("for_each needs a map or a set of strings, and this is a %s.", ty.FriendlyName()))
}

// enabled reads OpenTofu's lifecycle { enabled = BOOL } (1.11) of a
// resource, data source, ephemeral resource or module call, beyond
// Terraform: the object is declared when the value is true. As in
// OpenTofu, it cannot be combined with count or for_each, and cannot use
// count.* or each.*; its value must be known while planning, which the
// engine checks.
func (m *module) enabled(n *config.Node, a *hcl.Attribute) {
	l := m.l
	if n.Repeat != nil {
		other := "count"
		if n.Repeat.ForEach {
			other = "for_each"
		}
		l.errorf(a.NameRange, fmt.Sprintf("Invalid combination of %q and \"enabled\"", other),
			"A %s may set %s or lifecycle { enabled }, not both: enabled declares one object or none, addressed without a key, and %s a set of instances, each with a key.", n.Kind, other, other)
		return
	}
	e := &config.Enabled{Range: a.Expr.Range()}
	n.Enabled = e
	traversals := a.Expr.Variables()
	l.later(func() {
		refs := m.resolveRepeat(n, traversals, "enabled")
		e.Eval = func(scope config.Scope) (cty.Value, hcl.Diagnostics) {
			v, diags := a.Expr.Value(m.evalContext(refs, scope, config.NoInstance, cty.NilVal))
			if diags.HasErrors() {
				return cty.DynamicVal, diags
			}
			return checkEnabled(v, a.Expr.Range())
		}
	})
}

func checkEnabled(v cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	bad := func(detail string) (cty.Value, hcl.Diagnostics) {
		return cty.DynamicVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid enabled argument", Detail: detail, Subject: rng.Ptr()}}
	}
	switch {
	case marks.ContainsEphemeral(v):
		return bad("enabled cannot be derived from an ephemeral value: whether the object exists is recorded between runs.")
	case marks.ContainsSensitive(v):
		return bad("enabled cannot be a sensitive value: whether the object exists would reveal it.")
	case v.IsNull():
		return bad("enabled must be true or false, not null.")
	case !v.IsKnown():
		return cty.UnknownVal(cty.Bool), nil
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return bad(fmt.Sprintf("enabled must be true or false: %s.", err))
	}
	return b, nil
}

var lifecycleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "enabled"},
		{Name: "create_before_destroy"},
		{Name: "prevent_destroy"},
		{Name: "ignore_changes"},
		{Name: "replace_triggered_by"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}, {Type: "postcondition"}},
}

// lifecycle reads a lifecycle block; it returns the traversals its
// conditions and triggers make, which count as the node's references.
func (m *module) lifecycle(n *config.Node, b *hcl.Block, schema *provider.Block, repeatKind string) []hcl.Traversal {
	l := m.l
	content, d := b.Body.Content(lifecycleSchema)
	l.diags = append(l.diags, d...)
	if a, ok := content.Attributes["enabled"]; ok {
		m.enabled(n, a)
		delete(content.Attributes, "enabled")
	}
	if n.Kind == config.DataSource || n.Kind == config.Ephemeral {
		// Only managed resources have objects that live on, so only they
		// take the settings about replacing and keeping them.
		kind := "a data source"
		if n.Kind == config.Ephemeral {
			kind = "an ephemeral resource"
		}
		for name, a := range content.Attributes {
			l.errorf(a.NameRange, fmt.Sprintf("Invalid %s for %s", name, kind),
				"The lifecycle argument %q is defined only for managed resources (resource blocks); %s takes only precondition and postcondition blocks in lifecycle.", name, kind)
			delete(content.Attributes, name)
		}
	}
	boolAttr := func(name string, dst *bool) {
		a, ok := content.Attributes[name]
		if !ok {
			return
		}
		if len(a.Expr.Variables()) > 0 {
			// Beyond Terraform, as OpenTofu 1.12: from values known
			// before planning, settled once everything is declared.
			l.later(func() { m.staticBool(n, name, a, dst) })
			return
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.Bool || v.IsNull() {
			l.errorf(a.Expr.Range(), fmt.Sprintf("Invalid %s", name), "%s must be true or false.", name)
			return
		}
		*dst = v.True()
	}
	boolAttr("create_before_destroy", &n.Lifecycle.CreateBeforeDestroy)
	boolAttr("prevent_destroy", &n.Lifecycle.PreventDestroy)
	if a, ok := content.Attributes["ignore_changes"]; ok {
		m.ignoreChanges(n, a, schema)
	}
	var traversals []hcl.Traversal
	if a, ok := content.Attributes["replace_triggered_by"]; ok {
		traversals = append(traversals, m.replaceTriggeredBy(n, a)...)
	}
	for _, blk := range content.Blocks {
		c, t := m.condition(n, blk, repeatKind, blk.Type == "postcondition")
		if c == nil {
			continue
		}
		traversals = append(traversals, t...)
		if blk.Type == "precondition" {
			n.Preconditions = append(n.Preconditions, *c)
		} else {
			n.Postconditions = append(n.Postconditions, *c)
		}
	}
	return traversals
}

func (m *module) ignoreChanges(n *config.Node, a *hcl.Attribute, schema *provider.Block) {
	l := m.l
	if t, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() && len(t) == 1 && t.RootName() == "all" {
		n.Lifecycle.IgnoreAllChanges = true
		return
	}
	exprs, d := hcl.ExprList(a.Expr)
	if d.HasErrors() {
		l.errorf(a.Expr.Range(), "Invalid ignore_changes", "ignore_changes takes a list of attribute names, such as [content], or the keyword all.")
		return
	}
	for _, e := range exprs {
		t, d := hcl.RelTraversalForExpr(e)
		if d.HasErrors() || len(t) == 0 {
			l.errorf(e.Range(), "Invalid ignore_changes entry", "Each entry names an attribute of this resource, such as content or tags[\"owner\"], without quotes.")
			continue
		}
		var path cty.Path
		for _, step := range t {
			switch s := step.(type) {
			case hcl.TraverseAttr:
				path = path.GetAttr(s.Name)
			case hcl.TraverseIndex:
				path = path.Index(s.Key)
			}
		}
		first := path[0].(cty.GetAttrStep).Name
		if _, ok := schema.Attributes[first]; !ok {
			if _, ok := schema.BlockTypes[first]; !ok {
				l.errorf(e.Range(), "Unsupported attribute in ignore_changes", "%s has no attribute named %q.%s", n.Type, first, didYouMean(first, append(schema.AttributeNames(), schema.BlockTypeNames()...)))
				continue
			}
		}
		n.Lifecycle.IgnoreChanges = append(n.Lifecycle.IgnoreChanges, path)
	}
}

func (m *module) replaceTriggeredBy(n *config.Node, a *hcl.Attribute) []hcl.Traversal {
	l := m.l
	exprs, d := hcl.ExprList(a.Expr)
	if d.HasErrors() {
		l.errorf(a.Expr.Range(), "Invalid replace_triggered_by", "replace_triggered_by takes a list of references to resources or their attributes.")
		return nil
	}
	var traversals []hcl.Traversal
	for _, e := range exprs {
		t, d := hcl.AbsTraversalForExpr(e)
		names := attrNames(t)
		if d.HasErrors() || len(names) < 2 || t.RootName() == "var" || t.RootName() == "local" || t.RootName() == "data" || t.RootName() == "ephemeral" || t.RootName() == "module" {
			l.errorf(e.Range(), "Invalid replace_triggered_by entry", "Each entry refers to a managed resource or one of its attributes, such as tether_value.v or tether_value.v.output.")
			continue
		}
		trig := config.Trigger{Ref: config.Ref{Addr: m.prefix(names[0] + "." + names[1]), Range: e.Range()}}
		// Skip an instance index, then the rest is the attribute path.
		rest := t[2:]
		if len(rest) > 0 {
			if _, ok := rest[0].(hcl.TraverseIndex); ok {
				rest = rest[1:]
			}
		}
		for _, step := range rest {
			switch s := step.(type) {
			case hcl.TraverseAttr:
				trig.Path = trig.Path.GetAttr(s.Name)
			case hcl.TraverseIndex:
				trig.Path = trig.Path.Index(s.Key)
			}
		}
		n.Lifecycle.ReplaceTriggeredBy = append(n.Lifecycle.ReplaceTriggeredBy, trig)
		traversals = append(traversals, t[:2])
	}
	return traversals
}

var conditionSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}}}

// constantCondition is Terraform's detail for a condition that refers to
// nothing: it would check nothing.
const constantCondition = "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything."

// condition reads a precondition, postcondition or assert block.
func (m *module) condition(n *config.Node, b *hcl.Block, repeatKind string, selfAllowed bool) (*config.Condition, []hcl.Traversal) {
	l := m.l
	content, d := b.Body.Content(conditionSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return nil, nil
	}
	cond, msg := content.Attributes["condition"].Expr, content.Attributes["error_message"].Expr
	if len(cond.Variables()) == 0 {
		l.errorf(cond.Range(), "Invalid "+b.Type+" expression", constantCondition)
	}
	var traversals []hcl.Traversal
	for _, t := range append(cond.Variables(), msg.Variables()...) {
		if t.RootName() == "self" {
			if !selfAllowed {
				l.errorf(t.SourceRange(), "Invalid reference to self", "self refers to the resource instance and can be used only in its postconditions.")
			}
			continue
		}
		traversals = append(traversals, t)
	}
	addr := n.Addr
	c := &config.Condition{Range: cond.Range()}
	c.Eval = func(scope config.Scope, inst config.Instance, self cty.Value) (cty.Value, string, hcl.Diagnostics) {
		ctx := m.evalContext(l.evalRefs[addr], scope, inst, self)
		ok, diags := cond.Value(ctx)
		if diags.HasErrors() {
			return cty.UnknownVal(cty.Bool), "", diags
		}
		ok, _ = ok.Unmark()
		okBool, err := convert.Convert(ok, cty.Bool)
		if err != nil || okBool.IsNull() {
			return cty.UnknownVal(cty.Bool), "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid condition result",
				Detail: "The condition must be true or false.", Subject: cond.Range().Ptr()}}
		}
		text := ""
		if mv, d := msg.Value(ctx); !d.HasErrors() {
			if mv, err := convert.Convert(mv, cty.String); err == nil && mv.IsKnown() && !mv.IsNull() && !marks.ContainsSensitive(mv) && !marks.ContainsEphemeral(mv) {
				text = mv.AsString()
			}
		}
		return okBool, text, nil
	}
	return c, traversals
}
