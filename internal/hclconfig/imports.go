package hclconfig

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
)

var importSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "to", Required: true},
		{Name: "id", Required: true},
		{Name: "for_each"},
		{Name: "provider"},
	},
}

// importBlock reads an import block of the root module. Its to argument
// is a resource address whose instance key may be an expression of
// each.key and each.value (`aws_instance.x[each.key]`).
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
	toExpr := content.Attributes["to"].Expr
	static, keyExpr, ok := importTarget(toExpr)
	if !ok {
		l.errorf(toExpr.Range(), "Invalid import address", "to takes a resource address such as tether_file.a, tether_file.a[\"x\"] or tether_file.a[each.key], without quotes.")
		return
	}
	idExpr := content.Attributes["id"].Expr
	forEach := content.Attributes["for_each"]
	repeatKind := ""
	traversals := idExpr.Variables()
	if keyExpr != nil {
		traversals = append(traversals, keyExpr.Variables()...)
	}
	if forEach != nil {
		repeatKind = "for_each"
		traversals = append(traversals, forEach.Expr.Variables()...)
	}
	imp := config.Import{To: static, Range: b.DefRange}
	l.pending = append(l.pending, func() {
		target, ok := l.decls[static]
		if !ok || target.Kind != config.Resource {
			l.errorf(toExpr.Range(), "Configuration for import target does not exist",
				"The configuration declares no resource %s. Add a resource block for the object being imported.", static)
			return
		}
		refs := m.resolve(target, traversals, repeatKind)
		imp.Eval = func(scope config.Scope) ([]config.ImportTarget, hcl.Diagnostics) {
			one := func(inst config.Instance) (config.ImportTarget, hcl.Diagnostics) {
				ctx := m.evalContext(refs, scope, inst, cty.NilVal)
				t := config.ImportTarget{Addr: static, Range: idExpr.Range()}
				if keyExpr != nil {
					k, diags := keyExpr.Value(ctx)
					if diags.HasErrors() {
						return t, diags
					}
					if !k.IsWhollyKnown() || k.IsNull() || (k.Type() != cty.String && k.Type() != cty.Number) {
						return t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid import address",
							Detail: "The instance key of an import target must be a known string or number.", Subject: keyExpr.Range().Ptr()}}
					}
					t.Addr = static + addr.KeyString(k)
				}
				v, diags := idExpr.Value(ctx)
				if diags.HasErrors() {
					return t, diags
				}
				if !v.IsWhollyKnown() {
					return t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid import id argument",
						Detail: "The import block's id depends on values that cannot be determined until apply; it must be known when planning.", Subject: idExpr.Range().Ptr()}}
				}
				sv, err := convert.Convert(v, cty.String)
				if err != nil || sv.IsNull() || sv.AsString() == "" {
					return t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid import id argument",
						Detail: "The import block's id must be a non-empty string.", Subject: idExpr.Range().Ptr()}}
				}
				t.ID = sv.AsString()
				return t, nil
			}
			if forEach == nil {
				t, diags := one(config.NoInstance)
				return []config.ImportTarget{t}, diags
			}
			coll, diags := forEach.Expr.Value(m.evalContext(refs, scope, config.NoInstance, cty.NilVal))
			if diags.HasErrors() {
				return nil, diags
			}
			if !coll.IsWhollyKnown() || coll.IsNull() || !(coll.Type().IsMapType() || coll.Type().IsObjectType() || coll.Type().IsSetType() || coll.Type().IsTupleType() || coll.Type().IsListType()) {
				return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument",
					Detail: "An import block's for_each must be a known map, set or list.", Subject: forEach.Expr.Range().Ptr()}}
			}
			var out []config.ImportTarget
			for it := coll.ElementIterator(); it.Next(); {
				k, v := it.Element()
				if coll.Type().IsSetType() {
					k = v
				}
				t, d := one(config.Instance{Key: k, Each: v})
				diags = append(diags, d...)
				if !d.HasErrors() {
					out = append(out, t)
				}
			}
			return out, diags
		}
		l.cfg.Imports = append(l.cfg.Imports, imp)
	})
}

// importTarget splits an import's to expression into the resource's static
// address and the expression of its instance key, if any.
func importTarget(expr hcl.Expression) (string, hcl.Expression, bool) {
	if t, d := hcl.AbsTraversalForExpr(expr); !d.HasErrors() {
		if _, err := addr.FromTraversal(t); err != nil {
			return "", nil, false
		}
		if idx, ok := t[len(t)-1].(hcl.TraverseIndex); ok {
			return traversalSource(t[:len(t)-1]), &hclsyntax.LiteralValueExpr{Val: idx.Key, SrcRange: idx.SrcRange}, true
		}
		return traversalSource(t), nil, true
	}
	ie, ok := expr.(*hclsyntax.IndexExpr)
	if !ok {
		return "", nil, false
	}
	t, d := hcl.AbsTraversalForExpr(ie.Collection)
	if d.HasErrors() {
		return "", nil, false
	}
	return traversalSource(t), ie.Key, true
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
	l.pending = append(l.pending, func() {
		if n, ok := l.decls[r.From]; ok {
			l.errorf(a.Expr.Range(), "Removed object still declared", "%s is still declared at %s; remove its block, or remove this removed block.", r.From, rangeString(n.DeclRange))
			return
		}
		l.cfg.Removed = append(l.cfg.Removed, r)
	})
}
