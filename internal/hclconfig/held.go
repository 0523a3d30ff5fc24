package hclconfig

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/ctysame"
)

// heldBody is what a resource body of arguments only keeps for the whole
// run once it is loaded, in place of hclsyntax's tree: each argument's name,
// its ranges, and its expression, a literal one (nearly all in a generated
// configuration) as its value. hclsyntax's Body with its attribute map,
// each Attribute with three ranges and a literal's template are about 900
// bytes a resource, held because every instance is evaluated from them; a
// heldBody is about a quarter of that.
//
// It reads as the body it was made from (hcl.Body): what only an unusual
// reader asks (a schema the body does not satisfy, which hclsyntax reports
// on; synth's walk of the syntax) gets the body parsed again from the
// file's text at its own position, which gives the same tree with the same
// ranges (see parseChunked).
type heldBody struct {
	file  *heldFile
	attrs []heldAttr // in the order written
	block pos32      // where the block starts, its type's first byte
	body  span       // the body, braces included (hclsyntax's SrcRange)
	// hide is the schema of a PartialContent that this body is the rest
	// of: a body parsed again hides what it names, as hclsyntax's
	// remainder does.
	hide *hcl.BodySchema
}

// heldFile is a configuration file's name and text, shared by the bodies
// held from it.
type heldFile struct {
	name string
	src  []byte
}

type heldAttr struct {
	name      string
	nameRange span
	srcRange  span
	expr      hcl.Expression // &lit, or the expression as parsed
	// lit is the expression when it is literal (lit.file is set): held
	// with the argument, not made apart.
	lit heldLiteral
}

// pos32 is an hcl.Pos in a file a heldBody knows; span an hcl.Range there.
type pos32 struct{ line, column, byte int32 }

type span struct{ start, end pos32 }

func toPos32(p hcl.Pos) pos32 {
	return pos32{int32(p.Line), int32(p.Column), int32(p.Byte)}
}

func (p pos32) pos() hcl.Pos {
	return hcl.Pos{Line: int(p.line), Column: int(p.column), Byte: int(p.byte)}
}

func toSpan(r hcl.Range) span { return span{toPos32(r.Start), toPos32(r.End)} }

func (f *heldFile) rng(s span) hcl.Range {
	return hcl.Range{Filename: f.name, Start: s.start.pos(), End: s.end.pos()}
}

// heldLiteral is a literal expression (see literal) as its value: it
// refers to nothing and evaluates to the same value in every context.
type heldLiteral struct {
	file       *heldFile
	val        cty.Value
	rng, start span
}

func (e *heldLiteral) Value(*hcl.EvalContext) (cty.Value, hcl.Diagnostics) { return e.val, nil }
func (e *heldLiteral) Variables() []hcl.Traversal                          { return nil }
func (e *heldLiteral) Range() hcl.Range                                    { return e.file.rng(e.rng) }
func (e *heldLiteral) StartRange() hcl.Range                               { return e.file.rng(e.start) }

// heldOne is a heldBody of one argument, with room for it.
type heldOne struct {
	h heldBody
	a [1]heldAttr
}

// holdBody is sb, the body of block b, as a heldBody, or nil when it cannot
// be held: a body with nested blocks or one whose text is not the file's
// known to the loader. A body of one argument is held in one, when given.
func (l *loader) holdBody(b *hcl.Block, sb *hclsyntax.Body, one *heldOne) *heldBody {
	if len(sb.Blocks) > 0 {
		return nil
	}
	f := l.heldFiles[sb.SrcRange.Filename]
	if f == nil {
		src, ok := l.cfg.Sources[sb.SrcRange.Filename]
		if !ok || len(src) >= 1<<31-1 {
			return nil
		}
		f = &heldFile{name: sb.SrcRange.Filename, src: src}
		if l.heldFiles == nil {
			l.heldFiles = map[string]*heldFile{}
		}
		l.heldFiles[f.name] = f
	}
	start, end := b.TypeRange.Start.Byte, sb.SrcRange.End.Byte
	if b.TypeRange.Filename != f.name || start < 0 || start > end || end > len(f.src) {
		return nil
	}
	var h *heldBody
	if len(sb.Attributes) == 1 && one != nil {
		// Most bodies of a large configuration: the body and its
		// argument made at once, with the node.
		h = &one.h
		h.attrs = one.a[:0]
	} else {
		h = &heldBody{attrs: make([]heldAttr, 0, len(sb.Attributes))}
	}
	h.file, h.block, h.body = f, toPos32(b.TypeRange.Start), toSpan(sb.SrcRange)
	for name, a := range sb.Attributes {
		ha := heldAttr{name: name, nameRange: toSpan(a.NameRange), srcRange: toSpan(a.SrcRange), expr: a.Expr}
		ha.lit, _ = f.hold(a.Expr)
		h.attrs = append(h.attrs, ha)
	}
	sortAttrs(h.attrs)
	for i := range h.attrs {
		// Once in place: a copy of the argument (a PartialContent's
		// rest) points to the same.
		if a := &h.attrs[i]; a.lit.file != nil {
			a.expr = &a.lit
		}
	}
	return h
}

