package hclconfig

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
)

var importSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "to", Required: true},
		{Name: "id", Required: true},
		{Name: "for_each"},
		{Name: "provider"},
	},
}

// importBlock reads an import block of the root module, as Terraform 1.11
// reads one (configs.decodeImportBlock, terraform's expandResourceImports):
// to is a resource instance address, in a module instance or not, whose
// instance keys may be expressions of each.key and each.value alone
// (`module.store[each.key].tether_file.data[each.value]`) when the block
// has for_each; for_each is a map, set or list (each.key an index for a
// list) known when planning; id is any expression of the root module.
func (m *module) importBlock(b *hcl.Block) {
	l := m.l
	if m.path != "" {
		l.errorf(b.DefRange, "Import block in a module", "Import blocks are allowed only in the root module; write the target as module.NAME.TYPE.NAME there.")
		return
	}
	content, d := b.Body.Content(importSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	if a, ok := content.Attributes["provider"]; ok {
		l.errorf(a.NameRange, "Unsupported argument", "Tether imports with the target resource's own provider configuration; set provider on the resource block instead.")
		return
	}
	toAttr := content.Attributes["to"]
	forEach := content.Attributes["for_each"]
	toExpr, d := unwrapJSONRef(toAttr.Expr)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	if forEach == nil {
		// Without for_each, to is a plain address.
		if _, d := hcl.AbsTraversalForExpr(toExpr); d.HasErrors() {
			l.diags = append(l.diags, d...)
			return
		}
	}
	to, ok := parseImportTo(toExpr)
	if !ok {
		l.errorf(toExpr.Range(), "Invalid import address", "to takes a resource instance address such as tether_file.a, tether_file.a[\"x\"], tether_file.a[each.key] or module.m[each.key].tether_file.a, without quotes.")
		return
	}
	if to.static.Resource == "" || strings.HasPrefix(to.static.Resource, "data.") || strings.HasPrefix(to.static.Resource, "ephemeral.") {
		l.errorf(toAttr.Range, "Invalid import address", "Only managed resources can be imported.")
		return
	}
	static := to.static.Static()
	if key, ok := to.constant(); ok {
		for _, prev := range l.importTos {
			if prev.key == key {
				l.errorf(toExpr.Range(), fmt.Sprintf("Duplicate import configuration for %q", static),
					"An import block for the resource %q was already declared at %s. A resource can have only one import block.", static, prev.rng.String())
				return
			}
		}
		l.importTos = append(l.importTos, importTo{key: key, rng: b.DefRange})
	}
	idExpr := content.Attributes["id"].Expr
	traversals := idExpr.Variables()
	repeatKind := ""
	if forEach != nil {
		repeatKind = "for_each"
		traversals = append(traversals, forEach.Expr.Variables()...)
	}
	imp := config.Import{To: static, Range: b.DefRange}
	l.later(func() {
		target, ok := l.decls[static]
		if !ok || target.Kind != config.Resource {
			l.errorf(toExpr.Range(), "Configuration for import target does not exist",
				"The configuration declares no resource %s. Add a resource block for the object being imported.", static)
			return
		}
		// The import's own references: the target's would bind its
		// module's names, where these are the root module's.
		refs := m.refs(target, traversals, repeatKind, true)
		imp.Eval = func(scope config.Scope) ([]config.ImportTarget, hcl.Diagnostics) {
			one := func(inst config.Instance) (config.ImportTarget, hcl.Diagnostics) {
				t := config.ImportTarget{Range: toExpr.Range()}
				a, diags := to.instance(inst)
				if diags.HasErrors() {
					return t, diags
				}
				t.Addr = a.String()
				if d := importExpansion(target, a.Key, toExpr.Range()); d != nil {
					return t, hcl.Diagnostics{d}
				}
				ctx := m.evalContext(refs, scope, config.NoInstance, cty.NilVal)
				if inst.Key != cty.NilVal {
					// each.key is a list's index: bound as each, never as
					// count.
					delete(ctx.Variables, "count")
					ctx.Variables["each"] = cty.ObjectVal(map[string]cty.Value{"key": inst.Key, "value": inst.Each})
				}
				id, d := importID(idExpr, ctx)
				t.ID = id
				return t, append(diags, d...)
			}
			if forEach == nil {
				t, diags := one(config.NoInstance)
				return []config.ImportTarget{t}, diags
			}
			ctx := m.evalContext(refs, scope, config.NoInstance, cty.NilVal)
			coll, diags := forEach.Expr.Value(ctx)
			if diags.HasErrors() {
				return nil, diags
			}
			if !coll.IsWhollyKnown() {
				return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument",
					Detail:      "The \"for_each\" expression includes values derived from other resource attributes that cannot be determined until apply, and so Tether cannot determine the full set of values that might be used to import this resource.",
					Subject:     forEach.Expr.Range().Ptr(),
					Expression:  forEach.Expr,
					EvalContext: ctx,
				}}
			}
			if coll.IsNull() {
				return nil, diags
			}
			coll, _ = coll.Unmark()
			if !coll.CanIterateElements() {
				return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument",
					Detail: "The \"for_each\" expression must be a collection.", Subject: forEach.Expr.Range().Ptr()}}
			}
			var out []config.ImportTarget
			for it := coll.ElementIterator(); it.Next(); {
				k, v := it.Element()
				t, d := one(config.Instance{Key: k, Each: v})
				diags = append(diags, d...)
				if d.HasErrors() {
					return nil, diags
				}
				out = append(out, t)
			}
			return out, diags
		}
		l.cfg.Imports = append(l.cfg.Imports, imp)
	})
}

