package hclconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/funcs"
	"github.com/tetherhq/tether/internal/marks"
)

// backendTopSchema are the blocks Backend reads.
var backendTopSchema = topBlocks("terraform", "variable", "locals")

// Backend reads the root module's backend block, nil when there is none.
//
// Its arguments may refer to input variables and locals whose values are
// known before anything is planned (from -var, -var-file, TF_VAR_,
// .tfvars files and defaults), as OpenTofu 1.8 allows; Terraform refuses
// any reference there. Anything else (a resource, a data source, a module)
// is an error at the reference.
func Backend(dir string, opts Options) (*config.Backend, hcl.Diagnostics) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()}}
	}
	// A folder with no configuration files (a Go program's) has no
	// backend block; a command that needs a configuration says so itself.
	if names, err := configFiles(abs); err == nil && len(names) == 0 {
		return nil, nil
	}
	l := &loader{dir: abs, opts: opts, cfg: &config.Config{Sources: map[string][]byte{}}, funcs: funcs.Table(abs), decls: map[string]*config.Node{}, backendOnly: true}
	m := &module{l: l, dir: abs}
	files, diags := l.parse(abs)
	if diags.HasErrors() {
		return nil, diags
	}
	var blocks []*hcl.Block
	for _, f := range files {
		content, _, _ := f.Body.PartialContent(backendTopSchema)
		blocks = append(blocks, content.Blocks...)
	}
	var found []*hcl.Block
	var varBlocks []*hcl.Block
	locals := map[string]*hcl.Attribute{}
	for _, b := range blocks {
		switch b.Type {
		case "terraform":
			content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "backend", LabelNames: []string{"type"}}}})
			found = append(found, content.Blocks...)
		case "variable":
			varBlocks = append(varBlocks, b)
		case "locals":
			attrs, _ := b.Body.JustAttributes()
			for n, a := range attrs {
				locals[n] = a
			}
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	if len(found) > 1 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Duplicate backend configuration",
			Detail:   fmt.Sprintf("A module may have only one backend configuration. The backend was previously configured at %s.", rangeString(found[0].DefRange)),
			Subject:  found[1].DefRange.Ptr(),
		}}
	}
	b := found[0]
	args, ok := config.BackendArguments[b.Labels[0]]
	if !ok {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unsupported backend type",
			Detail:   fmt.Sprintf("There is no backend type named %q in Tether. Tether supports the %s backends.", b.Labels[0], config.BackendTypes()),
			Subject:  b.LabelRanges[0].Ptr(),
		}}
	}
	schema := &hcl.BodySchema{}
	for name := range args {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: name})
	}
	if diags := config.TerraformOnly(b.Labels[0], b.Body); diags.HasErrors() {
		return nil, diags
	}
	content, diags := b.Body.Content(schema)
	if diags.HasErrors() {
		return nil, diags
	}
	ev := &backendEval{m: m, varBlocks: varBlocks, locals: locals, localVals: map[string]cty.Value{}, busy: map[string]bool{}}
	be := &config.Backend{Type: b.Labels[0], Settings: map[string]string{}, Ranges: map[string]hcl.Range{}, DeclRange: b.DefRange}
	for _, a := range sortedAttrs(content.Attributes) {
		v, d := ev.value(a.Expr)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		s, d := config.BackendSetting(v, args[a.Name], a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			be.Settings[a.Name], be.Ranges[a.Name] = s, a.Expr.Range()
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return be, diags
}

// backendEval evaluates the backend's arguments: only variables and
// locals are in scope, each worked out once, on first use.
type backendEval struct {
	m         *module
	varBlocks []*hcl.Block
	varsDone  bool
	locals    map[string]*hcl.Attribute
	localVals map[string]cty.Value
	busy      map[string]bool // locals being evaluated, to catch cycles
}

func (e *backendEval) value(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vars, locals := map[string]cty.Value{}, map[string]cty.Value{}
	for _, t := range expr.Variables() {
		names := attrNames(t)
		if len(names) < 2 || (names[0] != "var" && names[0] != "local") {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid reference in backend configuration",
				Detail:   "The backend configuration is read before anything is planned, so it may refer only to input variables (var.NAME) and locals (local.NAME) whose values are known then.",
				Subject:  t.SourceRange().Ptr(),
			})
			continue
		}
		var v cty.Value
		var d hcl.Diagnostics
		if names[0] == "var" {
			v, d = e.variable(names[1], t.SourceRange())
			vars[names[1]] = v
		} else {
			v, d = e.local(names[1], t.SourceRange())
			locals[names[1]] = v
		}
		diags = append(diags, d...)
	}
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(vars), "local": cty.ObjectVal(locals)},
		Functions: e.m.l.funcs,
	}
	v, d := expr.Value(ctx)
	return v, append(diags, d...)
}

// variable settles the module's input variables (once) and returns one.
func (e *backendEval) variable(name string, at hcl.Range) (cty.Value, hcl.Diagnostics) {
	l := e.m.l
	if !e.varsDone {
		e.varsDone = true
		e.m.variables(e.varBlocks)
	}
	n, ok := l.decls["var."+name]
	if !ok {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared input variable",
			Detail:   fmt.Sprintf("An input variable with the name %q has not been declared.", name),
			Subject:  at.Ptr(),
		}}
	}
	if n.Eval == nil {
		// Settling it failed: say why, leaving out what concerns
		// other variables (the full load reports those).
		var diags hcl.Diagnostics
		for _, d := range l.diags {
			if d.Severity == hcl.DiagError && d.Summary != "Value for undeclared variable" && strings.Contains(d.Detail+d.Summary, name) {
				diags = append(diags, d)
			}
		}
		if len(diags) == 0 {
			diags = hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable", Detail: fmt.Sprintf("The variable %q used in the backend configuration has no valid value.", name), Subject: at.Ptr()}}
		}
		return cty.NilVal, diags
	}
	v, d := n.Eval.Evaluate(nil, config.Instance{})
	v, _ = marks.Unmark(v)
	return v, d
}

// local evaluates a local value the backend uses, and the variables and
// locals it uses in turn.
func (e *backendEval) local(name string, at hcl.Range) (cty.Value, hcl.Diagnostics) {
	if v, ok := e.localVals[name]; ok {
		return v, nil
	}
	a, ok := e.locals[name]
	if !ok {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared local value",
			Detail:   fmt.Sprintf("A local value with the name %q has not been declared.", name),
			Subject:  at.Ptr(),
		}}
	}
	if e.busy[name] {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cycle in local values",
			Detail:   fmt.Sprintf("The local value %q depends on itself.", name),
			Subject:  at.Ptr(),
		}}
	}
	e.busy[name] = true
	defer delete(e.busy, name)
	v, diags := e.value(a.Expr)
	if !diags.HasErrors() {
		e.localVals[name] = v
	}
	return v, diags
}
