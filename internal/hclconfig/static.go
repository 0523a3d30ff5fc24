package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/funcs"
	"github.com/tetherhq/tether/internal/marks"
)

// ResolveModule returns the folder of a module call's module, installing
// it first when needed. key is the call names from the root joined with
// dots; source and version are evaluated; parentDir is the calling
// module's folder.
type ResolveModule func(key, source, version, parentDir string) (string, error)

// Modules walks the module calls of the configuration in dir from the
// root down and asks resolve for each call's folder, which it returns by
// key (the form Options.Modules takes).
//
// A call's source and version are needed before anything runs, so they
// are evaluated then: beyond Terraform, which takes only literal strings
// (its long-standing request tf#13022; OpenTofu 1.8 does the same), they
// may refer to variables, with the values given by -var, -var-file,
// .tfvars files, TF_VAR_ and defaults (a module's own, or its call's
// arguments when those are known then), and to locals computed from
// them. Anything else there (a resource, a data source, a module output)
// is an error naming it; for a called module's variable whose argument is
// not known then, the error says what that argument refers to, and the
// variable's default is not taken in its place.
func Modules(dir string, opts Options, resolve ResolveModule) (map[string]string, hcl.Diagnostics) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()}}
	}
	l := &loader{
		dir: abs, opts: opts, cfg: &config.Config{Sources: map[string][]byte{}},
		funcs: funcs.Table(abs), decls: map[string]*config.Node{}, evalRefs: map[string][]evalRef{},
	}
	w := &moduleWalk{l: l, resolve: resolve, dirs: map[string]string{}}
	w.module(abs, "", nil, nil, 0)
	return w.dirs, uniqueDiags(l.diags)
}

type moduleWalk struct {
	l       *loader
	resolve ResolveModule
	dirs    map[string]string
}

// staticScope is what a module's expressions can know before anything
// runs: its variables' values (missing when not known) and its locals.
type staticScope struct {
	l      *loader
	vars   map[string]cty.Value
	locals map[string]hcl.Expression
	values map[string]cty.Value
	busy   map[string]bool
	// unknown says, for a module's variable not known then, why not:
	// what its call's argument refers to, or that it has none.
	unknown map[string]string
}

// staticTopSchema are the blocks moduleWalk reads (overrides of other
// types are the full load's to apply and report on).
var staticTopSchema = topBlocks("variable", "locals", "module")

// module reads the module in dir, with its variables' values known
// before anything runs (nil for the root, whose come from Options), and
// resolves its calls.
func (w *moduleWalk) module(dir, key string, vars map[string]cty.Value, unknown map[string]string, depth int) {
	l := w.l
	files, diags := l.parse(dir)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() || depth > 32 {
		return
	}
	var blocks []*hcl.Block
	var overrides [][]*hcl.Block
	for _, f := range files {
		content, _, _ := f.Body.PartialContent(staticTopSchema)
		if isOverrideFile(f.Body.MissingItemRange().Filename) {
			overrides = append(overrides, content.Blocks)
		} else {
			blocks = append(blocks, content.Blocks...)
		}
	}
	m := &module{l: l, dir: dir}
	// Errors in overrides are the full load's to report.
	saved := len(l.diags)
	blocks, _ = m.applyOverrides(blocks, overrides)
	l.diags = l.diags[:saved]
	s := &staticScope{l: l, vars: map[string]cty.Value{}, locals: map[string]hcl.Expression{}, values: map[string]cty.Value{}, busy: map[string]bool{}, unknown: unknown}
	var varBlocks []*hcl.Block
	for _, b := range blocks {
		switch b.Type {
		case "variable":
			varBlocks = append(varBlocks, b)
		case "locals":
			attrs, _ := b.Body.JustAttributes()
			for name, a := range attrs {
				s.locals[name] = a.Expr
			}
		}
	}
	s.variables(m, varBlocks, vars, key == "")
	for _, b := range blocks {
		if b.Type == "module" {
			w.call(s, dir, key, b, depth)
		}
	}
}