// importTo is an import target written without expressions, to find two
// blocks importing the same instance.
type importTo struct {
	key string
	rng hcl.Range
}

// importAddr is an import block's to address: static steps, and where
// instance keys are written, either a constant or an expression of each.
type importAddr struct {
	static addr.Instance // every key removed
	steps  []importStep
}

type importStep struct {
	name string // a module call's name; "" for the resource
	key  hcl.Expression
}

// parseImportTo reads to as Terraform does (configs.exprToResourceTraversal):
// a traversal whose index steps may be expressions.
func parseImportTo(expr hcl.Expression) (importAddr, bool) {
	var parts []hcl.Traverser
	var keys []hcl.Expression // one per part: the index expression after it
	var walk func(e hcl.Expression) bool
	appendTraversal := func(t hcl.Traversal) {
		for _, s := range t {
			if idx, ok := s.(hcl.TraverseIndex); ok && len(keys) > 0 && keys[len(keys)-1] == nil {
				keys[len(keys)-1] = &hclsyntax.LiteralValueExpr{Val: idx.Key, SrcRange: idx.SrcRange}
				continue
			}
			parts = append(parts, s)
			keys = append(keys, nil)
		}
	}
	walk = func(e hcl.Expression) bool {
		switch e := e.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			appendTraversal(e.Traversal)
		case *hclsyntax.RelativeTraversalExpr:
			if !walk(e.Source) {
				return false
			}
			appendTraversal(e.Traversal)
		case *hclsyntax.IndexExpr:
			if !walk(e.Collection) || len(keys) == 0 || keys[len(keys)-1] != nil {
				return false
			}
			keys[len(keys)-1] = e.Key
		default:
			t, d := hcl.AbsTraversalForExpr(e)
			if d.HasErrors() {
				return false
			}
			appendTraversal(t)
		}
		return true
	}
	if !walk(expr) {
		return importAddr{}, false
	}
	var static hcl.Traversal
	for _, p := range parts {
		static = append(static, p)
	}
	ia, err := addr.FromTraversal(static)
	if err != nil || ia.Resource == "" {
		return importAddr{static: ia}, err == nil
	}
	// The module calls are the names after each "module"; the resource is
	// the rest. A key may follow a module call's name or the resource's.
	var a importAddr
	a.static = ia
	i := 0
	for i+1 < len(parts) && traverserName(parts[i]) == "module" {
		if keys[i] != nil {
			return importAddr{}, false
		}
		a.steps = append(a.steps, importStep{name: traverserName(parts[i+1]), key: keys[i+1]})
		i += 2
	}
	for j := i; j < len(parts)-1; j++ {
		if keys[j] != nil {
			return importAddr{}, false
		}
	}
	a.steps = append(a.steps, importStep{key: keys[len(keys)-1]})
	return a, true
}

func traverserName(t hcl.Traverser) string {
	switch t := t.(type) {
	case hcl.TraverseRoot:
		return t.Name
	case hcl.TraverseAttr:
		return t.Name
	}
	return ""
}

// constant is the address when no key is an expression of each.
func (a importAddr) constant() (string, bool) {
	for _, s := range a.steps {
		if s.key != nil && len(s.key.Variables()) > 0 {
			return "", false
		}
	}
	ia, d := a.instance(config.NoInstance)
	if d.HasErrors() {
		return "", false
	}
	return ia.String(), true
}

// instance evaluates the address's keys for one element of for_each:
// only each.key and each.value may be used in them.
func (a importAddr) instance(inst config.Instance) (addr.Instance, hcl.Diagnostics) {
	out := addr.Instance{Resource: a.static.Resource}
	vars := map[string]cty.Value{}
	if inst.Key != cty.NilVal {
		vars["each"] = cty.ObjectVal(map[string]cty.Value{"key": inst.Key, "value": inst.Each})
	}
	ctx := &hcl.EvalContext{Variables: vars}
	for _, s := range a.steps {
		k := cty.NilVal
		if s.key != nil {
			v, diags := s.key.Value(ctx)
			for _, d := range diags {
				if d.Summary == "Unknown variable" || d.Summary == "Variables not allowed" {
					d.Detail += " Only \"each.key\" and \"each.value\" can be used in import address index expressions."
				}
			}
			if diags.HasErrors() {
				return out, diags
			}
			if v.HasMark(marks.Sensitive) {
				return out, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid index expression",
					Detail: "Import address index expression cannot be sensitive.", Subject: s.key.Range().Ptr()}}
			}
			v, _ = v.Unmark()
			if !v.IsKnown() || v.IsNull() || (v.Type() != cty.String && v.Type() != cty.Number) {
				return out, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid import address",
					Detail: "An instance key of an import target must be a known string or number.", Subject: s.key.Range().Ptr()}}
			}
			k = v
		}
		if s.name == "" {
			out.Key = k
		} else {
			out.Module = append(out.Module, addr.Step{Name: s.name, Key: k})
		}
	}
	return out, nil
}

