package tftest

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/funcs"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
)

// scopeSource is what a test expression's references read.
type scopeSource struct {
	fr *fileRun
	// out is the run's outcome; nil for variables blocks, which read
	// only earlier runs and the file's variables.
	out *Outcome
	// vars are the test's variables: the file's, and the run's over them.
	vars map[string]cty.Value
	// declared holds the root addresses of out's configuration.
	declared map[string]bool
}

func newScopeSource(fr *fileRun, out *Outcome, vars map[string]cty.Value) *scopeSource {
	s := &scopeSource{fr: fr, out: out, vars: vars, declared: map[string]bool{}}
	if out != nil && out.Config != nil {
		for _, n := range out.Config.Nodes {
			if n.Module == "" {
				s.declared[n.Addr] = true
			}
		}
	}
	return s
}

func refDiag(t hcl.Traversal, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: t.SourceRange().Ptr()}
}

// context is the evaluation context of expr: every reference it makes,
// checked and given its value.
func (s *scopeSource) context(dir string, expr hcl.Expression) (*hcl.EvalContext, hcl.Diagnostics) {
	return s.contextFor(dir, expr.Variables())
}

// contextFor is the evaluation context of the references refs.
func (s *scopeSource) contextFor(dir string, refs []hcl.Traversal) (*hcl.EvalContext, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	root := map[string]map[string]any{}
	put := func(path []string, v cty.Value) {
		m, ok := root[path[0]]
		if !ok {
			m = map[string]any{}
			root[path[0]] = m
		}
		for _, step := range path[1 : len(path)-1] {
			next, ok := m[step].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[step] = next
			}
			m = next
		}
		m[path[len(path)-1]] = v
	}
	for _, t := range refs {
		names := attrNames(t)
		if len(names) < 2 {
			diags = append(diags, refDiag(t, "Invalid reference", fmt.Sprintf("A reference to %s must name an object after it.", t.RootName())))
			continue
		}
		switch names[0] {
		case "run":
			if v, ok := s.fr.outputs[names[1]]; ok {
				put(names[:2], v)
			} else {
				diags = append(diags, refDiag(t, "Reference to unknown run block", fmt.Sprintf("The run block %q does not exist within this test file. You can only reference run blocks that are in the same test file and will execute before the current run block.", names[1])))
			}
			continue
		case "var":
			if s.out != nil && s.declared["var."+names[1]] {
				put(names[:2], s.value("var."+names[1]))
			} else if v, ok := s.vars[names[1]]; ok {
				put(names[:2], v)
			} else {
				diags = append(diags, refDiag(t, "Reference to undeclared input variable", fmt.Sprintf("An input variable with the name %q has not been declared. This variable can be declared with a variable %q {} block.", names[1], names[1])))
			}
			continue
		}
		if s.out == nil {
			diags = append(diags, refDiag(t, "Invalid reference", fmt.Sprintf("A variables block may refer only to var and run, not to %s.", names[0])))
			continue
		}
		var addr string
		var path []string
		switch names[0] {
		case "output", "local", "check":
			addr, path = names[0]+"."+names[1], names[:2]
		case "data":
			if len(names) < 3 {
				diags = append(diags, refDiag(t, "Invalid reference", "A data source is referred to as data.TYPE.NAME."))
				continue
			}
			addr, path = strings.Join(names[:3], "."), names[:3]
		case "module":
			if len(names) < 3 {
				diags = append(diags, refDiag(t, "Invalid reference", "A module's output is referred to as module.NAME.OUTPUT."))
				continue
			}
			addr, path = "module."+names[1]+".output."+names[2], names[:3]
		case "path", "terraform", "count", "each", "self":
			diags = append(diags, refDiag(t, "Invalid reference", fmt.Sprintf("tether test does not give %s values to test expressions.", names[0])))
			continue
		default:
			addr, path = names[0]+"."+names[1], names[:2]
		}
		if !s.declared[addr] {
			diags = append(diags, undeclared(t, names))
			continue
		}
		put(path, s.value(addr))
	}
	vars := map[string]cty.Value{}
	for k, m := range root {
		vars[k] = objectOf(m)
	}
	return &hcl.EvalContext{Variables: vars, Functions: funcs.Table(dir)}, diags
}

