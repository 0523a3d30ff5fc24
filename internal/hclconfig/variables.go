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

var validationSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}}}

// variableDecl is a declared input variable while its value is worked out.
type variableDecl struct {
	node     *config.Node
	typ      cty.Type
	defaults *typeexpr.Defaults
	nullable bool
	hasDef   bool
	value    cty.Value
	// def is the default, cty.NilVal when there is none: a null given to
	// a variable that is not nullable takes it, as in Terraform.
	def   cty.Value
	defAt hcl.Range
	// setAt is where the value in force was given, for error messages.
	setAt       hcl.Range
	validations []validation
	// traversals are what the validations refer to besides the variable
	// itself; refs are those resolved, once every declaration is known.
	traversals []hcl.Traversal
	refs       []evalRef
	// description is the declaration's description, for generated
	// bindings (see ReadInterface).
	description string
}

// validation is a variable's validation block. As in Terraform 1.9, its
// condition and message may refer to anything in the variable's module
// (other variables, locals, resources, data sources, module outputs): the
// variable then waits for those, and a condition not known yet is checked
// again during apply.
type validation struct {
	condition, message hcl.Expression
	block              hcl.Range
}

// variables declares input variables and settles their values from, in
// increasing precedence: defaults, TF_VAR_ environment variables,
// terraform.tfvars(.json), *.auto.tfvars(.json), then -var and -var-file in
// the order given.
func (m *module) variables(blocks []*hcl.Block) {
	l := m.l
	decls := map[string]*variableDecl{}
	var order []*variableDecl
	for _, b := range blocks {
		v := m.variable(b)
		if v != nil {
			decls[v.node.Name] = v
			order = append(order, v)
		}
	}
	if l.opts.UnknownVariables {
		for _, v := range order {
			m.unknownVariable(v)
		}
		return
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
		l.varFile(decls, filepath.Join(l.dir, n), n)
	}

	for _, a := range l.opts.Vars {
		if a.File != "" {
			l.varFile(decls, a.File, a.File)
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

	if l.opts.Ask != nil {
		// As Terraform: each required variable still unset, in lexical
		// order, before any is checked.
		for _, name := range sortedKeysOf(decls) {
			v := decls[name]
			if v.hasDef {
				continue
			}
			query := "var." + name
			if v.node.Ephemeral {
				query += " (ephemeral)"
			}
			if raw, ok := l.opts.Ask(query, v.description); ok {
				l.setRaw(v, raw, hcl.Range{Filename: "the answer for var." + name})
			}
		}
	}

	for _, v := range order {
		m.finishVariable(v)
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
	m.terraformBlock(n, b.Body, &variableArgs)
	v := &variableDecl{node: n, typ: cty.DynamicPseudoType, nullable: true, def: cty.NilVal}
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
	if a, ok := content.Attributes["description"]; ok {
		if val, d := a.Expr.Value(nil); !d.HasErrors() && val.Type() == cty.String && val.IsKnown() && !val.IsNull() {
			v.description = val.AsString()
		}
	}
	literalBool("sensitive", &n.Sensitive)
	literalBool("nullable", &v.nullable)
	literalBool("ephemeral", &n.Ephemeral)
	for _, blk := range content.Blocks {
		vc, d := blk.Body.Content(validationSchema)
		l.diags = append(l.diags, d...)
		if d.HasErrors() {
			continue
		}
		cond, msg := vc.Attributes["condition"].Expr, vc.Attributes["error_message"].Expr
		if len(cond.Variables()) == 0 {
			l.errorf(cond.Range(), "Invalid validation expression", constantCondition)
		}
		self := false
		for _, t := range cond.Variables() {
			if names := attrNames(t); len(names) >= 2 && names[0] == "var" && names[1] == name {
				self = true
			}
		}
		if !self {
			// Terraform 1.11 still requires it, with other references
			// allowed beside it.
			l.errorf(cond.Range(), "Invalid variable validation condition",
				"The condition for variable %q must refer to var.%s in order to test incoming values.", name, name)
		}
		for _, t := range append(cond.Variables(), msg.Variables()...) {
			if names := attrNames(t); len(names) >= 2 && names[0] == "var" && names[1] == name {
				continue // the value being validated, bound at evaluation
			}
			v.traversals = append(v.traversals, t)
		}
		v.validations = append(v.validations, validation{cond, msg, blk.DefRange})
	}
	v.value = cty.NullVal(cty.DynamicPseudoType)
	if a, ok := content.Attributes["default"]; ok {
		val, d := a.Expr.Value(nil)
		l.diags = append(l.diags, d...)
		if !d.HasErrors() {
			v.value, v.hasDef, v.setAt, v.def, v.defAt = val, true, a.Expr.Range(), val, a.Expr.Range()
		}
	}
	n.Syntax = &config.Syntax{Decl: &config.SyntaxDecl{Description: v.description, Default: convertedDefault(v)}}
	return v
}

// convertedDefault is a variable's default as Terraform records it in a
// configuration: the type's optional attribute defaults applied, then
// converted to the type. cty.NilVal when there is no default, or it does
// not convert (an error reported where the variable is evaluated).
func convertedDefault(v *variableDecl) cty.Value {
	if v.def == cty.NilVal {
		return cty.NilVal
	}
	val := v.def
	if v.defaults != nil && !val.IsNull() {
		val = v.defaults.Apply(val)
	}
	val, err := convert.Convert(val, v.typ)
	if err != nil {
		return cty.NilVal
	}
	return val
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
			Summary:  "Invalid value for input variable",
			Detail:   fmt.Sprintf("The value %s gives for variable %q is not a valid expression: %s.", at.Filename, v.node.Name, strings.TrimSuffix(d.Error(), ".")),
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

// varFile sets variables from a .tfvars or .tfvars.json file, named
// display in messages.
func (l *loader) varFile(decls map[string]*variableDecl, path, display string) {
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
			// A warning, as in Terraform, whether the file was given
			// with -var-file or read on its own: one file often serves
			// several configurations. (-var NAME=... is an error.)
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
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

// unknownVariable gives a root variable an unknown value of its type, as
// terraform validate takes every input variable: nothing is read from the
// environment, files or the command line, and none is required.
func (m *module) unknownVariable(v *variableDecl) {
	n := v.node
	val := cty.UnknownVal(v.typ.WithoutOptionalAttributesDeep())
	if n.Sensitive {
		val = val.Mark(marks.Sensitive)
	}
	if n.Ephemeral {
		val = val.Mark(marks.Ephemeral)
	}
	n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) { return val, nil })
	m.validate(v, n.DeclRange)
}

func (m *module) finishVariable(v *variableDecl) {
	l := m.l
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
	n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) { return val, nil })
	if v.def != cty.NilVal && v.setAt == v.defAt {
		// A failed validation of a default points at the declaration, as
		// in Terraform.
		rng = n.DeclRange
	}
	m.validate(v, rng)
}

// convert brings a value to the variable's type and applies defaults: the
// type's optional attributes' defaults, and the variable's default in
// place of a null when the variable is not nullable. The result is marked
// sensitive when the variable is.
func (v *variableDecl) convert(val cty.Value, rng hcl.Range) (cty.Value, hcl.Diagnostics) {
	n := v.node
	if v.defaults != nil && !val.IsNull() {
		val = v.defaults.Apply(val)
	}
	conv, err := convert.Convert(val, v.typ)
	if err != nil {
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid value for input variable",
			Detail:   fmt.Sprintf("The value for variable %q does not match its type %s: %s.", n.Name, typeexpr.TypeString(v.typ), err),
			Subject:  rng.Ptr(),
		}}
	}
	if conv.IsNull() && !v.nullable {
		if v.def == cty.NilVal {
			return cty.DynamicVal, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Required variable not set",
				Detail:   fmt.Sprintf("The variable %q is not nullable and has no default, so it may not be set to null.", n.Name),
				Subject:  rng.Ptr(),
			}}
		}
		def := v.def
		if v.defaults != nil && !def.IsNull() {
			def = v.defaults.Apply(def)
		}
		if conv, err = convert.Convert(def, v.typ); err != nil {
			return cty.DynamicVal, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid default value for variable",
				Detail:   fmt.Sprintf("The default of variable %q does not match its type %s: %s.", n.Name, typeexpr.TypeString(v.typ), err),
				Subject:  n.DeclRange.Ptr(),
			}}
		}
	}
	if n.Sensitive {
		conv = conv.Mark(marks.Sensitive)
	}
	switch {
	case n.Ephemeral:
		// Inside its module an ephemeral variable's value is ephemeral,
		// whatever it was given, as in Terraform.
		conv = conv.Mark(marks.Ephemeral)
	case marks.ContainsEphemeral(conv):
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Ephemeral value not allowed",
			Detail:   fmt.Sprintf("The variable %q is not declared as accepting ephemeral values, so it cannot be set to a result derived from an ephemeral value. Declare it with ephemeral = true.", n.Name),
			Subject:  rng.Ptr(),
		}}
	}
	return conv, nil
}