// importExpansion is Terraform's check that the target's instance key
// agrees with how the resource is repeated (validateImportTargetExpansion).
func importExpansion(target *config.Node, key cty.Value, rng hcl.Range) *hcl.Diagnostic {
	forEach := target.Repeat != nil && target.Repeat.ForEach
	count := target.Repeat != nil && !target.Repeat.ForEach
	detail := ""
	switch {
	case key != cty.NilVal && key.Type() == cty.String && !forEach:
		detail = "The target resource does not use for_each."
	case key != cty.NilVal && key.Type() == cty.Number && !count:
		detail = "The target resource does not use count."
	case key == cty.NilVal && forEach:
		detail = "The target resource is using for_each."
	case key == cty.NilVal && count:
		detail = "The target resource is using count."
	default:
		return nil
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid import 'to' expression", Detail: detail, Subject: rng.Ptr()}
}

// importID evaluates an import's id, with Terraform's errors
// (evaluateImportIdExpression).
func importID(expr hcl.Expression, ctx *hcl.EvalContext) (string, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return "", diags
	}
	fail := func(detail string) (string, hcl.Diagnostics) {
		return "", append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid import id argument", Detail: detail, Subject: expr.Range().Ptr()})
	}
	if v.IsNull() {
		return fail("The import ID cannot be null.")
	}
	if !v.IsWhollyKnown() {
		return fail(`The import block "id" argument depends on resource attributes that cannot be determined until apply, so Tether cannot plan to import this resource.`)
	}
	v, _ = v.Unmark()
	sv, err := convert.Convert(v, cty.String)
	if err != nil {
		return fail("The import ID value is unsuitable: not a string.")
	}
	if sv.AsString() == "" {
		return fail("The import ID value evaluates to an empty string, please provide a non-empty value.")
	}
	return sv.AsString(), diags
}

// unwrapJSONRef reads the string a *.tf.json file gives for to as the
// expression it holds, as Terraform does.
func unwrapJSONRef(expr hcl.Expression) (hcl.Expression, hcl.Diagnostics) {
	if !hcljson.IsJSONExpression(expr) {
		return expr, nil
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.Type() != cty.String || v.IsNull() {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid reference expression",
			Detail: "A single reference string is required.", Subject: expr.Range().Ptr()}}
	}
	rng := expr.Range()
	return hclsyntax.ParseExpression([]byte(v.AsString()), rng.Filename, rng.Start)
}

var removedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "lifecycle"}},
}

// removedBlock reads a removed block: the objects recorded for a resource
// or module that left the configuration are forgotten (lifecycle { destroy
// = false }) or destroyed.
func (m *module) removedBlock(b *hcl.Block) {
	l := m.l
	content, d := b.Body.Content(removedSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	a := content.Attributes["from"]
	t, d := hcl.AbsTraversalForExpr(a.Expr)
	if d.HasErrors() {
		l.errorf(a.Expr.Range(), "Invalid removed address", "from takes a resource address such as tether_file.a, or a module call such as module.net, without quotes or instance keys.")
		return
	}
	for _, step := range t {
		if _, ok := step.(hcl.TraverseIndex); ok {
			l.errorf(a.Expr.Range(), "Invalid removed address", "A removed block names a whole resource or module call, without instance keys.")
			return
		}
	}
	r := config.Removed{From: m.prefix(traversalSource(t)), Destroy: true, Range: b.DefRange}
	for _, lc := range content.Blocks {
		attrs, d := lc.Body.JustAttributes()
		l.diags = append(l.diags, d...)
		for name, at := range attrs {
			if name != "destroy" {
				l.errorf(at.NameRange, "Unsupported argument", "The lifecycle of a removed block takes only destroy.")
				continue
			}
			v, d := at.Expr.Value(nil)
			if d.HasErrors() || v.Type() != cty.Bool || v.IsNull() {
				l.errorf(at.Expr.Range(), "Invalid destroy argument", "destroy takes a literal true or false.")
				continue
			}
			r.Destroy = v.True()
		}
	}
	l.later(func() {
		if n, ok := l.decls[r.From]; ok {
			l.errorf(a.Expr.Range(), "Removed object still declared", "%s is still declared at %s; remove its block, or remove this removed block.", r.From, rangeString(n.DeclRange))
			return
		}
		l.cfg.Removed = append(l.cfg.Removed, r)
	})
}
