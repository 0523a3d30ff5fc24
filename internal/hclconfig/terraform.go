package hclconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/synth"
)

// This file writes blocks back in Terraform's JSON syntax for synth
// (config.Node.Terraform). An expression keeps its own text inside an
// interpolation, "${...}", which means in JSON what it meant in the file;
// literals become JSON values and simple templates stay templates. Only
// the root module's references are whole addresses, so the blocks of a
// called module are refused: synth writes the call, a module block with
// the same source, and Terraform reads the module's own files.

// argKinds says how a block's arguments are written when they are not
// expressions.
type argKinds struct {
	// constant arguments take literal values, never templates
	// (a variable's default and description).
	constant map[string]bool
	// raw arguments keep their text as a string: a type constraint, a
	// provider reference.
	raw map[string]bool
	// lists are lists of references or names, each kept as text
	// (depends_on, ignore_changes).
	lists map[string]bool
	// tuples are lists of expressions, written as JSON arrays of them (a
	// dynamic block's labels, which Terraform reads only from an array).
	tuples map[string]bool
	// schema, when set, is the provider schema that reads the body (a
	// resource's, a provider's), for its attributes written as blocks.
	schema *provider.Block
	// dynamic is set for a dynamic block's body, whose content block
	// schema reads.
	dynamic bool
}

// withSchema is kinds for a body that schema reads.
func (k argKinds) withSchema(schema *provider.Block) argKinds {
	k.schema = schema
	return k
}

// resourceKinds is resourceArgs.withSchema(schema), made once per schema.
func (l *loader) resourceKinds(schema *provider.Block) *argKinds {
	if k, ok := l.kinds[schema]; ok {
		return k
	}
	if l.kinds == nil {
		l.kinds = map[*provider.Block]*argKinds{}
	}
	k := resourceArgs.withSchema(schema)
	l.kinds[schema] = &k
	return &k
}

// dynamicArgs are a dynamic block's: iterator is a name, written as its
// text, and labels an array.
var dynamicArgs = argKinds{raw: set("iterator"), tuples: set("labels"), dynamic: true}

var (
	resourceArgs = argKinds{raw: set("provider"), lists: set("depends_on", "ignore_changes", "replace_triggered_by")}
	variableArgs = argKinds{constant: set("default", "description", "sensitive", "nullable", "ephemeral"), raw: set("type")}
	outputArgs   = argKinds{constant: set("description", "sensitive", "ephemeral"), lists: set("depends_on")}
	moduleArgs   = argKinds{constant: set("version"), lists: set("depends_on")}
	plainArgs    = argKinds{}
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// terraformBlock sets a node's Terraform form to its block's body. kinds
// is shared, not copied: every resource keeps its Terraform form for the
// whole run (see loader.resourceKinds).
func (m *module) terraformBlock(n *config.Node, body hcl.Body, kinds *argKinds) {
	m.setTerraform(n, nil, body, kinds)
}

// setTerraform is terraformBlock's, in t when t is given (a resource's,
// made with its node: see resourceNode).
func (m *module) setTerraform(n *config.Node, t *blockTerraform, body hcl.Body, kinds *argKinds) {
	if m.path != "" {
		n.Terraform = m.refuseModule(n)
		return
	}
	if t == nil {
		t = new(blockTerraform)
	}
	*t = blockTerraform{n: n, body: body, kinds: kinds, src: m.l.cfg.Sources}
	n.Terraform = t
}

// blockTerraform writes a block's body in Terraform's JSON syntax
// (config.Terraformer).
type blockTerraform struct {
	n     *config.Node
	body  hcl.Body
	kinds *argKinds
	src   map[string][]byte
}

func (t *blockTerraform) TerraformJSON() (any, hcl.Diagnostics) {
	sb, ok := t.body.(*hclsyntax.Body)
	if h, held := t.body.(*heldBody); held {
		var diags hcl.Diagnostics
		if sb, diags = h.syntax(); sb == nil {
			return nil, diags
		}
		ok = true
	}
	if !ok {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot synthesise JSON syntax",
			Detail:   fmt.Sprintf("%s is written in Terraform's JSON syntax already; synth writes configurations of *.tf files.", t.n.Addr),
			Subject:  t.n.DeclRange.Ptr(),
		}}
	}
	return bodyJSON(sb, *t.kinds, t.src)
}

