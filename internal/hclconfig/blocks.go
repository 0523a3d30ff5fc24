package hclconfig

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

var resourceMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "count"},
		{Name: "for_each"},
		{Name: "provider"},
		{Name: "depends_on"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "lifecycle"},
		{Type: "provisioner", LabelNames: []string{"type"}},
		{Type: "connection"},
	},
}

var lifecycleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "create_before_destroy"},
		{Name: "prevent_destroy"},
		{Name: "ignore_changes"},
		{Name: "replace_triggered_by"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}, {Type: "postcondition"}},
}

func (l *loader) resource(b *hcl.Block, kind config.Kind) {
	typ, name := b.Labels[0], b.Labels[1]
	addr := typ + "." + name
	if kind == config.DataSource {
		addr = "data." + addr
	}
	if !hclsyntaxValidName(name) {
		l.errorf(b.LabelRanges[1], "Invalid resource name", "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.")
		return
	}
	n := &config.Node{Kind: kind, Addr: addr, Type: typ, Name: name, DeclRange: b.DefRange}
	if !l.declare(n) {
		return
	}
	meta, remain, d := b.Body.PartialContent(resourceMetaSchema)
	l.diags = append(l.diags, d...)

	n.Provider = impliedProvider(typ)
	if a, ok := meta.Attributes["provider"]; ok {
		t, d := hcl.AbsTraversalForExpr(a.Expr)
		if d.HasErrors() || len(t) != 1 {
			l.errorf(a.Expr.Range(), "Invalid provider reference", "The provider argument takes a provider's local name, such as `provider = tether`, without quotes.")
		} else {
			n.Provider = t.RootName()
		}
	}
	for _, name := range []string{"count", "for_each"} {
		if a, ok := meta.Attributes[name]; ok {
			l.errorf(a.NameRange, fmt.Sprintf("%q is not supported yet", name), "Repeating resources with %s is not available in this version of Tether; declare each instance as its own resource for now.", name)
		}
	}
	for _, blk := range meta.Blocks {
		switch blk.Type {
		case "provisioner", "connection":
			l.errorf(blk.DefRange, fmt.Sprintf("%s blocks are not supported", blk.Type),
				"Tether does not run provisioners; model the work as a resource (for example a tether_value with depends_on) instead.")
		case "lifecycle":
			l.lifecycle(n, blk)
		}
	}
	if a, ok := meta.Attributes["depends_on"]; ok {
		n.DependsOn = l.dependsOn(a)
	}

	schema := l.resourceSchema(n, b)
	if schema == nil {
		return
	}
	spec := l.spec(n, schema.Block)
	l.checkBody(remain, spec, schema.Block)
	traversals := hcldec.Variables(remain, spec)
	l.pending = append(l.pending, func() {
		refs := l.resolve(n, traversals)
		n.Eval = func(scope config.Scope) (cty.Value, hcl.Diagnostics) {
			return hcldec.Decode(remain, spec, l.evalContext(refs, scope))
		}
	})
}

// impliedProvider is Terraform's rule: a resource type belongs to the
// provider named by its prefix up to the first underscore.
func impliedProvider(typ string) string {
	if i := strings.IndexByte(typ, '_'); i > 0 {
		return typ[:i]
	}
	return typ
}

func (l *loader) resourceSchema(n *config.Node, b *hcl.Block) *provider.ResourceSchema {
	ps, ok := l.opts.Schemas[n.Provider]
	if !ok {
		l.errorf(b.LabelRanges[0], "Unknown provider", "The %s type %q belongs to provider %q, which Tether does not have. Available providers: %s.",
			n.Kind, n.Type, n.Provider, strings.Join(l.providerNames(), ", "))
		return nil
	}
	if _, seen := l.providerUses[n.Provider]; !seen {
		l.providerUses[n.Provider] = b.DefRange
	}
	types := ps.Resources
	if n.Kind == config.DataSource {
		types = ps.DataSources
	}
	rs, ok := types[n.Type]
	if !ok {
		var names []string
		for t := range types {
			names = append(names, t)
		}
		l.errorf(b.LabelRanges[0], fmt.Sprintf("Unknown %s type %q", n.Kind, n.Type),
			"Provider %q has no %s type %q.%s", n.Provider, n.Kind, n.Type, didYouMean(n.Type, names))
		return nil
	}
	return rs
}

