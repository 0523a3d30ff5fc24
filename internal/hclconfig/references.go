package hclconfig

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/refs"
)

// referenceBody is a resource body whose arguments may be references: an
// argument that evaluates to a reference gets the reference's placeholder
// instead, which hcldec can check against the argument's type and the
// engine resolves right before the provider call.
type referenceBody struct{ hcl.Body }

// Unknown passes on that the body stands for the blocks of a dynamic
// block whose for_each is unknown: hcldec then makes their value unknown
// as a whole, as Terraform does.
func (b referenceBody) Unknown() bool {
	u, ok := b.Body.(hcldec.UnknownBody)
	return ok && u.Unknown()
}

func (b referenceBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, d := b.Body.Content(s)
	return wrapContent(c), d
}

func (b referenceBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, rest, d := b.Body.PartialContent(s)
	return wrapContent(c), referenceBody{rest}, d
}

func (b referenceBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs, d := b.Body.JustAttributes()
	return wrapAttributes(attrs), d
}

func wrapContent(c *hcl.BodyContent) *hcl.BodyContent {
	if c == nil {
		return nil
	}
	out := *c
	out.Attributes = wrapAttributes(c.Attributes)
	out.Blocks = make(hcl.Blocks, len(c.Blocks))
	for i, b := range c.Blocks {
		nb := *b
		nb.Body = referenceBody{b.Body}
		out.Blocks[i] = &nb
	}
	return &out
}

func wrapAttributes(attrs hcl.Attributes) hcl.Attributes {
	if attrs == nil {
		return nil
	}
	out := make(hcl.Attributes, len(attrs))
	for name, a := range attrs {
		na := *a
		na.Expr = referenceExpr{a.Expr}
		out[name] = &na
	}
	return out
}

// argsBody is referenceBody for a native-syntax body of arguments only,
// as parsed (no nested block, and nothing hidden by a PartialContent),
// decoded by a spec that names every argument it sets. Its Content gives
// what referenceBody's would without hclsyntax's maps of hidden, wanted
// and extraneous items and without wrapping a copy of the content: hcldec
// reads every such resource body, nearly all of them, once per
// evaluation. Anything else (a missing required argument, one the schema
// does not name) is left to referenceBody, for hclsyntax's diagnostics.
type argsBody struct{ *hclsyntax.Body }

func (b argsBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	attrs := make(hcl.Attributes, len(b.Attributes))
	for _, as := range s.Attributes {
		a, ok := b.Attributes[as.Name]
		if !ok {
			if as.Required {
				return referenceBody{b.Body}.Content(s)
			}
			continue
		}
		ha := a.AsHCLAttribute()
		ha.Expr = referenceExpr{ha.Expr}
		attrs[as.Name] = ha
	}
	if len(attrs) < len(b.Attributes) {
		return referenceBody{b.Body}.Content(s)
	}
	return &hcl.BodyContent{Attributes: attrs, MissingItemRange: b.MissingItemRange()}, nil
}

func (b argsBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	return referenceBody{b.Body}.PartialContent(s)
}

func (b argsBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	return referenceBody{b.Body}.JustAttributes()
}

// argsVariables are the references of an argument-only body's
// expressions (see argsBody), as hcldec.Variables finds them, in the order
// the arguments are written.
func argsVariables(b *hclsyntax.Body) []hcl.Traversal {
	var attrs []*hclsyntax.Attribute // none for a body of literals
	for _, a := range b.Attributes {
		if !literal(a.Expr) {
			attrs = append(attrs, a)
		}
	}
	if len(attrs) == 0 {
		return nil
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	var vars []hcl.Traversal
	for _, a := range attrs {
		vars = append(vars, a.Expr.Variables()...)
	}
	return vars
}

// literal reports whether e is a literal value or a template of literal
// text only ("v1"), which refers to nothing: hclsyntax finds that out by
// walking the expression, which costs more than the rest of reading a
// resource's references.
func literal(e hclsyntax.Expression) bool {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return true
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
				return false
			}
		}
		return true
	}
	return false
}

type referenceExpr struct{ hcl.Expression }

func (e referenceExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := e.Expression.Value(ctx)
	explainReferenceArguments(diags)
	if diags.HasErrors() {
		return v, diags
	}
	return placeholders(v, e.Range(), diags)
}

func placeholders(v cty.Value, rng hcl.Range, diags hcl.Diagnostics) (cty.Value, hcl.Diagnostics) {
	out, err := refs.Placeholders(v)
	if err != nil {
		return cty.DynamicVal, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid use of a reference",
			Detail:   fmt.Sprintf("This expression uses a reference in an operation. %s.", capitalize(err.Error())),
			Subject:  rng.Ptr(),
		})
	}
	return out, diags
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// explainReferenceArguments adds to the message of a function that was
// given a reference it does not accept how references are meant to be
// passed, since "string required" alone does not say why.
func explainReferenceArguments(diags hcl.Diagnostics) {
	for _, d := range diags {
		if d.Expression == nil || d.EvalContext == nil {
			continue
		}
		if d.Summary != "Invalid function argument" && d.Summary != "Invalid template interpolation value" && d.Summary != "Invalid operand" {
			continue
		}
		v, vd := d.Expression.Value(d.EvalContext)
		if vd.HasErrors() {
			continue
		}
		r, ok := firstReference(v)
		if !ok {
			continue
		}
		was := d.Summary
		d.Summary = "Invalid use of a reference"
		switch {
		case was == "Invalid function argument":
			d.Detail = fmt.Sprintf("%s is a reference: its value is resolved only by the provider call that needs it, so it cannot be passed to a function that does not declare reference support. Pass it whole to a resource argument instead. (A Go function declares support by taking tether.Reference[T] parameters; in HCL only the *_reference functions accept references.)", r.Description())
		default:
			d.Detail = fmt.Sprintf("%s is a reference: its value is resolved only by the provider call that needs it, so it cannot be interpolated, concatenated, compared or used in arithmetic. Pass it whole to a resource argument instead.", r.Description())
		}
	}
}

// checkDerived refuses a value that an operation derived from a reference,
// where a value is computed outside resource arguments (locals, outputs).
func checkDerived(v cty.Value, rng hcl.Range, diags hcl.Diagnostics) (cty.Value, hcl.Diagnostics) {
	explainReferenceArguments(diags)
	if diags.HasErrors() || !refs.Derived(v) {
		return v, diags
	}
	return cty.DynamicVal, append(diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid use of a reference",
		Detail:   "This expression uses a reference in an operation (interpolation, concatenation, comparison, arithmetic or a function that does not accept references). A reference can only be passed on whole, to a resource argument or another reference.",
		Subject:  rng.Ptr(),
	})
}

// firstReference finds a reference in v, at any depth.
func firstReference(v cty.Value) (*refs.Ref, bool) {
	var found *refs.Ref
	cty.Walk(v, func(_ cty.Path, leaf cty.Value) (bool, error) {
		if r, ok := refs.FromValue(leaf); ok && found == nil {
			found = r
		}
		return found == nil, nil
	})
	return found, found != nil
}