// variables settles what the module's variables are known to be.
func (s *staticScope) variables(m *module, blocks []*hcl.Block, given map[string]cty.Value, root bool) {
	l := s.l
	if root {
		// The root's values come as the full load settles them. Its
		// errors are the full load's to report, but for a value given to
		// a variable that is not declared: a mistake for init too, which
		// loads nothing else.
		saved := len(l.diags)
		m.variables(blocks)
		kept := l.diags[:saved]
		for _, d := range l.diags[saved:] {
			if d.Severity == hcl.DiagError && d.Summary == "Value for undeclared variable" {
				kept = append(kept, d)
			}
		}
		l.diags = kept
		for _, b := range blocks {
			if n, ok := l.decls["var."+b.Labels[0]]; ok && n.Eval != nil {
				if v, d := n.Eval.Evaluate(nil, config.NoInstance); !d.HasErrors() {
					s.vars[b.Labels[0]] = v
				}
			}
		}
		return
	}
	for _, b := range blocks {
		name := b.Labels[0]
		if v, ok := given[name]; ok {
			s.vars[name] = v
			continue
		}
		if _, given := s.unknown[name]; given {
			// The call sets it to what is not known yet: its default
			// is not its value.
			continue
		}
		content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "default"}}})
		if a, ok := content.Attributes["default"]; ok {
			if v, d := a.Expr.Value(nil); !d.HasErrors() {
				s.vars[name] = v
			}
		} else {
			s.unknown[name] = "its module call gives it no value and it has no default"
		}
	}
}

// call resolves one module call and walks into its module.
func (w *moduleWalk) call(s *staticScope, dir, parentKey string, b *hcl.Block, depth int) {
	l := w.l
	name := b.Labels[0]
	key := name
	if parentKey != "" {
		key = parentKey + "." + name
	}
	content, remain, d := b.Body.PartialContent(moduleMetaSchema)
	if d.HasErrors() {
		return // the full load reports it
	}
	src, ok := s.str(content.Attributes["source"], "source")
	if !ok {
		return
	}
	var ver string
	if a, has := content.Attributes["version"]; has {
		if ver, ok = s.str(a, "version"); !ok {
			return
		}
	}
	childDir, err := w.resolve(key, src, ver, dir)
	if err != nil {
		l.errorf(content.Attributes["source"].Expr.Range(), "Module not installed", "The module %s (source %q) cannot be installed: %v.", "module."+strings.ReplaceAll(key, ".", ".module."), src, err)
		return
	}
	if fi, err := os.Stat(childDir); err != nil || !fi.IsDir() {
		l.errorf(content.Attributes["source"].Expr.Range(), "Module not found",
			"The module source %q does not name a folder (looked for %s). Create the folder or correct the path.", src, childDir)
		return
	}
	w.dirs[key] = childDir
	// The child's variables are known where its arguments are; where
	// they are not, the child's errors say why.
	args, _ := remain.JustAttributes()
	given := map[string]cty.Value{}
	unknown := map[string]string{}
	for an, a := range args {
		v, missing := s.value(a.Expr)
		switch {
		case missing != nil:
			unknown[an] = fmt.Sprintf("its module call's argument (%s) refers to %s, %s", rangeString(a.Expr.Range()), traversalSource(*missing), s.whyUnknown(*missing))
		case !v.IsWhollyKnown():
			unknown[an] = fmt.Sprintf("its module call's argument (%s) has no value before anything runs", rangeString(a.Expr.Range()))
		default:
			given[an] = v
		}
	}
	w.module(childDir, key, given, unknown, depth+1)
}

// whyUnknown says why a reference in a module call's argument is not known
// before anything runs.
func (s *staticScope) whyUnknown(t hcl.Traversal) string {
	names := attrNames(t)
	switch t.RootName() {
	case "count", "each":
		return "which differs from one instance of the call to the next, while a module's source and version are one for every instance"
	case "var":
		if len(names) >= 2 {
			if why, ok := s.unknown[names[1]]; ok {
				return "which is not known then either: " + why
			}
		}
	}
	return "which is known only once something is planned"
}