// sortAttrs puts attributes in the order written.
func sortAttrs(attrs []heldAttr) {
	for i := 1; i < len(attrs); i++ {
		for j := i; j > 0 && attrs[j].srcRange.start.byte < attrs[j-1].srcRange.start.byte; j-- {
			attrs[j], attrs[j-1] = attrs[j-1], attrs[j]
		}
	}
}

// hold is e as a heldLiteral when it is literal; false otherwise.
func (f *heldFile) hold(e hclsyntax.Expression) (heldLiteral, bool) {
	if !literal(e) {
		return heldLiteral{}, false
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 0 {
		return heldLiteral{}, false // no part to start at
	}
	v, ok := literalValue(e)
	if !ok {
		return heldLiteral{}, false
	}
	return heldLiteral{file: f, val: v, rng: toSpan(e.Range()), start: toSpan(e.StartRange())}, true
}

// literalValue is a literal expression's value, what e.Value(nil) gives
// without a template's buffer and marks for its one or more parts of
// known strings; false for what has diagnostics.
func literalValue(e hclsyntax.Expression) (cty.Value, bool) {
	if t, ok := e.(*hclsyntax.TemplateExpr); ok {
		var s string
		for _, p := range t.Parts {
			lit, ok := p.(*hclsyntax.LiteralValueExpr)
			if !ok || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() || lit.Val.IsMarked() {
				v, diags := e.Value(nil)
				return v, len(diags) == 0
			}
			if len(t.Parts) == 1 {
				return lit.Val, true // the parser's value: no copy to make
			}
			s += lit.Val.AsString()
		}
		return cty.StringVal(s), true
	}
	v, diags := e.Value(nil)
	return v, len(diags) == 0
}

// literalOnly reports whether every argument is a heldLiteral: the body's
// value then needs no evaluation context.
func (h *heldBody) literalOnly() bool {
	for _, a := range h.attrs {
		if _, ok := a.expr.(*heldLiteral); !ok {
			return false
		}
	}
	return true
}

func (h *heldBody) attr(name string) *heldAttr {
	for i := range h.attrs {
		if h.attrs[i].name == name {
			return &h.attrs[i]
		}
	}
	return nil
}

func (a *heldAttr) hcl(f *heldFile, refs bool) *hcl.Attribute {
	expr := a.expr
	if refs {
		expr = referenceExpr{expr}
	}
	return &hcl.Attribute{Name: a.name, Expr: expr, Range: f.rng(a.srcRange), NameRange: f.rng(a.nameRange)}
}

// parsed is the body as hclsyntax gives it, parsed again from the file.
func (h *heldBody) parsed() (hcl.Body, hcl.Diagnostics) {
	start, end := h.block.pos(), h.body.end.pos()
	f, diags := hclsyntax.ParseConfig(h.file.src[start.Byte:end.Byte:end.Byte], h.file.name, start)
	var body hcl.Body
	if sb, ok := f.Body.(*hclsyntax.Body); ok && !diags.HasErrors() && len(sb.Blocks) == 1 {
		body = sb.Blocks[0].Body
	}
	if body == nil {
		// The text is what parsed before; this is not expected.
		return nil, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Configuration changed while running",
			Detail:   fmt.Sprintf("The block at %s could not be read again as it was read before.", h.file.rng(span{h.block, h.block})),
			Subject:  h.file.rng(h.body).Ptr(),
		})
	}
	if h.hide != nil {
		_, body, _ = body.PartialContent(h.hide)
	}
	return body, nil
}

