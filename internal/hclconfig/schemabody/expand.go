package schemabody

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// Expand expands body's dynamic blocks, at every depth, with ext/dynblock
// as Terraform does, and one rule more. A dynamic block whose for_each is
// unknown generates one placeholder block whose body is unknown, and
// hcldec makes the nested blocks of that type unknown as a whole. Beyond
// Terraform, a collection whose number of elements is unknown (a set with
// unknown elements, which may turn out equal) counts as unknown when it
// generates nested blocks of b's block types: Terraform plans a block per
// element there, which apply may contradict. And the labels of a
// placeholder block, unknown as its iterator is, are no error: its
// blocks are unknown as a whole. Blocks of attributes written as blocks
// (see Fixup) are expanded exactly as Terraform expands them.
func Expand(body hcl.Body, b *provider.Block, ctx *hcl.EvalContext) hcl.Body {
	return dynblock.Expand(lengthBody{Body: body, block: b}, ctx)
}

// lengthBody gives the dynamic blocks of a body, and of its nested
// blocks' bodies, the for_each and labels rules of Expand.
type lengthBody struct {
	hcl.Body
	block *provider.Block
}

func (b lengthBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, d := b.Body.Content(s)
	return b.wrap(c), d
}

func (b lengthBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, rest, d := b.Body.PartialContent(s)
	return b.wrap(c), lengthBody{Body: rest, block: b.block}, d
}

func (b lengthBody) wrap(c *hcl.BodyContent) *hcl.BodyContent {
	if c == nil || len(c.Blocks) == 0 {
		return c
	}
	out := *c
	out.Blocks = make(hcl.Blocks, len(c.Blocks))
	for i, blk := range c.Blocks {
		nb := *blk
		if blk.Type == "dynamic" && len(blk.Labels) == 1 {
			nested, isBlock := b.nested(blk.Labels[0])
			nb.Body = dynamicBody{Body: blk.Body, block: nested, isBlock: isBlock}
		} else if nested, _ := b.nested(blk.Type); nested != nil {
			nb.Body = lengthBody{Body: blk.Body, block: nested}
		}
		out.Blocks[i] = &nb
	}
	return &out
}

func (b lengthBody) nested(typ string) (*provider.Block, bool) {
	return BlocksOf(b.block, typ)
}

// BlocksOf is the schema that blocks of type typ in a body of b are read
// by, and whether they are nested blocks of the schema rather than the
// blocks of an attribute (see Fixup); nil when b has neither.
func BlocksOf(b *provider.Block, typ string) (*provider.Block, bool) {
	if b == nil {
		return nil, false
	}
	if nb, ok := b.BlockTypes[typ]; ok {
		return &nb.Block, true
	}
	if a, ok := b.Attributes[typ]; ok && objectCollection(a.Type) {
		return elementBlock(a.Type.ElementType()), false
	}
	return nil, false
}

// dynamicBody is the body of a dynamic block: its for_each and labels
// follow Expand's rules when it generates nested blocks, and its content
// is read by the generated blocks' schema.
type dynamicBody struct {
	hcl.Body
	block   *provider.Block
	isBlock bool
}

func (b dynamicBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, d := b.Body.Content(s)
	if c == nil {
		return nil, d
	}
	out := *c
	if b.isBlock {
		unknown := new(bool)
		out.Attributes = make(hcl.Attributes, len(c.Attributes))
		for name, a := range c.Attributes {
			na := *a
			switch name {
			case "for_each":
				na.Expr = forEachExpr{Expression: a.Expr, unknown: unknown}
			case "labels":
				// Only a static list is valid; dynblock reports any other.
				if _, ld := hcl.ExprList(a.Expr); !ld.HasErrors() {
					na.Expr = labelsExpr{Expression: a.Expr, unknown: unknown}
				}
			}
			out.Attributes[name] = &na
		}
	}
	out.Blocks = make(hcl.Blocks, len(c.Blocks))
	for i, blk := range c.Blocks {
		nb := *blk
		nb.Body = lengthBody{Body: blk.Body, block: b.block}
		out.Blocks[i] = &nb
	}
	return &out, d
}

func (b dynamicBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	// dynblock reads a dynamic block's body whole; this is for others.
	return b.Body.PartialContent(s)
}

// forEachExpr is a dynamic block's for_each: a collection whose number of
// elements is unknown is unknown. unknown records that the value was
// unknown, for the block's labels.
type forEachExpr struct {
	hcl.Expression
	unknown *bool
}

func (e forEachExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, d := e.Expression.Value(ctx)
	if d.HasErrors() {
		return v, d
	}
	raw, marks := v.Unmark()
	switch {
	case !raw.IsKnown():
		*e.unknown = true
	case !raw.IsNull() && raw.CanIterateElements() && !raw.Length().IsKnown():
		*e.unknown = true
		return cty.UnknownVal(raw.Type()).WithMarks(marks), d
	}
	return v, d
}

// labelsExpr is a dynamic block's labels: each label is its expression's,
// but where the for_each is unknown, when the generated blocks are unknown
// as a whole, an unknown label stands for any.
type labelsExpr struct {
	hcl.Expression
	unknown *bool
}

// ExprList is how dynblock reads labels (hcl.ExprList).
func (e labelsExpr) ExprList() []hcl.Expression {
	exprs, _ := hcl.ExprList(e.Expression)
	if exprs == nil {
		return nil // hcl.ExprList's error, as without the wrapper
	}
	out := make([]hcl.Expression, len(exprs))
	for i, x := range exprs {
		out[i] = labelExpr{Expression: x, unknown: e.unknown}
	}
	return out
}

type labelExpr struct {
	hcl.Expression
	unknown *bool
}

func (e labelExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, d := e.Expression.Value(ctx)
	if !d.HasErrors() && *e.unknown && !v.IsKnown() {
		return cty.StringVal(""), d
	}
	return v, d
}
