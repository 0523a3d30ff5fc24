package hclconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
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