func (h *heldBody) missing() hcl.Range {
	return hcl.Range{Filename: h.file.name, Start: h.body.start.pos(), End: h.body.start.pos()}
}

// content is Content: the arguments s names, when the body sets every
// required one and nothing else; ok false otherwise, for hclsyntax to
// report on.
func (h *heldBody) content(s *hcl.BodySchema, refs bool) (c *hcl.BodyContent, rest []heldAttr, ok bool) {
	attrs := make(hcl.Attributes, len(s.Attributes))
	for _, as := range s.Attributes {
		a := h.attr(as.Name)
		if a == nil {
			if as.Required {
				return nil, nil, false
			}
			continue
		}
		attrs[as.Name] = a.hcl(h.file, refs)
	}
	if len(attrs) < len(h.attrs) {
		for _, a := range h.attrs {
			if _, taken := attrs[a.name]; !taken {
				rest = append(rest, a)
			}
		}
	}
	return &hcl.BodyContent{Attributes: attrs, MissingItemRange: h.missing()}, rest, true
}

func (h *heldBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	if c, rest, ok := h.content(s, false); ok && len(rest) == 0 {
		return c, nil
	}
	body, diags := h.parsed()
	if body == nil {
		return &hcl.BodyContent{MissingItemRange: h.missing()}, diags
	}
	return body.Content(s)
}

func (h *heldBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	if c, rest, ok := h.content(s, false); ok {
		return c, h.rest(s, rest), nil
	}
	body, diags := h.parsed()
	if body == nil {
		return &hcl.BodyContent{MissingItemRange: h.missing()}, h, diags
	}
	return body.PartialContent(s)
}

// rest is the body after a PartialContent of s that took all but attrs.
func (h *heldBody) rest(s *hcl.BodySchema, attrs []heldAttr) *heldBody {
	r := *h
	r.attrs = attrs
	r.hide = s
	if h.hide != nil {
		r.hide = &hcl.BodySchema{
			Attributes: append(append([]hcl.AttributeSchema(nil), h.hide.Attributes...), s.Attributes...),
			Blocks:     append(append([]hcl.BlockHeaderSchema(nil), h.hide.Blocks...), s.Blocks...),
		}
	}
	return &r
}

func (h *heldBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs := make(hcl.Attributes, len(h.attrs))
	for i := range h.attrs {
		attrs[h.attrs[i].name] = h.attrs[i].hcl(h.file, false)
	}
	return attrs, nil
}

func (h *heldBody) MissingItemRange() hcl.Range { return h.missing() }

// syntax is the body as hclsyntax parsed it, for what walks the syntax
// (synth).
func (h *heldBody) syntax() (*hclsyntax.Body, hcl.Diagnostics) {
	body, diags := h.parsed()
	sb, _ := body.(*hclsyntax.Body)
	return sb, diags
}

// heldRefs is a heldBody read as referenceBody reads a body: every
// argument's expression resolves references (see referenceExpr).
type heldRefs struct{ *heldBody }

func (b heldRefs) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	if c, rest, ok := b.content(s, true); ok && len(rest) == 0 {
		return c, nil
	}
	body, diags := b.parsed()
	if body == nil {
		return &hcl.BodyContent{MissingItemRange: b.missing()}, diags
	}
	return referenceBody{body}.Content(s)
}

func (b heldRefs) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	if c, rest, ok := b.content(s, true); ok {
		return c, heldRefs{b.rest(s, rest)}, nil
	}
	body, diags := b.parsed()
	if body == nil {
		return &hcl.BodyContent{MissingItemRange: b.missing()}, b, diags
	}
	return referenceBody{body}.PartialContent(s)
}

func (b heldRefs) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs, diags := b.heldBody.JustAttributes()
	return wrapAttributes(attrs), diags
}

// heldDecoder decodes a heldBody by an object spec of arguments and
// literals only (loader.bodySpec's, for a body that sets every required
// argument and nothing the schema does not name) as hcldec.Decode does,
// without building hcldec's body schema, the body's content and, for a
// body of literals, the evaluation context, for every instance.
type heldDecoder struct {
	body    *heldBody
	plan    *heldPlan
	literal bool // every argument is a literal
}