// str evaluates a call's source or version, which must be a string known
// before anything runs.
func (s *staticScope) str(a *hcl.Attribute, what string) (string, bool) {
	v, missing := s.value(a.Expr)
	if missing != nil {
		why := ""
		if names := attrNames(*missing); missing.RootName() == "var" && len(names) >= 2 && s.unknown[names[1]] != "" {
			why = ": " + s.unknown[names[1]]
		}
		s.l.errorf(missing.SourceRange(), fmt.Sprintf("Module %s not known before anything runs", what),
			"A module's %s is read before anything is planned, so it may refer only to variables (set by -var, -var-file, .tfvars files, TF_VAR_ or defaults, or for a called module, by its call's arguments known then) and to locals computed from them; %s is not known then%s.", what, traversalSource(*missing), why)
		return "", false
	}
	if !v.IsWhollyKnown() {
		s.l.errorf(a.Expr.Range(), fmt.Sprintf("Module %s not known before anything runs", what),
			"A module's %s is read before anything is planned, and this expression's value is not known then.", what)
		return "", false
	}
	if marks.ContainsSensitive(v) || marks.ContainsEphemeral(v) {
		// The source is recorded in .tether/modules/modules.json and
		// shown in messages: a secret there would be out in the clear.
		s.l.errorf(a.Expr.Range(), fmt.Sprintf("Invalid module %s", what),
			"The module's %s is written to .tether/modules/modules.json and shown in messages, so it may not be built from a sensitive or ephemeral value.", what)
		return "", false
	}
	v, _ = v.UnmarkDeep()
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.IsNull() {
		s.l.errorf(a.Expr.Range(), fmt.Sprintf("Invalid module %s", what), "The module's %s must be a string.", what)
		return "", false
	}
	return sv.AsString(), true
}

// value evaluates an expression with what is known before anything runs.
// It returns the first reference to something not known then, if any.
func (s *staticScope) value(expr hcl.Expression) (cty.Value, *hcl.Traversal) {
	vars := map[string]cty.Value{}
	locals := map[string]cty.Value{}
	for _, t := range expr.Variables() {
		names := attrNames(t)
		switch {
		case t.RootName() == "var" && len(names) >= 2:
			v, ok := s.vars[names[1]]
			if !ok {
				return cty.DynamicVal, &t
			}
			vars[names[1]] = v
		case t.RootName() == "local" && len(names) >= 2:
			v, missing := s.local(names[1])
			if missing != nil {
				return cty.DynamicVal, missing
			}
			locals[names[1]] = v
		default:
			return cty.DynamicVal, &t
		}
	}
	v, d := expr.Value(&hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(vars), "local": cty.ObjectVal(locals)},
		Functions: s.l.funcs,
	})
	if d.HasErrors() {
		return cty.DynamicVal, nil
	}
	return v, nil
}

func (s *staticScope) local(name string) (cty.Value, *hcl.Traversal) {
	if v, ok := s.values[name]; ok {
		return v, nil
	}
	expr, ok := s.locals[name]
	if !ok || s.busy[name] {
		t := hcl.Traversal{hcl.TraverseRoot{Name: "local"}, hcl.TraverseAttr{Name: name}}
		return cty.DynamicVal, &t
	}
	s.busy[name] = true
	v, missing := s.value(expr)
	delete(s.busy, name)
	if missing == nil {
		s.values[name] = v
	}
	return v, missing
}

// ModuleKey is the key of the module at a static module path, as
// modules.json records it and Options.Modules takes it:
// module.net.module.vpc is "net.vpc".
func ModuleKey(path string) string {
	parts := strings.Split(path, ".")
	var names []string
	for i := 1; i < len(parts); i += 2 {
		names = append(names, parts[i])
	}
	return strings.Join(names, ".")
}

// isLocalSource reports whether a module source is a local folder, the
// one kind that is not installed.
func isLocalSource(src string) bool {
	return strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../")
}