// undeclared is the error for a reference to something the root module
// does not declare, in terraform test's words.
func undeclared(t hcl.Traversal, names []string) *hcl.Diagnostic {
	switch names[0] {
	case "output":
		return refDiag(t, "Reference to undeclared output value", fmt.Sprintf("An output value with the name %q has not been declared.", names[1]))
	case "local":
		return refDiag(t, "Reference to undeclared local value", fmt.Sprintf("A local value with the name %q has not been declared.", names[1]))
	case "check":
		return refDiag(t, "Reference to undeclared check block", fmt.Sprintf("A check block with the name %q has not been declared.", names[1]))
	case "module":
		return refDiag(t, "Reference to undeclared module", fmt.Sprintf("No module call named %q with an output %q is declared in the root module.", names[1], names[2]))
	case "data":
		return refDiag(t, "Reference to undeclared resource", fmt.Sprintf("A data resource %q %q has not been declared in the root module.", names[1], names[2]))
	}
	return refDiag(t, "Reference to undeclared resource", fmt.Sprintf("A managed resource %q %q has not been declared in the root module.", names[0], names[1]))
}

func (s *scopeSource) value(addr string) cty.Value {
	if s.out == nil || s.out.Scope == nil {
		return cty.DynamicVal
	}
	return s.out.Scope.Value(addr)
}

func objectOf(m map[string]any) cty.Value {
	attrs := make(map[string]cty.Value, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case cty.Value:
			attrs[k] = x
		case map[string]any:
			attrs[k] = objectOf(x)
		}
	}
	return cty.ObjectVal(attrs)
}

// providerConfigs are the file's provider blocks as Step.Providers
// wants them: each decoded, when its schema is known, with the test's
// variables and the earlier runs' outputs.
func (r *Runner) providerConfigs(fr *fileRun, vars map[string]cty.Value) map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics) {
	if len(fr.f.Providers) == 0 {
		return nil
	}
	src := newScopeSource(fr, nil, vars)
	out := map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics){}
	for _, p := range fr.f.Providers {
		out[p.Name] = func(b *provider.Block) (cty.Value, hcl.Diagnostics) {
			refs, decode := hclconfig.SchemaBody(p.Body, b)
			ctx, diags := src.contextFor(r.Dir, refs)
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			v, d := decode(ctx)
			return v, append(diags, d...)
		}
	}
	return out
}

// attrNames is the traversal's root and the attribute names that follow
// it, up to the first index.
func attrNames(t hcl.Traversal) []string {
	names := []string{t.RootName()}
	for _, step := range t[1:] {
		a, ok := step.(hcl.TraverseAttr)
		if !ok {
			break
		}
		names = append(names, a.Name)
	}
	return names
}

// evalVariables evaluates a variables block: its expressions may read
// earlier runs' outputs and the file's variables (base).
func (r *Runner) evalVariables(fr *fileRun, exprs map[string]hcl.Expression, base map[string]cty.Value) (map[string]cty.Value, hcl.Diagnostics) {
	out := map[string]cty.Value{}
	var diags hcl.Diagnostics
	src := newScopeSource(fr, nil, base)
	for _, name := range sortedNames(exprs) {
		e := exprs[name]
		ctx, d := src.context(r.Dir, e)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		v, d := e.Value(ctx)
		diags = append(diags, d...)
		out[name] = v
	}
	return out, diags
}

// assert checks the run's assert blocks against its outcome.
func (r *Runner) assert(fr *fileRun, run *Run, out Outcome, vars map[string]cty.Value) (Status, hcl.Diagnostics) {
	st := pass
	var diags hcl.Diagnostics
	worse := func(s Status) {
		if s > st {
			st = s
		}
	}
	src := newScopeSource(fr, &out, vars)
	for _, a := range run.Asserts {
		ctx, d := src.context(r.Dir, a.Condition)
		diags = append(diags, d...)
		if d.HasErrors() {
			worse(errored)
			continue
		}
		v, d := a.Condition.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			worse(errored)
			continue
		}
		bad := func(summary, detail string) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail,
				Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx})
			worse(errored)
		}
		v, _ = v.UnmarkDeep()
		switch {
		case v.IsNull():
			bad("Invalid condition run", "Condition expression must return either true or false, not null.")
			continue
		case !v.IsKnown():
			bad("Unknown condition value", "Condition expression could not be evaluated at this time. This means you have executed a `run` block with `command = plan` and one of the values your condition depended on is not known until after the plan has been applied. Either remove this value from your condition, or execute an `apply` command from this `run` block. Alternatively, if there is an override for this value, you can make it available during the plan phase by setting `override_during = plan` in the `override_` block.")
			continue
		}
		b, err := convert.Convert(v, cty.Bool)
		if err != nil {
			bad("Invalid condition run", fmt.Sprintf("Invalid condition run value: %s.", err))
			continue
		}
		if b.True() {
			continue
		}
		msg := r.errorMessage(src, a.ErrorMessage, &diags)
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Test assertion failed", Detail: msg,
			Subject: a.Condition.Range().Ptr(), Expression: a.Condition, EvalContext: ctx})
		worse(fail)
	}
	return st, diags
}