// heldPlan is an object spec of arguments and literals taken apart, made
// once per spec (see loader.heldPlan).
type heldPlan struct {
	attrs    []heldSpecAttr
	literals []heldSpecLiteral
	// names are the object's attribute names: the literals', then the
	// attributes'.
	names []string
	// types is the type of the objects decoded by the plan, one for each
	// set of argument types (see ctysame.Types).
	types ctysame.Types
}

type heldSpecAttr struct {
	key  string
	spec *hcldec.AttrSpec
}

type heldSpecLiteral struct {
	key string
	val cty.Value
}

// heldPlan is spec's plan, nil when spec has anything but arguments and
// literals. key names spec (see bodySpec).
func (l *loader) heldPlan(key bodySpecKey, spec hcldec.Spec) *heldPlan {
	if p, ok := l.heldPlans[key]; ok {
		return p
	}
	p := newHeldPlan(spec)
	if l.heldPlans == nil {
		l.heldPlans = map[bodySpecKey]*heldPlan{}
	}
	l.heldPlans[key] = p
	return p
}

func newHeldPlan(spec hcldec.Spec) *heldPlan {
	obj, ok := spec.(hcldec.ObjectSpec)
	if !ok {
		return nil
	}
	p := &heldPlan{}
	for key, s := range obj {
		switch s := s.(type) {
		case *hcldec.LiteralSpec:
			p.literals = append(p.literals, heldSpecLiteral{key, s.Value})
		case *hcldec.AttrSpec:
			if customdecode.CustomExpressionDecoderForType(s.Type) != nil {
				return nil
			}
			p.attrs = append(p.attrs, heldSpecAttr{key, s})
		default:
			return nil
		}
	}
	for _, l := range p.literals {
		p.names = append(p.names, l.key)
	}
	for _, a := range p.attrs {
		p.names = append(p.names, a.key)
	}
	return p
}

// newHeldDecoder is the decoder of body by plan; false when the body does
// not set exactly the arguments plan reads.
func newHeldDecoder(body *heldBody, plan *heldPlan) (heldDecoder, bool) {
	if plan == nil || len(plan.attrs) != len(body.attrs) {
		return heldDecoder{}, false
	}
	for _, sa := range plan.attrs {
		if body.attr(sa.spec.Name) == nil {
			return heldDecoder{}, false
		}
	}
	return heldDecoder{body: body, plan: plan, literal: body.literalOnly()}, true
}

// decode is hcldec.Decode(heldRefs{body}, spec, ctx()): ctx is called only
// when an expression needs it or a diagnostic names it.
func (d heldDecoder) decode(ctx func() *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	var evalCtx *hcl.EvalContext
	if !d.literal {
		evalCtx = ctx()
	}
	var buf [16]cty.Value
	vals := buf[:0]
	for _, l := range d.plan.literals {
		vals = append(vals, l.val)
	}
	var diags hcl.Diagnostics
	for _, sa := range d.plan.attrs {
		attr := d.body.attr(sa.spec.Name)
		expr := referenceExpr{attr.expr}
		val, vd := expr.Value(evalCtx)
		diags = append(diags, vd...)
		conv, err := conform(val, sa.spec.Type)
		if err != nil {
			if evalCtx == nil {
				evalCtx = ctx()
			}
			exprRange := expr.Range()
			diags = append(diags, &hcl.Diagnostic{
				Severity:    hcl.DiagError,
				Summary:     "Incorrect attribute value type",
				Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s.", sa.spec.Name, err.Error()),
				Subject:     exprRange.Ptr(),
				Context:     hcl.RangeBetween(d.body.file.rng(attr.nameRange), exprRange).Ptr(),
				Expression:  expr,
				EvalContext: evalCtx,
			})
			conv = cty.UnknownVal(sa.spec.Type.WithoutOptionalAttributesDeep())
		}
		vals = append(vals, conv)
	}
	return d.plan.types.ObjectVal(d.plan.names, vals), diags
}

// conform is convert.Convert(v, ty), without making a conversion to pass
// a value through to an argument of any type, the value unchanged.
func conform(v cty.Value, ty cty.Type) (cty.Value, error) {
	if ty == cty.DynamicPseudoType && !v.IsMarked() {
		return v, nil
	}
	return convert.Convert(v, ty)
}
