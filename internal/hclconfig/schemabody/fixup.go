package schemabody

import (
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// SDKv2 providers may declare an argument as an attribute of list or set
// of object type and still let configurations write it as nested blocks
// (the SDK's "attribute as block" mode): aws_security_group's ingress,
// aws_route_table's route. The plugin protocol only says "attribute", so
// every list or set of objects is taken to allow both forms, as Terraform
// takes it, unless something in the schema shows the provider could not be
// an SDKv2 one (see legacy).

// info is what the fixup needs to know of a schema block, worked out once
// per block of a provider's schema.
type info struct {
	// names are the attributes that may be written as blocks; nil when
	// none may (or the schema rules the fixup out).
	names map[string]bool
	// schema is the low-level schema of the block's spec.
	schema *hcl.BodySchema
}

// infos caches info by schema block. Provider schemas live as long as the
// process reads configurations, and a block is never changed once read;
// the blocks Fixup makes up for elements of an attribute are not cached.
var infos sync.Map // *provider.Block -> *info

func infoOf(b *provider.Block, cache bool) *info {
	if cache {
		if i, ok := infos.Load(b); ok {
			return i.(*info)
		}
	}
	i := &info{schema: hcldec.ImpliedSchema(Spec(b))}
	if legacy(b) {
		for name, a := range b.Attributes {
			if objectCollection(a.Type) {
				if i.names == nil {
					i.names = map[string]bool{}
				}
				i.names[name] = true
			}
		}
	}
	if cache {
		infos.Store(b, i)
	}
	return i
}

// objectCollection reports whether t is a list or set of objects: the
// types an attribute written as blocks can have.
func objectCollection(t cty.Type) bool {
	return (t.IsListType() || t.IsSetType()) && t.ElementType().IsObjectType()
}

// legacy reports whether the block could come from the legacy SDK, the
// only kind of provider whose attributes may be written as blocks: no
// nested attributes (protocol 6), no attribute of a type the SDK cannot
// declare (a tuple, an object, a map of objects, a collection of
// collections of anything but primitives), at any depth.
func legacy(b *provider.Block) bool {
	for _, a := range b.Attributes {
		t := a.Type
		switch {
		case a.Nested != nil, t.IsTupleType(), t.IsObjectType():
			return false
		case t.IsMapType() && t.ElementType().IsObjectType():
			return false
		case t.IsCollectionType() && t.ElementType().IsCollectionType() && !t.ElementType().ElementType().IsPrimitiveType():
			return false
		}
	}
	for _, nb := range b.BlockTypes {
		if !legacy(&nb.Block) {
			return false
		}
	}
	return true
}

// AsBlocks reports whether some attribute of b may be written as blocks.
func AsBlocks(b *provider.Block) bool {
	return b != nil && infoOf(b, true).names != nil
}

// Fixup returns body as it reads with b's attributes of list or set of
// object type written as blocks where the body writes them so: the blocks
// of such a type become one attribute whose value is the list of their
// bodies' objects, at this level and in every nested block. Zero blocks
// are no attribute at all (null), as in Terraform. body should have its
// dynamic blocks expanded already (ext/dynblock), so that a dynamic block
// generating an attribute's blocks is one of them.
func Fixup(body hcl.Body, b *provider.Block) hcl.Body {
	return fixup(body, b, true)
}

func fixup(body hcl.Body, b *provider.Block, cache bool) hcl.Body {
	if b == nil {
		return body
	}
	i := infoOf(b, cache)
	if i.names == nil {
		return body
	}
	return fixupBody{original: body, block: b, names: i.names}
}

type fixupBody struct {
	original hcl.Body
	block    *provider.Block
	names    map[string]bool
}

// Unknown passes on that the body stands for the blocks of a dynamic
// block whose for_each is unknown, so that hcldec makes them unknown.
func (b fixupBody) Unknown() bool {
	u, ok := b.original.(hcldec.UnknownBody)
	return ok && u.Unknown()
}

func (b fixupBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, d := b.original.Content(Effective(s, b.original, b.names, true))
	return b.fix(c), d
}

func (b fixupBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, rest, d := b.original.PartialContent(Effective(s, b.original, b.names, true))
	return b.fix(c), fixupBody{original: rest, block: b.block, names: b.names}, d
}

// JustAttributes is not how a schema's body is read; it passes through.
func (b fixupBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	return b.original.JustAttributes()
}

func (b fixupBody) MissingItemRange() hcl.Range { return b.original.MissingItemRange() }

// fix turns the blocks of attributes into those attributes, and reads the
// other blocks' bodies by their own schemas.
func (b fixupBody) fix(c *hcl.BodyContent) *hcl.BodyContent {
	if c == nil {
		return nil
	}
	out := &hcl.BodyContent{Attributes: make(hcl.Attributes, len(c.Attributes)), MissingItemRange: b.MissingItemRange()}
	for name, a := range c.Attributes {
		out.Attributes[name] = a
	}
	var asAttr map[string]hcl.Blocks
	var order []string
	for _, blk := range c.Blocks {
		if b.names[blk.Type] {
			if asAttr == nil {
				asAttr = map[string]hcl.Blocks{}
			}
			if _, seen := asAttr[blk.Type]; !seen {
				order = append(order, blk.Type)
			}
			asAttr[blk.Type] = append(asAttr[blk.Type], blk)
			continue
		}
		nb := *blk
		if s, ok := b.block.BlockTypes[blk.Type]; ok {
			nb.Body = Fixup(blk.Body, &s.Block)
		}
		out.Blocks = append(out.Blocks, &nb)
	}
	for _, name := range order {
		blocks := asAttr[name]
		// An attribute has one range; the first block's stands for all.
		out.Attributes[name] = &hcl.Attribute{
			Name:      name,
			Expr:      blocksExpr{blocks: blocks, elem: b.block.Attributes[name].Type.ElementType()},
			Range:     blocks[0].DefRange,
			NameRange: blocks[0].TypeRange,
		}
	}
	return out
}

// Effective is the schema given, with each attribute of names that body
// writes as blocks (or may write so: in a dynamic block, or after
// expansion whenever it is not written as an attribute) turned into a
// block type. The attribute form wins where a body has both, so that the
// blocks are then reported as not expected. expanded says the body's
// dynamic blocks are expanded already; before expansion a dynamic block
// names the type it generates. JSON bodies answer to both probes; the
// attribute reading is asked first, so there an attribute is one.
func Effective(given *hcl.BodySchema, body hcl.Body, names map[string]bool, expanded bool) *hcl.BodySchema {
	if len(names) == 0 {
		return given
	}
	blocks := map[string]bool{}
	for name := range names {
		c, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
		if c != nil && c.Attributes[name] != nil {
			continue
		}
		if expanded {
			// A dynamic block over an empty collection leaves nothing to
			// probe for; without an attribute, the name is blocks.
			blocks[name] = true
			continue
		}
		c, _, _ = body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: name}}})
		if c != nil && len(c.Blocks) > 0 {
			blocks[name] = true
		}
	}
	if !expanded {
		c, _, _ := body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{dynamicHeader}})
		if c != nil {
			for _, blk := range c.Blocks {
				if names[blk.Labels[0]] {
					blocks[blk.Labels[0]] = true
				}
			}
		}
	}
	if len(blocks) == 0 {
		return given
	}
	out := &hcl.BodySchema{}
	for _, a := range given.Attributes {
		if blocks[a.Name] {
			out.Blocks = append(out.Blocks, hcl.BlockHeaderSchema{Type: a.Name})
		} else {
			out.Attributes = append(out.Attributes, a)
		}
	}
	out.Blocks = append(out.Blocks, given.Blocks...)
	return out
}

