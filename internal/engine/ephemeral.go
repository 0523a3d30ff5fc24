package engine

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// ephemeralArguments reports each ephemeral value in a resource's or data
// source's configuration that is not in a write-only attribute: the rest
// of a configuration is recorded in plans and state, and an ephemeral
// value never may be. Terraform refuses the same, with the same words.
func ephemeralArguments(addr string, cn *config.Node, block *provider.Block, cfgVal cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, path := range marks.EphemeralPaths(cfgVal) {
		attr, attrPath := attributeAt(block, path)
		if attr != nil && attr.WriteOnly {
			continue
		}
		detail := fmt.Sprintf("Ephemeral values are not valid for %q, because it is not a write-only attribute and must be persisted to state.", strings.TrimPrefix(pathString(attrPath), "."))
		if attr == nil {
			detail = fmt.Sprintf("Ephemeral values are not valid for %q, because it is not an assignable attribute.", strings.TrimPrefix(pathString(path), "."))
		}
		d := errorDiag(addr, cn, "Invalid use of ephemeral value", detail)
		if cn.AttrRange != nil {
			if rng, ok := cn.AttrRange(attrPath); ok {
				d.Subject = rng.Ptr()
			}
		}
		diags = append(diags, d)
	}
	return diags
}

// attributeAt is the attribute of block that holds the value at path, and
// the path to that attribute; nil when the path names a block or nothing.
func attributeAt(block *provider.Block, path cty.Path) (*provider.Attribute, cty.Path) {
	for i := 0; i < len(path); i++ {
		step, ok := path[i].(cty.GetAttrStep)
		if !ok {
			continue // an index into a nested block's collection
		}
		if a, ok := block.Attributes[step.Name]; ok {
			return a, path[:i+1]
		}
		nb, ok := block.BlockTypes[step.Name]
		if !ok {
			return nil, path
		}
		block = &nb.Block
	}
	return nil, path
}