// terraformExpr sets a local's Terraform form to its expression.
func (m *module) terraformExpr(n *config.Node, expr hcl.Expression) {
	if m.path != "" {
		n.Terraform = m.refuseModule(n)
		return
	}
	src := m.l.cfg.Sources
	n.Terraform = config.TerraformFunc(func() (any, hcl.Diagnostics) {
		se, ok := expr.(hclsyntax.Expression)
		if !ok {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot synthesise JSON syntax", Detail: fmt.Sprintf("%s is written in Terraform's JSON syntax already; synth writes configurations of *.tf files.", n.Addr), Subject: n.DeclRange.Ptr()}}
		}
		return exprJSON(se, src), nil
	})
}

// terraformCall sets the Terraform form of a root module's module block:
// the block as written, so that Terraform fetches the same module, but
// for a local source, given as the absolute path of its folder dir for
// synth to write relative to where it writes (see config.Node.Terraform),
// and providers, a map of references Terraform's JSON syntax writes as
// strings.
func (m *module) terraformCall(n *config.Node, b *hcl.Block, dir string) config.TerraformFunc {
	src := m.l.cfg.Sources
	return func() (any, hcl.Diagnostics) {
		sb, ok := b.Body.(*hclsyntax.Body)
		if !ok {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot synthesise JSON syntax", Detail: fmt.Sprintf("%s is written in Terraform's JSON syntax already; synth writes configurations of *.tf files.", n.Addr), Subject: n.DeclRange.Ptr()}}
		}
		if a, ok := sb.Attributes["source"]; ok {
			if v, d := a.Expr.Value(nil); d.HasErrors() || v.Type() != cty.String || v.IsNull() {
				return nil, hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Cannot synthesise a module call",
					Detail:   fmt.Sprintf("The source of %s is the expression %s, which Tether evaluates when it installs the module; Terraform takes only a literal source. Write the source out to synthesise the call.", n.Addr, text(a.Expr.Range(), src)),
					Subject:  a.Expr.Range().Ptr(),
				}}
			}
		}
		body, diags := bodyJSON(sb, moduleArgs, src)
		if s, ok := body["source"].(string); ok && isLocalSource(s) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot synthesise a module call", Detail: fmt.Sprintf("The folder of %s cannot be found: %v.", n.Addr, err), Subject: n.DeclRange.Ptr()})
			}
			body["source"] = abs
		}
		if a, ok := sb.Attributes["providers"]; ok {
			obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
			if !ok {
				return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot synthesise a module call", Detail: fmt.Sprintf("The providers of %s are not written as an object, { local = provider.alias }.", n.Addr), Subject: a.Expr.Range().Ptr()})
			}
			providers := map[string]any{}
			for _, item := range obj.Items {
				providers[strings.Trim(text(item.KeyExpr.Range(), src), `"`)] = text(item.ValueExpr.Range(), src)
			}
			body["providers"] = providers
		}
		return body, diags
	}
}

// refuseModule is the Terraform form of what a module of *.tf files
// declares: not written yet, as its references are relative to it.
func (m *module) refuseModule(n *config.Node) config.TerraformFunc {
	return func() (any, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot synthesise a module call",
			Detail:   fmt.Sprintf("%s is a module of *.tf files or is declared in one; synth does not write those yet, only the root module's blocks (and a Go program's components).", n.Addr),
			Subject:  n.DeclRange.Ptr(),
		}}
	}
}

