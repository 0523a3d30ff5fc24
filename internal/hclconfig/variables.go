package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/marks"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "default"},
		{Name: "description"},
		{Name: "sensitive"},
		{Name: "nullable"},
		{Name: "ephemeral"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}}}

// variableDecl is a declared input variable while its value is worked out.
type variableDecl struct {
	node     *config.Node
	typ      cty.Type
	defaults *typeexpr.Defaults
	nullable bool
	hasDef   bool
	value    cty.Value
	// setAt is where the value in force was given, for error messages.
	setAt       hcl.Range
	validations []validation
	// funcs are the built-in functions validation conditions may call.
	funcs map[string]function.Function
}

// validation is a variable's validation block. Its condition may refer
// only to the variable itself.
type validation struct {
	condition, message hcl.Expression
}

// variables declares input variables and settles their values from, in
// increasing precedence: defaults, TF_VAR_ environment variables,
// terraform.tfvars(.json), *.auto.tfvars(.json), then -var and -var-file in
// the order given.
func (l *loader) variables(blocks []*hcl.Block) {
	decls := map[string]*variableDecl{}
	var order []*variableDecl
	root := &module{l: l, dir: l.dir}
	for _, b := range blocks {
		v := root.variable(b)
		if v != nil {
			decls[v.node.Name] = v
			order = append(order, v)
		}
	}

	for _, kv := range l.opts.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "TF_VAR_") {
			continue
		}
		// Environment variables for undeclared names are ignored, as in
		// Terraform: the environment is shared with other configurations.
		if v, ok := decls[strings.TrimPrefix(name, "TF_VAR_")]; ok {
			l.setRaw(v, val, hcl.Range{Filename: "environment variable " + name})
		}
	}

	var auto []string
	for _, n := range []string{"terraform.tfvars", "terraform.tfvars.json"} {
		if _, err := os.Stat(filepath.Join(l.dir, n)); err == nil {
			auto = append(auto, n)
		}
	}
	entries, _ := os.ReadDir(l.dir)
	var autoGlob []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".auto.tfvars") || strings.HasSuffix(e.Name(), ".auto.tfvars.json") {
			autoGlob = append(autoGlob, e.Name())
		}
	}
	sort.Strings(autoGlob)
	for _, n := range append(auto, autoGlob...) {
		l.varFile(decls, filepath.Join(l.dir, n), n, false)
	}

	for _, a := range l.opts.Vars {
		if a.File != "" {
			l.varFile(decls, a.File, a.File, true)
			continue
		}
		v, ok := decls[a.Name]
		if !ok {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("A variable named %q was assigned on the command line, but the configuration does not declare it. Declare it in a variable block to use it.", a.Name),
			})
			continue
		}
		l.setRaw(v, a.Value, hcl.Range{Filename: "-var " + a.Name})
	}

	for _, v := range order {
		l.finishVariable(v)
	}
}

// reservedVariableNames are the names Terraform refuses for variables:
// they are a module block's meta-arguments.
var reservedVariableNames = map[string]bool{
	"source": true, "version": true, "providers": true, "count": true,
	"for_each": true, "lifecycle": true, "depends_on": true, "locals": true,
}

func (m *module) variable(b *hcl.Block) *variableDecl {
	l := m.l
	name := b.Labels[0]
	n := &config.Node{Kind: config.Variable, Addr: m.prefix("var." + name), Name: name, Module: m.path, DeclRange: b.DefRange}
	if !hclsyntax.ValidIdentifier(name) {
		l.errorf(b.LabelRanges[0], "Invalid variable name", "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.")
		return nil
	}
	if reservedVariableNames[name] {
		l.errorf(b.LabelRanges[0], "Invalid variable name", "The variable name %q is reserved due to its special meaning inside module blocks.", name)
		return nil
	}
	if !l.declare(n) {
		return nil
	}
	v := &variableDecl{node: n, typ: cty.DynamicPseudoType, nullable: true, funcs: l.funcs}
	content, d := b.Body.Content(variableSchema)
	l.diags = append(l.diags, d...)
	if a, ok := content.Attributes["type"]; ok {
		ty, defs, d := typeexpr.TypeConstraintWithDefaults(a.Expr)
		l.diags = append(l.diags, d...)
		if !d.HasErrors() {
			v.typ, v.defaults = ty, defs
		}
	}
	literalBool := func(name string, dst *bool) {
		if a, ok := content.Attributes[name]; ok {
			val, d := a.Expr.Value(nil)
			if d.HasErrors() || val.Type() != cty.Bool || val.IsNull() {
				l.errorf(a.Expr.Range(), "Invalid "+name, "%s must be true or false, written literally.", name)
				return
			}
			*dst = val.True()
		}
	}
	literalBool("sensitive", &n.Sensitive)
	literalBool("nullable", &v.nullable)
	for _, blk := range content.Blocks {
		vc, d := blk.Body.Content(validationSchema)
		l.diags = append(l.diags, d...)
		if d.HasErrors() {
			continue
		}
		cond, msg := vc.Attributes["condition"].Expr, vc.Attributes["error_message"].Expr
		ok := true
		for _, t := range append(cond.Variables(), msg.Variables()...) {
			if names := attrNames(t); len(names) < 2 || names[0] != "var" || names[1] != name {
				l.errorf(t.SourceRange(), "Invalid reference in variable validation",
					"The condition of a validation of variable %q may refer only to var.%s.", name, name)
				ok = false
			}
		}
		if ok {
			v.validations = append(v.validations, validation{cond, msg})
		}
	}
	v.value = cty.NullVal(cty.DynamicPseudoType)
	if a, ok := content.Attributes["default"]; ok {
		val, d := a.Expr.Value(nil)
		l.diags = append(l.diags, d...)
		if !d.HasErrors() {
			v.value, v.hasDef, v.setAt = val, true, a.Expr.Range()
		}
	}
	return v
}