// errorMessage is an assert's error_message as a string.
func (r *Runner) errorMessage(src *scopeSource, e hcl.Expression, diags *hcl.Diagnostics) string {
	ctx, d := src.context(r.Dir, e)
	if d.HasErrors() {
		*diags = append(*diags, d...)
		return "(the error message could not be evaluated)"
	}
	v, d := e.Value(ctx)
	*diags = append(*diags, d...)
	v, _ = v.UnmarkDeep()
	if s, err := convert.Convert(v, cty.String); err == nil && s.IsKnown() && !s.IsNull() {
		return s.AsString()
	}
	return "(the error message is not a known string)"
}

// expectFailures applies the run's expect_failures to its outcome's
// diagnostics, as terraform test does: a failure of a listed object's
// custom conditions is what the run wants (but at planning, for a run
// that applies, it still stops the run); a listed object that reported
// no failure is an error, and so is a check block's assertion that no
// entry lists (a warning outside tests).
func expectFailures(run *Run, out Outcome) hcl.Diagnostics {
	expected := map[string]bool{}
	ranges := map[string]hcl.Range{}
	var order []string
	for _, t := range run.ExpectFailures {
		a := strings.Join(attrNames(t), ".")
		if _, dup := expected[a]; !dup {
			order = append(order, a)
		}
		expected[a], ranges[a] = false, t.SourceRange()
	}
	var diags hcl.Diagnostics
	for _, d := range out.PlanDiags {
		a := failedObject(d)
		_, ok := expected[a]
		switch check := isAssertion(d); {
		case check && !run.Plan:
			// An apply run's check results are its apply's: terraform
			// test drops the plan's, which the apply reports again (or
			// no longer).
		case check && ok:
			expected[a] = true
		case check:
			diags = append(diags, asError(d))
		case !ok || d.Severity == hcl.DiagWarning:
			// A warning of a listed object is not its failure.
			diags = append(diags, d)
		case run.Plan:
			expected[a] = true
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Expected failure while planning",
				Detail:  fmt.Sprintf("A custom condition within %s failed during the planning stage and prevented the requested apply operation. While this was an expected failure, the apply operation could not be executed and so the overall test case will be marked as a failure and the original diagnostic included in the test report.", a),
				Subject: d.Subject}, d)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	for _, d := range out.ApplyDiags {
		a := failedObject(d)
		_, ok := expected[a]
		switch check := isAssertion(d); {
		case ok && (check || d.Severity == hcl.DiagError):
			expected[a] = true
		case check:
			diags = append(diags, asError(d))
		default:
			diags = append(diags, d)
		}
	}
	for _, a := range order {
		if !expected[a] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing expected failure",
				Detail: fmt.Sprintf("The checkable object, %s, was expected to report an error but did not.", a), Subject: ranges[a].Ptr()})
		}
	}
	return diags
}

// isAssertion reports whether d reports a check block's assertion (a
// warning), which terraform test takes for an error unless the run
// expects it to fail.
func isAssertion(d *hcl.Diagnostic) bool {
	_, kind, ok := diagnostic.CheckRuleOf(d)
	return ok && kind == diagnostic.Assertion
}

// asError is d as an error.
func asError(d *hcl.Diagnostic) *hcl.Diagnostic {
	e := *d
	e.Severity = hcl.DiagError
	return &e
}

// failedObject is the root object (var.x, tether_file.a, output.o,
// check.c) whose custom condition d reports, or "": the engine marks
// those diagnostics (diagnostic.MarkCheckRule), as Terraform marks its
// check rules' for terraform test.
func failedObject(d *hcl.Diagnostic) string {
	a, _, ok := diagnostic.CheckRuleOf(d)
	if !ok {
		return ""
	}
	if i := strings.IndexByte(a, '['); i >= 0 {
		a = a[:i]
	}
	return a
}
