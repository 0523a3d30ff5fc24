package hclconfig

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// eachCall calls f with every function call in body, in its arguments
// and nested blocks at any depth. It is hclsyntax.VisitAll narrowed to
// calls, without VisitAll's allocation per node: a configuration of
// thousands of resources has hundreds of thousands of nodes. Expression
// types it does not know are walked by VisitAll; TestEachCallFindsWhat
// VisitAllFinds holds the two to the same calls over every configuration
// in the repository.
func eachCall(body *hclsyntax.Body, f func(*hclsyntax.FunctionCallExpr)) {
	for _, a := range body.Attributes {
		if !literal(a.Expr) { // a literal calls nothing: most arguments
			exprCalls(a.Expr, f)
		}
	}
	for _, b := range body.Blocks {
		eachCall(b.Body, f)
	}
}

func exprCalls(e hclsyntax.Expression, f func(*hclsyntax.FunctionCallExpr)) {
	var buf [4]hclsyntax.Expression // the children of most: no allocation
	kids := buf[:0]
	switch e := e.(type) {
	case nil, *hclsyntax.LiteralValueExpr, *hclsyntax.ScopeTraversalExpr, *hclsyntax.AnonSymbolExpr:
	case *hclsyntax.FunctionCallExpr:
		f(e)
		kids = e.Args
	case *hclsyntax.TemplateExpr:
		kids = e.Parts
	case *hclsyntax.TupleConsExpr:
		kids = e.Exprs
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			exprCalls(item.KeyExpr, f)
			exprCalls(item.ValueExpr, f)
		}
	case *hclsyntax.TemplateWrapExpr:
		kids = append(kids, e.Wrapped)
	case *hclsyntax.TemplateJoinExpr:
		kids = append(kids, e.Tuple)
	case *hclsyntax.ObjectConsKeyExpr:
		kids = append(kids, e.Wrapped)
	case *hclsyntax.ParenthesesExpr:
		kids = append(kids, e.Expression)
	case *hclsyntax.RelativeTraversalExpr:
		kids = append(kids, e.Source)
	case *hclsyntax.UnaryOpExpr:
		kids = append(kids, e.Val)
	case *hclsyntax.IndexExpr:
		kids = append(kids, e.Collection, e.Key)
	case *hclsyntax.SplatExpr:
		kids = append(kids, e.Source, e.Each)
	case *hclsyntax.BinaryOpExpr:
		kids = append(kids, e.LHS, e.RHS)
	case *hclsyntax.ConditionalExpr:
		kids = append(kids, e.Condition, e.TrueResult, e.FalseResult)
	case *hclsyntax.ForExpr:
		kids = append(kids, e.CollExpr, e.KeyExpr, e.ValExpr, e.CondExpr)
	default:
		hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
			if call, ok := n.(*hclsyntax.FunctionCallExpr); ok {
				f(call)
			}
			return nil
		})
	}
	for _, k := range kids {
		exprCalls(k, f)
	}
}
