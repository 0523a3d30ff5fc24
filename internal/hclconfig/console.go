package hclconfig

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

// expressionEvaluator makes config.Config.Evaluate for the root module m:
// an expression typed at `tether console`, checked against the module's
// declarations as any expression of it is, and evaluated with the values
// scope gives.
func (m *module) expressionEvaluator() func(src string, scope config.Scope) (cty.Value, hcl.Diagnostics) {
	return func(src string, scope config.Scope) (cty.Value, hcl.Diagnostics) {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "<console-input>", hcl.InitialPos)
		if diags.HasErrors() {
			return cty.NilVal, diags
		}
		l := m.l
		before := len(l.diags)
		n := &config.Node{Kind: config.Local, Addr: "console"}
		refs := m.refs(n, expr.Variables(), "", false)
		if len(l.diags) > before {
			found := append(hcl.Diagnostics(nil), l.diags[before:]...)
			l.diags = l.diags[:before]
			if found.HasErrors() {
				return cty.NilVal, found
			}
		}
		return expr.Value(m.evalContext(refs, scope, config.Instance{}, cty.NilVal))
	}
}