// validate makes the variable's validation rules its Postconditions, which
// the engine checks in the variable's own module instance with self bound
// to the value; rng is where the value was given, where a failure points.
func (m *module) validate(v *variableDecl, rng hcl.Range) {
	n := v.node
	if len(v.validations) == 0 || n.Postconditions != nil {
		return
	}
	for _, vd := range v.validations {
		n.Postconditions = append(n.Postconditions, config.Condition{
			Range: rng,
			Eval: func(scope config.Scope, _ config.Instance, self cty.Value) (cty.Value, string, hcl.Diagnostics) {
				return m.validation(v, vd, scope, self)
			},
		})
	}
	m.l.later(func() { v.refs = m.refs(n, v.traversals, "", true) })
}

// validation evaluates one validation rule against the value self. It
// returns whether the rule holds (unknown when it cannot be decided yet)
// and, when it does not, the whole message to show.
func (m *module) validation(v *variableDecl, vd validation, scope config.Scope, self cty.Value) (cty.Value, string, hcl.Diagnostics) {
	ctx := m.evalContext(v.refs, scope, config.NoInstance, cty.NilVal)
	vars := map[string]cty.Value{}
	if o, ok := ctx.Variables["var"]; ok {
		vars = o.AsValueMap()
	}
	vars[v.node.Name] = self
	ctx.Variables["var"] = cty.ObjectVal(vars)
	ok, diags := vd.condition.Value(ctx)
	if diags.HasErrors() {
		return cty.UnknownVal(cty.Bool), "", diags
	}
	ok, _ = ok.Unmark()
	if !ok.IsKnown() {
		return ok, "", nil
	}
	if ok.IsNull() {
		return cty.UnknownVal(cty.Bool), "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid variable validation result",
			Detail:   "Validation condition expression must return either true or false, not null.",
			Subject:  vd.condition.Range().Ptr(),
		}}
	}
	b, err := convert.Convert(ok, cty.Bool)
	if err != nil {
		return cty.UnknownVal(cty.Bool), "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid variable validation result",
			Detail:   fmt.Sprintf("Invalid validation condition result value: %s.", err),
			Subject:  vd.condition.Range().Ptr(),
		}}
	}
	if b.True() {
		return b, "", nil
	}
	msg := "Failed to evaluate condition error message."
	mv, d := vd.message.Value(ctx)
	switch {
	case d.HasErrors():
		diags = append(diags, d...)
	case !mv.IsKnown():
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid error message",
			Detail:   "Unsuitable value for error message: expression refers to values that won't be known until the apply phase.",
			Subject:  vd.message.Range().Ptr(),
		})
	case marks.ContainsSensitive(mv):
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Error message refers to sensitive values",
			Detail:   "The error expression used to explain this condition refers to sensitive values, so it is not shown. Remove the references to sensitive values, or use nonsensitive() where the message cannot reveal them.",
			Subject:  vd.message.Range().Ptr(),
		})
		msg = "The error message included a sensitive value, so it will not be displayed."
	case marks.ContainsEphemeral(mv):
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Error message refers to ephemeral values",
			Detail:   "The error expression used to explain this condition refers to ephemeral values, so it is not shown. Remove the references to ephemeral values, or use ephemeralasnull() where the message cannot reveal them.",
			Subject:  vd.message.Range().Ptr(),
		})
		msg = "The error message included an ephemeral value, so it will not be displayed."
	default:
		if s, err := convert.Convert(mv, cty.String); err == nil && !s.IsNull() {
			msg = strings.TrimSpace(s.AsString())
		}
	}
	return b, msg + fmt.Sprintf("\n\nThis was checked by the validation rule at %s.", vd.block), diags
}
