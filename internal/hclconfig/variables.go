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

// variableDecl is a declared input variable while its value is worked out.
type variableDecl struct {
	node     *config.Node
	typ      cty.Type
	defaults *typeexpr.Defaults
	nullable bool
	hasDef   bool
	value    cty.Value
	// setAt is where the value in force was given, for error messages.
	setAt hcl.Range
}

// variables declares input variables and settles their values from, in
// increasing precedence: defaults, TF_VAR_ environment variables,
// terraform.tfvars(.json), *.auto.tfvars(.json), then -var and -var-file in
// the order given.
func (l *loader) variables(blocks []*hcl.Block) {
	decls := map[string]*variableDecl{}
	var order []*variableDecl
	for _, b := range blocks {
		v := l.variable(b)
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

func (l *loader) variable(b *hcl.Block) *variableDecl {
	name := b.Labels[0]
	n := &config.Node{Kind: config.Variable, Addr: "var." + name, Name: name, DeclRange: b.DefRange}
	if !hclsyntax.ValidIdentifier(name) {
		l.errorf(b.LabelRanges[0], "Invalid variable name", "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.")
		return nil
	}
	if !l.declare(n) {
		return nil
	}
	v := &variableDecl{node: n, typ: cty.DynamicPseudoType, nullable: true}
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
		l.errorf(blk.DefRange, "validation blocks are not supported yet", "Variable validation is not available in this version of Tether.")
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
	val := v.value
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	conv, err := convert.Convert(val, v.typ)
	if err != nil {
		rng := v.setAt
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Invalid value for variable %q", n.Name),
			Detail:   fmt.Sprintf("The value does not match the variable's type %s: %s.", typeexpr.TypeString(v.typ), err),
		}
		if rng.Start.Line > 0 {
			d.Subject = rng.Ptr()
		} else {
			d.Detail = fmt.Sprintf("The value given by %s does not match the variable's type %s: %s.", rng.Filename, typeexpr.TypeString(v.typ), err)
			d.Subject = n.DeclRange.Ptr()
		}
		l.diags = append(l.diags, d)
		return
	}
	if conv.IsNull() && !v.nullable {
		l.errorf(n.DeclRange, "Required variable not set", "The variable %q is not nullable, but its value is null.", n.Name)
		return
	}
	if n.Sensitive {
		conv = conv.Mark(marks.Sensitive)
	}
	n.Eval = func(config.Scope) (cty.Value, hcl.Diagnostics) { return conv, nil }
}