func bodyJSON(body *hclsyntax.Body, kinds argKinds, src map[string][]byte) (map[string]any, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	out := map[string]any{}
	for name, a := range body.Attributes {
		switch {
		case kinds.constant[name]:
			v, d := a.Expr.Value(nil)
			diags = append(diags, d...)
			if !d.HasErrors() {
				out[name] = synth.JSON(v, false)
			}
		case kinds.raw[name]:
			out[name] = text(a.Expr.Range(), src)
		case kinds.tuples[name]:
			tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr)
			if !ok {
				out[name] = exprJSON(a.Expr, src)
				continue
			}
			items := []any{}
			for _, e := range tuple.Exprs {
				items = append(items, exprJSON(e, src))
			}
			out[name] = items
		case kinds.lists[name]:
			tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr)
			if !ok {
				// ignore_changes = all
				out[name] = text(a.Expr.Range(), src)
				continue
			}
			items := []any{}
			for _, e := range tuple.Exprs {
				items = append(items, text(e.Range(), src))
			}
			out[name] = items
		default:
			out[name] = exprJSON(a.Expr, src)
		}
	}
	for _, b := range body.Blocks {
		inner := plainArgs
		switch {
		case b.Type == "lifecycle":
			if a, ok := b.Body.Attributes["enabled"]; ok {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Cannot synthesise lifecycle enabled",
					Detail:   "enabled is OpenTofu's, and Terraform has no such argument. Write count = CONDITION ? 1 : 0 instead to synthesise the block; its object is then addressed with [0].",
					Subject:  a.NameRange.Ptr(),
				})
				continue
			}
			inner = resourceArgs
		case b.Type == "dynamic" && len(b.Labels) == 1:
			nested, _ := schemabody.BlocksOf(kinds.schema, b.Labels[0])
			inner = dynamicArgs.withSchema(nested)
		case kinds.schema == nil:
		case schemabody.Names(kinds.schema)[b.Type]:
			// Terraform's JSON syntax reads a list under an attribute's
			// name as the attribute form, whose objects must have every
			// attribute; what reads as blocks there is a dynamic block.
			nested, _ := schemabody.BlocksOf(kinds.schema, b.Type)
			bj, d := bodyJSON(b.Body, plainArgs.withSchema(nested), src)
			diags = append(diags, d...)
			addBlock(out, "dynamic", []string{b.Type}, map[string]any{"for_each": []any{0}, "content": []any{bj}})
			continue
		default:
			nested, _ := schemabody.BlocksOf(kinds.schema, b.Type)
			inner = plainArgs.withSchema(nested)
		}
		if kinds.dynamic && b.Type == "content" {
			inner = plainArgs.withSchema(kinds.schema)
		}
		bj, d := bodyJSON(b.Body, inner, src)
		diags = append(diags, d...)
		addBlock(out, b.Type, b.Labels, bj)
	}
	return out, diags
}

// addBlock adds a nested block under its type and labels, the blocks of
// one type and labels in a list, as Terraform's JSON syntax allows.
func addBlock(out map[string]any, typ string, labels []string, body map[string]any) {
	keys := append([]string{typ}, labels...)
	for _, k := range keys[:len(keys)-1] {
		next, _ := out[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			out[k] = next
		}
		out = next
	}
	last := keys[len(keys)-1]
	list, _ := out[last].([]any)
	out[last] = append(list, body)
}

// exprJSON writes an expression: a literal as a JSON value, a template of
// literals and interpolations as a template, anything else as one
// interpolation of its own text.
func exprJSON(expr hclsyntax.Expression, src map[string][]byte) any {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return synth.JSON(e.Val, true)
	case *hclsyntax.TemplateWrapExpr:
		return "${" + text(e.Wrapped.Range(), src) + "}"
	case *hclsyntax.TemplateExpr:
		whole := text(e.SrcRange, src)
		if strings.HasPrefix(whole, "\"") && !strings.Contains(whole, "%{") {
			var b strings.Builder
			for _, p := range e.Parts {
				if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String {
					b.WriteString(synth.Escape(lit.Val.AsString()))
					continue
				}
				b.WriteString("${" + text(p.Range(), src) + "}")
			}
			return b.String()
		}
	}
	t := text(expr.Range(), src)
	if strings.Contains(t, "<<") {
		// A heredoc's closing marker ends its line.
		return "${" + t + "\n}"
	}
	return "${" + t + "}"
}

func text(r hcl.Range, src map[string][]byte) string {
	b := src[r.Filename]
	if r.End.Byte > len(b) || r.Start.Byte > r.End.Byte {
		return ""
	}
	return string(b[r.Start.Byte:r.End.Byte])
}
