package funcs

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// templateFuncs are the functions that render templates: a template may
// not call them.
var templateFuncs = map[string]bool{"templatefile": true, "templatestring": true}

// fileFuncs are the functions that read the filesystem: a templatestring
// template, which may come from anywhere, may not call them.
var fileFuncs = map[string]bool{
	"file": true, "fileexists": true, "fileset": true, "filebase64": true,
	"filebase64sha256": true, "filebase64sha512": true, "filemd5": true,
	"filesha1": true, "filesha256": true, "filesha512": true, "templatefile": true,
}

// addTemplateFuncs sets templatefile and templatestring in fs, rendering
// templates with the library's functions overlaid with those of fs.
func (l *Library) addTemplateFuncs(fs map[string]function.Function) {
	var once sync.Once
	var all map[string]function.Function
	funcs := func() map[string]function.Function {
		once.Do(func() {
			all = make(map[string]function.Function, len(l.base)+2*len(fs))
			for name, f := range l.base {
				all[name] = f
			}
			for name, f := range fs {
				all[name] = f
				all["core::"+name] = f
			}
		})
		return all
	}
	fs["templatefile"] = templateFileFunc(l.baseDir, funcs)
	fs["templatestring"] = templateStringFunc(funcs)
}

// templateFileFunc is Terraform's templatefile: the file at path (from
// baseDir, like file) rendered as a template with the given variables.
// The result has every mark of the variables: what is made from a secret
// is secret.
func templateFileFunc(baseDir string, funcs func() map[string]function.Function) function.Function {
	render := func(args []cty.Value) (cty.Value, error) {
		path, pathMarks := args[0].Unmark()
		vars, varMarks := args[1].UnmarkDeep()
		if !path.IsKnown() || !vars.IsKnown() {
			return cty.DynamicVal.WithMarks(pathMarks, varMarks), nil
		}
		src, err := readFile(baseDir, path.AsString())
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		expr, diags := hclsyntax.ParseTemplate(src, path.AsString(), hcl.InitialPos)
		if diags.HasErrors() {
			return cty.NilVal, function.NewArgError(0, diags)
		}
		v, err := renderTemplate(expr, vars, funcs(), true)
		if err != nil {
			return cty.NilVal, err
		}
		return v.WithMarks(pathMarks, varMarks), nil
	}
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "path", Type: cty.String, AllowMarked: true, AllowUnknown: true},
			{Name: "vars", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true},
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			v, err := render(args)
			if err != nil {
				return cty.NilType, err
			}
			return v.Type(), nil
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) { return render(args) },
	})
}

// templateStringFunc is Terraform's templatestring: a string obtained
// from elsewhere (a reference, never a literal, which would be a template
// already) rendered as a template.
func templateStringFunc(funcs func() map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "template", Type: customdecode.ExpressionClosureType},
			{Name: "vars", Type: cty.DynamicPseudoType},
		},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			closure := customdecode.ExpressionClosureFromVal(args[0])
			if err := checkTemplateReference(closure.Expression); err != nil {
				return cty.UnknownVal(cty.String), function.NewArgError(0, err)
			}
			tv, diags := closure.Value()
			if diags.HasErrors() {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid template expression: %s", diags.Error())
			}
			tv, marks := tv.Unmark()
			if !tv.IsKnown() {
				return cty.UnknownVal(cty.String).WithMarks(marks), nil
			}
			if tv.Type() != cty.String || tv.IsNull() {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid template value: a string is required")
			}
			expr, diags := hclsyntax.ParseTemplate([]byte(tv.AsString()), "<templatestring argument>", hcl.InitialPos)
			if diags.HasErrors() {
				return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "invalid template: %s", diags.Error())
			}
			v, err := renderTemplate(expr, args[1], funcs(), false)
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			s, err := convert.Convert(v, cty.String)
			if err != nil {
				return cty.UnknownVal(cty.String), fmt.Errorf("invalid template result: %s", err)
			}
			return s.WithMarks(marks), nil
		},
		RefineResult: refineNotNull,
	})
}

// checkTemplateReference refuses a templatestring template that is not a
// reference to a string held elsewhere.
func checkTemplateReference(expr hcl.Expression) error {
	switch e := expr.(type) {
	case *hclsyntax.TemplateWrapExpr:
		return errors.New("invalid template expression: templatestring is only for rendering templates retrieved dynamically from elsewhere; to treat the inner expression as template syntax, write the reference expression directly without any template interpolation syntax")
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if _, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				return errors.New("invalid template expression: templatestring is only for rendering templates retrieved dynamically from elsewhere, and so does not support providing a literal template; consider using a template string expression instead")
			}
		}
		return errors.New("invalid template expression: templatestring is only for rendering templates retrieved dynamically from elsewhere; to render an inline template, consider using a plain template string expression")
	}
	if !isReference(expr) {
		return errors.New("invalid template expression: must be a direct reference to a single string from elsewhere, containing valid Terraform template syntax")
	}
	return nil
}

func isReference(expr hcl.Expression) bool {
	switch e := expr.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return true
	case *hclsyntax.RelativeTraversalExpr:
		return isReference(e.Source)
	case *hclsyntax.IndexExpr:
		return isReference(e.Collection)
	case *hclsyntax.SplatExpr:
		return isReference(e.Source)
	}
	return false
}

// renderTemplate evaluates a template with vars (a map or object) as its
// variables and the given functions, less the template functions (no
// recursion) and, unless allowFiles, the filesystem functions.
func renderTemplate(expr hcl.Expression, vars cty.Value, funcs map[string]function.Function, allowFiles bool) (cty.Value, error) {
	if ty := vars.Type(); !ty.IsMapType() && !ty.IsObjectType() {
		return cty.DynamicVal, function.NewArgErrorf(1, "invalid vars value: must be a map")
	}
	ctx := &hcl.EvalContext{Variables: vars.AsValueMap(), Functions: make(map[string]function.Function, len(funcs))}
	for name := range ctx.Variables {
		if !hclsyntax.ValidIdentifier(name) {
			return cty.DynamicVal, function.NewArgErrorf(1, "invalid template variable name %q: must start with a letter, followed by zero or more letters, digits, and underscores", name)
		}
	}
	for _, tr := range expr.Variables() {
		if _, ok := ctx.Variables[tr.RootName()]; !ok {
			return cty.DynamicVal, function.NewArgErrorf(1, "vars map does not contain key %q, referenced at %s", tr.RootName(), tr[0].SourceRange())
		}
	}
	for name, f := range funcs {
		plain := strings.TrimPrefix(name, "core::")
		switch {
		case templateFuncs[plain]:
			f = refusedFunc(f, fmt.Sprintf("cannot recursively call %s from inside another template function", plain))
		case !allowFiles && fileFuncs[plain]:
			f = refusedFunc(f, fmt.Sprintf("cannot use filesystem access functions like %s in templatestring templates; consider passing the function result as a template variable instead", plain))
		}
		ctx.Functions[name] = f
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	if v.IsNull() {
		return cty.DynamicVal, errors.New("the result of the template is null, which is not a valid template result")
	}
	return v, nil
}

// refusedFunc has f's signature and fails with message when called.
func refusedFunc(f function.Function, message string) function.Function {
	return function.New(&function.Spec{
		Params:   f.Params(),
		VarParam: f.VarParam(),
		Type: func([]cty.Value) (cty.Type, error) {
			return cty.NilType, errors.New(message)
		},
	})
}