var dynamicHeader = hcl.BlockHeaderSchema{Type: "dynamic", LabelNames: []string{"type"}}

// Names are the attributes of b that may be written as blocks, nil when
// none may.
func Names(b *provider.Block) map[string]bool {
	if b == nil {
		return nil
	}
	return infoOf(b, true).names
}

// elementBlock is the schema a block of an attribute written as blocks is
// read with: every attribute of the element's object type, each optional
// (a type says less than a schema; the provider checks what is required).
func elementBlock(elem cty.Type) *provider.Block {
	attrs := elem.AttributeTypes()
	b := &provider.Block{Attributes: make(map[string]*provider.Attribute, len(attrs))}
	for name, t := range attrs {
		b.Attributes[name] = &provider.Attribute{Type: t, Optional: true}
	}
	return b
}

// blocksExpr is the value of an attribute written as blocks: the list of
// the blocks' objects, each read by the attribute's element type.
type blocksExpr struct {
	blocks hcl.Blocks
	elem   cty.Type
}

func (e blocksExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	eb := elementBlock(e.elem)
	spec := Spec(eb)
	vals := make([]cty.Value, len(e.blocks))
	var diags hcl.Diagnostics
	same := true
	for i, blk := range e.blocks {
		v, d := hcldec.Decode(fixup(blk.Body, eb, false), spec, ctx)
		diags = append(diags, d...)
		if v == cty.NilVal {
			v = cty.UnknownVal(e.elem)
		}
		vals[i] = v
		same = same && v.Type().Equals(vals[0].Type())
	}
	switch {
	case len(vals) == 0:
		return cty.ListValEmpty(e.elem), diags
	case !same:
		// Elements with dynamically typed attributes may differ in type;
		// the attribute's conversion unifies them or says why not.
		return cty.TupleVal(vals), diags
	}
	return cty.ListVal(vals), diags
}

// Variables are the references of the blocks' arguments in the order
// they are written (hcldec.Variables's order is a map's).
func (e blocksExpr) Variables() []hcl.Traversal {
	eb := elementBlock(e.elem)
	schema := infoOf(eb, false).schema
	var out []hcl.Traversal
	for _, blk := range e.blocks {
		c, _, _ := fixup(blk.Body, eb, false).PartialContent(schema)
		if c == nil {
			continue
		}
		attrs := make([]*hcl.Attribute, 0, len(c.Attributes))
		for _, a := range c.Attributes {
			attrs = append(attrs, a)
		}
		sort.Slice(attrs, func(i, j int) bool { return attrs[i].Range.Start.Byte < attrs[j].Range.Start.Byte })
		for _, a := range attrs {
			out = append(out, a.Expr.Variables()...)
		}
	}
	return out
}

func (e blocksExpr) Range() hcl.Range      { return e.blocks[0].DefRange }
func (e blocksExpr) StartRange() hcl.Range { return e.blocks[0].DefRange }
