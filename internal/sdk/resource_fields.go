package sdk

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
)

// A provider's diagnostic about one attribute names it by its schema path
// (dir, rule[0].port). In a Go program the user wrote a field of the args
// struct (Dir, Rule[0].Port) on a line of its own, so the node tells the
// engine both: the field's name, which the diagnostic shows after the
// address, and where the composite literal given to the constructor sets
// it, which becomes the diagnostic's subject.

// nameFields makes n name the attributes of its arguments, of Go type t,
// as the program does, and find where the call at pos sets them.
func nameFields(n *config.Node, t reflect.Type, pos hcl.Range) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return
	}
	n.Attrs = goFields{t, pos}
}

// goFields are the fields of a Go program's args struct t, set by the
// call at pos, as config.Attrs.
type goFields struct {
	t   reflect.Type
	pos hcl.Range
}

func (g goFields) AttrName(p cty.Path) (string, bool) {
	name, _, ok := goFieldPath(g.t, p)
	return name, ok
}

func (g goFields) AttrRange(p cty.Path) (hcl.Range, bool) {
	_, fields, ok := goFieldPath(g.t, p)
	if !ok {
		return hcl.Range{}, false
	}
	return fieldRange(g.pos, fields)
}

// fieldStep is one step of a Go path: a field's name, or an element's
// index (idx, or key for a map).
type fieldStep struct {
	field string
	idx   int
	key   string
	isKey bool
}

// goFieldPath writes p, a path of schema names, as the fields and
// elements of t it goes through: .Rule[0].Port. A step into a value of
// interface type (a dynamic attribute) is written as the schema names it.
func goFieldPath(t reflect.Type, p cty.Path) (string, []fieldStep, bool) {
	name := ""
	var steps []fieldStep
	for i, step := range p {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Interface {
			return name + diagnostic.PathString(p[i:]), steps, name != ""
		}
		switch s := step.(type) {
		case cty.GetAttrStep:
			if t.Kind() != reflect.Struct {
				return "", nil, false
			}
			f, ok := fieldNamed(t, s.Name)
			if !ok {
				return "", nil, false
			}
			name += "." + f.goName
			steps = append(steps, fieldStep{field: f.goName})
			t = t.Field(f.index).Type
		case cty.IndexStep:
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array && t.Kind() != reflect.Map {
				return "", nil, false
			}
			switch s.Key.Type() {
			case cty.String:
				name += fmt.Sprintf("[%q]", s.Key.AsString())
				steps = append(steps, fieldStep{key: s.Key.AsString(), isKey: true})
			case cty.Number:
				i, _ := s.Key.AsBigFloat().Int64()
				name += fmt.Sprintf("[%d]", i)
				steps = append(steps, fieldStep{idx: int(i)})
			default:
				return "", nil, false
			}
			t = t.Elem()
		default:
			return "", nil, false
		}
	}
	return name, steps, name != ""
}

func fieldNamed(t reflect.Type, schemaName string) (fieldInfo, bool) {
	for _, f := range structFields(t) {
		if f.name == schemaName {
			return f, true
		}
	}
	return fieldInfo{}, false
}

// fieldRange finds where the call at pos sets the field at steps: in a
// composite literal among the call's arguments (builtin.FileArgs{...},
// &Args{...}, nested literals and the calls wrapping a value such as
// tether.String). An argument built elsewhere (a variable) is not
// followed: the call's line stays the subject.
func fieldRange(pos hcl.Range, steps []fieldStep) (hcl.Range, bool) {
	src := sourceOf(pos.Filename, pos.Filename)
	if src == nil {
		return hcl.Range{}, false
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, pos.Filename, src, parser.SkipObjectResolution)
	if err != nil {
		return hcl.Range{}, false
	}
	tf := fset.File(f.Pos())
	if pos.Start.Line < 1 || pos.Start.Line > tf.LineCount() {
		return hcl.Range{}, false
	}
	at := tf.LineStart(pos.Start.Line) + token.Pos(max(pos.Start.Column-1, 0))
	path, _ := astutil.PathEnclosingInterval(f, at, at)
	var call *ast.CallExpr
	for _, n := range path {
		if c, ok := n.(*ast.CallExpr); ok {
			call = c
			break
		}
	}
	if call == nil {
		return hcl.Range{}, false
	}
	var found ast.Node
	for _, arg := range call.Args {
		if n := findField(arg, steps); n != nil {
			found = n
			break
		}
	}
	if found == nil {
		return hcl.Range{}, false
	}
	start, end := fset.Position(found.Pos()), fset.Position(found.End())
	return hcl.Range{
		Filename: pos.Filename,
		Start:    hcl.Pos{Line: start.Line, Column: start.Column, Byte: start.Offset},
		End:      hcl.Pos{Line: end.Line, Column: end.Column, Byte: end.Offset},
	}, true
}

// findField follows steps into the literal e: the key-value pair of the
// last field found, or nil when e is not a literal that sets them.
func findField(e ast.Expr, steps []fieldStep) ast.Node {
	lit := literal(e)
	if lit == nil || len(steps) == 0 {
		return nil
	}
	s := steps[0]
	var next ast.Expr
	var here ast.Node
	for i, elt := range lit.Elts {
		kv, keyed := elt.(*ast.KeyValueExpr)
		switch {
		case s.field != "" && keyed:
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == s.field {
				next, here = kv.Value, kv
			}
		case s.isKey && keyed:
			if bl, ok := kv.Key.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if k, err := strconv.Unquote(bl.Value); err == nil && k == s.key {
					next, here = kv.Value, kv
				}
			}
		case s.field == "" && !s.isKey && !keyed && i == s.idx:
			next, here = elt, elt
		}
	}
	if here == nil {
		return nil
	}
	if deeper := findField(next, steps[1:]); deeper != nil {
		return deeper
	}
	return here
}

// literal is the composite literal e is, points to, or is the one
// argument of (tether.String(...) is not one; a conversion may be).
func literal(e ast.Expr) *ast.CompositeLit {
	for {
		switch x := e.(type) {
		case *ast.CompositeLit:
			return x
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.CallExpr:
			if len(x.Args) != 1 {
				return nil
			}
			e = x.Args[0]
		default:
			return nil
		}
	}
}