// setRaw sets a variable from a string given outside any file: for a
// primitive type the string is the value; otherwise it is parsed as an
// expression, so that -var 'list=["a","b"]' works as in Terraform.
func (l *loader) setRaw(v *variableDecl, raw string, at hcl.Range) {
	if v.typ.IsPrimitiveType() || v.typ == cty.DynamicPseudoType {
		v.value, v.setAt, v.hasDef = cty.StringVal(raw), at, true
		return
	}
	expr, d := hclsyntax.ParseExpression([]byte(raw), at.Filename, hcl.InitialPos)
	if d.HasErrors() {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid value for variable %q", v.node.Name),
			Detail:   fmt.Sprintf("The value given by %s is not a valid expression: %s", at.Filename, d.Error()),
		})
		return
	}
	val, d := expr.Value(nil)
	if d.HasErrors() {
		l.diags = append(l.diags, d...)
		return
	}
	v.value, v.setAt, v.hasDef = val, at, true
}

func (l *loader) varFile(decls map[string]*variableDecl, path, display string, explicit bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read variables file", Detail: err.Error()})
		return
	}
	p := hclparse.NewParser()
	var f *hcl.File
	var d hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		f, d = p.ParseJSON(src, display)
	} else {
		f, d = p.ParseHCL(src, display)
	}
	l.cfg.Sources[display] = src
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	attrs, d := f.Body.JustAttributes()
	l.diags = append(l.diags, d...)
	for _, a := range sortedAttrs(attrs) {
		v, ok := decls[a.Name]
		if !ok {
			sev := hcl.DiagWarning
			if explicit {
				sev = hcl.DiagError
			}
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: sev,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("The variables file sets %q, but the configuration declares no variable of that name.", a.Name),
				Subject:  a.NameRange.Ptr(),
			})
			continue
		}
		val, d := a.Expr.Value(nil)
		l.diags = append(l.diags, d...)
		if !d.HasErrors() {
			v.value, v.setAt, v.hasDef = val, a.Expr.Range(), true
		}
	}
}

func (l *loader) finishVariable(v *variableDecl) {
	n := v.node
	if !v.hasDef {
		l.errorf(n.DeclRange, "No value for required variable",
			"The input variable %q is not set and has no default. Set it with -var %s=VALUE, in a .tfvars file, or with the environment variable TF_VAR_%s.",
			n.Name, n.Name, n.Name)
		return
	}
	rng := v.setAt
	if rng.Start.Line == 0 {
		rng = n.DeclRange
	}
	val, diags := v.convert(v.value, rng)
	if diags.HasErrors() && v.setAt.Start.Line == 0 {
		for _, d := range diags {
			d.Detail = fmt.Sprintf("%s (value given by %s)", d.Detail, v.setAt.Filename)
		}
	}
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	n.Eval = func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) { return val, nil }
}

// convert brings a value to the variable's type, applies defaults and
// checks nullability and validations; the result is marked sensitive when
// the variable is.
func (v *variableDecl) convert(val cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	n := v.node
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	conv, err := convert.Convert(val, v.typ)
	if err != nil {
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid value for variable %q", n.Name),
			Detail:   fmt.Sprintf("The value does not match the variable's type %s: %s.", typeexpr.TypeString(v.typ), err),
			Subject:  rng.Ptr(),
		}}
	}
	if conv.IsNull() && !v.nullable {
		return cty.DynamicVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Required variable not set",
			Detail: fmt.Sprintf("The variable %q is not nullable, but its value is null.", n.Name), Subject: rng.Ptr()}}
	}
	if n.Sensitive {
		conv = conv.Mark(marks.Sensitive)
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{n.Name: conv})}, Functions: v.funcs}
	for _, vd := range v.validations {
		ok, d := vd.condition.Value(ctx)
		if d.HasErrors() {
			return cty.DynamicVal, d
		}
		ok, _ = ok.Unmark()
		if !ok.IsKnown() || ok.IsNull() {
			continue
		}
		if b, err := convert.Convert(ok, cty.Bool); err == nil && b.False() {
			msg := "The value fails this validation."
			if mv, d := vd.message.Value(ctx); !d.HasErrors() && mv.Type() == cty.String && mv.IsKnown() && !mv.IsNull() && !marks.ContainsSensitive(mv) {
				msg = mv.AsString()
			}
			return cty.DynamicVal, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Invalid value for variable %q", n.Name),
				Detail:   msg + fmt.Sprintf("\n\nThis was checked by the validation rule at %s.", rangeString(vd.condition.Range())),
				Subject:  rng.Ptr(),
			}}
		}
	}
	return conv, nil
}