func (l *loader) spec(n *config.Node, b *provider.Block) hcldec.Spec {
	key := n.Provider + "/" + n.Kind.String() + "/" + n.Type
	if s, ok := l.specs[key]; ok {
		return s
	}
	s := decoderSpec(b)
	l.specs[key] = s
	return s
}

// checkBody finds what can be found without values: unknown and missing
// arguments, and arguments that only the provider may set.
func (l *loader) checkBody(body hcl.Body, spec hcldec.Spec, block *provider.Block) {
	content, d := body.Content(hcldec.ImpliedSchema(spec))
	for _, diag := range d {
		if diag.Summary == "Unsupported argument" || diag.Summary == "Unsupported block type" {
			diag.Detail += suggestFromSchema(diag, block)
		}
	}
	l.diags = append(l.diags, d...)
	if content == nil {
		return
	}
	co := computedOnly(block)
	for name, a := range content.Attributes {
		if co[name] {
			l.errorf(a.NameRange, fmt.Sprintf("Value for unconfigurable attribute %q", name),
				"%q is computed by the provider after apply; remove it from the configuration.", name)
		}
	}
}

func suggestFromSchema(diag *hcl.Diagnostic, block *provider.Block) string {
	// HCL's message quotes the offending name: An argument named "x" ...
	parts := strings.Split(diag.Detail, `"`)
	if len(parts) < 2 {
		return ""
	}
	names := append(block.AttributeNames(), block.BlockTypeNames()...)
	return didYouMean(parts[1], names)
}

func (l *loader) lifecycle(n *config.Node, b *hcl.Block) {
	content, d := b.Body.Content(lifecycleSchema)
	l.diags = append(l.diags, d...)
	boolAttr := func(name string, dst *bool) {
		a, ok := content.Attributes[name]
		if !ok {
			return
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.Bool || v.IsNull() {
			l.errorf(a.Expr.Range(), fmt.Sprintf("Invalid %s", name), "%s must be true or false, written literally.", name)
			return
		}
		*dst = v.True()
	}
	boolAttr("create_before_destroy", &n.Lifecycle.CreateBeforeDestroy)
	boolAttr("prevent_destroy", &n.Lifecycle.PreventDestroy)
	for _, name := range []string{"ignore_changes", "replace_triggered_by"} {
		if a, ok := content.Attributes[name]; ok {
			l.errorf(a.NameRange, fmt.Sprintf("%q is not supported yet", name), "This lifecycle setting is not available in this version of Tether.")
		}
	}
	for _, blk := range content.Blocks {
		l.errorf(blk.DefRange, fmt.Sprintf("%s blocks are not supported yet", blk.Type), "Conditions are not available in this version of Tether.")
	}
}

func (l *loader) dependsOn(a *hcl.Attribute) []config.Ref {
	exprs, d := hcl.ExprList(a.Expr)
	l.diags = append(l.diags, d...)
	var out []config.Ref
	for _, e := range exprs {
		t, d := hcl.AbsTraversalForExpr(e)
		if d.HasErrors() {
			l.errorf(e.Range(), "Invalid depends_on reference", "depends_on takes references to resources or data sources, such as tether_file.a, without quotes.")
			continue
		}
		addr, whole := traversalAddr(t)
		if addr == "" || strings.HasPrefix(addr, "var.") || strings.HasPrefix(addr, "local.") || !whole {
			l.errorf(e.Range(), "Invalid depends_on reference", "depends_on takes whole resources or data sources, such as tether_file.a; %s is not one.", traversalString(t))
			continue
		}
		out = append(out, config.Ref{Addr: addr, Range: e.Range()})
	}
	return out
}

func (l *loader) provider(b *hcl.Block) {
	name := b.Labels[0]
	n := &config.Node{Kind: config.Provider, Addr: "provider." + name, Name: name, Provider: name, DeclRange: b.DefRange}
	ps, ok := l.opts.Schemas[name]
	if !ok {
		l.errorf(b.LabelRanges[0], "Unknown provider", "Tether has no provider named %q. Available providers: %s.", name, strings.Join(l.providerNames(), ", "))
		return
	}
	if !l.declare(n) {
		return
	}
	meta, remain, d := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}, {Name: "version"}}})
	l.diags = append(l.diags, d...)
	if a, ok := meta.Attributes["alias"]; ok {
		l.errorf(a.NameRange, "Provider aliases are not supported yet", "Declare one configuration per provider.")
	}
	spec := decoderSpec(ps.Provider)
	l.checkBody(remain, spec, orEmpty(ps.Provider))
	traversals := hcldec.Variables(remain, spec)
	l.pending = append(l.pending, func() {
		refs := l.resolve(n, traversals)
		n.Eval = func(scope config.Scope) (cty.Value, hcl.Diagnostics) {
			return hcldec.Decode(remain, spec, l.evalContext(refs, scope))
		}
	})
}

