package schemabody

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/tetherhq/tether/internal/provider"
)

// Variables lists the references that body's expressions make, read by
// b: inside dynamic blocks at any depth (their for_each and labels, and
// their content's, without the iterators they declare) and inside
// attributes written as blocks. It is hcldec.Variables for a body that
// needs Fixup and dynamic expansion.
func Variables(body hcl.Body, b *provider.Block) []hcl.Traversal {
	return walk(dynblock.WalkVariables(body), body, b, true)
}

func walk(node dynblock.WalkVariablesNode, body hcl.Body, b *provider.Block, cache bool) []hcl.Traversal {
	i := infoOf(b, cache)
	vars, children := node.Visit(Effective(i.schema, body, i.names, false))
	for _, c := range children {
		if nb, ok := b.BlockTypes[c.BlockTypeName]; ok {
			vars = append(vars, walk(c.Node, c.Body(), &nb.Block, cache)...)
		} else if a, ok := b.Attributes[c.BlockTypeName]; ok && objectCollection(a.Type) {
			vars = append(vars, walk(c.Node, c.Body(), elementBlock(a.Type.ElementType()), false)...)
		}
	}
	return vars
}

// HasDynamic reports whether body has a dynamic block at any depth. A
// body of the native syntax answers from its syntax tree; any other (JSON,
// an override file's merged body) may have one.
func HasDynamic(body hcl.Body) bool {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return true
	}
	for _, blk := range sb.Blocks {
		if blk.Type == "dynamic" || HasDynamic(blk.Body) {
			return true
		}
	}
	return false
}