func orEmpty(b *provider.Block) *provider.Block {
	if b == nil {
		return &provider.Block{}
	}
	return b
}

// implicitProviders declares a provider node, with an empty configuration,
// for each provider used without a provider block, as Terraform does.
func (l *loader) implicitProviders() {
	for name, rng := range l.providerUses {
		if _, ok := l.decls["provider."+name]; ok {
			continue
		}
		ps := l.opts.Schemas[name]
		spec := decoderSpec(ps.Provider)
		n := &config.Node{Kind: config.Provider, Addr: "provider." + name, Name: name, Provider: name, DeclRange: rng}
		n.Eval = func(config.Scope) (cty.Value, hcl.Diagnostics) {
			return hcldec.Decode(hcl.EmptyBody(), spec, nil)
		}
		l.declare(n)
	}
}

func (l *loader) locals(b *hcl.Block) {
	attrs, d := b.Body.JustAttributes()
	l.diags = append(l.diags, d...)
	for _, a := range sortedAttrs(attrs) {
		a := a
		n := &config.Node{Kind: config.Local, Addr: "local." + a.Name, Name: a.Name, DeclRange: a.NameRange}
		if !l.declare(n) {
			continue
		}
		l.expression(n, a.Expr)
	}
}

// expression sets a node's value to that of one expression.
func (l *loader) expression(n *config.Node, expr hcl.Expression) {
	traversals := expr.Variables()
	l.pending = append(l.pending, func() {
		refs := l.resolve(n, traversals)
		n.Eval = func(scope config.Scope) (cty.Value, hcl.Diagnostics) {
			return expr.Value(l.evalContext(refs, scope))
		}
	})
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "value", Required: true},
		{Name: "description"},
		{Name: "sensitive"},
		{Name: "depends_on"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}},
}

func (l *loader) output(b *hcl.Block) {
	name := b.Labels[0]
	n := &config.Node{Kind: config.Output, Addr: "output." + name, Name: name, DeclRange: b.DefRange}
	if !l.declare(n) {
		return
	}
	content, d := b.Body.Content(outputSchema)
	l.diags = append(l.diags, d...)
	if a, ok := content.Attributes["sensitive"]; ok {
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.Bool || v.IsNull() {
			l.errorf(a.Expr.Range(), "Invalid sensitive", "sensitive must be true or false, written literally.")
		} else {
			n.Sensitive = v.True()
		}
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		n.DependsOn = l.dependsOn(a)
	}
	for _, blk := range content.Blocks {
		l.errorf(blk.DefRange, "precondition blocks are not supported yet", "Conditions are not available in this version of Tether.")
	}
	if a, ok := content.Attributes["value"]; ok {
		l.expression(n, a.Expr)
	}
}
