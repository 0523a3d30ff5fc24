package sdk

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/goprogram"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
)

// Stack is the root of a program's tree of constructs: the resources,
// data sources and components declared in it, and the values it exports.
// Main hands one to the program's function; resources declared directly
// in it get addresses like tether_file.a, as in a root module.
type Stack struct {
	root   *construct
	tokens *tokenTable
	in     cli.LoadInput

	mu    sync.Mutex
	nodes []*config.Node
	diags hcl.Diagnostics
	// late holds mistakes made after the program's function returned,
	// reported by the next evaluation.
	late   hcl.Diagnostics
	sealed bool
	// returned is set the moment the program's function returns (or
	// panics): from then on, every declaration is a mistake, whether it
	// comes before the stack is sealed or after.
	returned  bool
	providers map[string]*providerUse
	provOrder []string
	exports   map[string]hcl.Range
	// schemas are the schemas of the providers used, by source address.
	schemas map[string]*provider.Schema
	// instances are providers started for direct-form reads.
	instances map[string]provider.Provider
	// closures are the functions of the program handed to
	// infrastructure (see closure.go).
	closures *closureSet
	// files are the configuration's Files, for synth.
	files map[string]string
	// platform is what Platform chose.
	platform *config.Platform
	// backend is what Backend chose.
	backend *config.Backend
	// applies are the functions given to tether.Apply, by their ids in
	// the Terraform JSON synth writes (see synth_apply.go).
	applies map[string]applyFunc
	// extra holds what the modules the program calls add besides nodes:
	// their files, and their moved, import and removed blocks.
	extra config.Config
}

// Scope is where resources, data sources and components are declared: a
// *Stack, or a component (anything embedding *Component).
type Scope interface {
	scopeConstruct() *construct
}

// Dependable is what DependsOn accepts: a resource, a data source read in
// output form, or a component (waiting for a component waits for
// everything in it).
type Dependable interface {
	dependable() *construct
}

type constructKind int

const (
	kindStack constructKind = iota
	kindComponent
	kindResource
	kindData
	kindModule
)

// construct is a node of the tree.
type construct struct {
	stack  *Stack
	parent *construct
	kind   constructKind
	id     string
	// module is the module path of what is declared inside: "" in the
	// stack, module.a inside component a, module.a.module.b deeper.
	module string
	// addr is the node address: tether_file.a, module.a.data.tether_file.b,
	// module.a for a component.
	addr string
	pos  hcl.Range
	// what is the SDK function that declared it, for messages.
	what     string
	children map[string]*construct
	typ      *Type
	schema   *provider.ResourceSchema
	// dead is set on a construct that could not be declared (the mistake
	// is reported); nothing is declared inside it.
	dead bool
	// declStack is the call stack that declared a resource, and unseen
	// marks one the SDK declares for a closure that the program never
	// holds (see closure.go).
	declStack []uintptr
	unseen    bool
	// outputs are the output names of a module call.
	outputs map[string]bool
}

func (s *Stack) scopeConstruct() *construct { return s.root }

// Component is a scope of its own inside a stack, for a group of resources
// that belong together. Write a component as a Go type that embeds
// *Component and declares its resources with itself as the scope:
//
//	type Site struct {
//		*tether.Component
//		URL tether.Output[string]
//	}
//
//	func NewSite(scope tether.Scope, id string) *Site {
//		site := &Site{Component: tether.NewComponent(scope, id)}
//		page := builtin.NewFile(site, "index", builtin.FileArgs{...})
//		site.URL = page.Path()
//		return site
//	}
//
// A resource declared in component site of the stack has the address
// module.site.tether_file.index, as if the component were a module.
type Component struct{ c *construct }

func (c Component) scopeConstruct() *construct { return c.c }
func (c Component) dependable() *construct     { return c.c }

// NewComponent declares a component with the given id, which must be
// unique within scope.
func NewComponent(scope Scope, id string) *Component {
	pos := caller(1)
	parent := scopeOf(scope, pos, "tether.NewComponent")
	c := &construct{kind: kindComponent, id: id, pos: pos, what: "tether.NewComponent"}
	if parent == nil {
		return &Component{c: orphan(c)}
	}
	st := parent.stack
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.add(parent, c, false) {
		return &Component{c: c}
	}
	c.addr = join(parent.module, "module."+id)
	c.module = c.addr
	st.nodes = append(st.nodes, &config.Node{
		Kind: config.Module, Addr: c.addr, Module: parent.module, Name: id, DeclRange: pos,
		Eval: config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) { return cty.EmptyObjectVal, nil }),
		// A component is a module of the resources declared in it.
		Terraform: config.TerraformFunc(func() (any, hcl.Diagnostics) { return map[string]any{}, nil }),
	})
	return &Component{c: c}
}

func join(module, rel string) string {
	if module == "" {
		return rel
	}
	return module + "." + rel
}

// current is the stack most recently made, where mistakes that name no
// stack (a nil scope) are reported.
var current struct {
	sync.Mutex
	stack *Stack
}

// scopeOf returns the construct of a scope, or nil after reporting why
// there is none.
func scopeOf(scope Scope, pos hcl.Range, what string) (c *construct) {
	c = safeConstruct(func() *construct { return scope.scopeConstruct() }, scope == nil)
	if c != nil && c.dead {
		return nil
	}
	if c != nil {
		return c
	}
	current.Lock()
	st := current.stack
	current.Unlock()
	if st == nil {
		panic(fmt.Sprintf("tether: %s called at %s outside tether.Main", what, posString(pos)))
	}
	st.mu.Lock()
	st.report(diagAt(pos, "Nil scope", "%s was given a nil scope. Pass the *tether.Stack, or a component made with tether.NewComponent.", what))
	st.mu.Unlock()
	return nil
}

// safeConstruct calls f, turning the nil dereference of a nil component
// into nil.
func safeConstruct(f func() *construct, isNil bool) (c *construct) {
	if isNil {
		return nil
	}
	defer func() {
		if recover() != nil {
			c = nil
		}
	}()
	return f()
}

// constructOf is the construct of a Dependable, or a diagnostic saying why
// it has none.
func constructOf(d Dependable, pos hcl.Range, what string) (*construct, *hcl.Diagnostic) {
	c := safeConstruct(func() *construct { return d.dependable() }, d == nil)
	if c != nil && c.dead {
		// Its declaration failed and said why.
		return c, nil
	}
	if c == nil || c.stack == nil {
		return nil, diagAt(pos, "Nil resource", "%s was given a nil resource or component.", what)
	}
	return c, nil
}

// orphan marks a construct that could not be declared (the reason is
// reported): what the program got back stays safe to use, but it has no
// address and nothing is declared inside it.
func orphan(c *construct) *construct {
	c.addr = "(undeclared)"
	c.dead = true
	return c
}

// report records a mistake: during the program's function it fails the
// load; after it, the next evaluation reports it. The caller holds mu.
func (st *Stack) report(d *hcl.Diagnostic) {
	if st.sealed {
		st.late = append(st.late, d)
		return
	}
	st.diags = append(st.diags, d)
}

func (st *Stack) takeLate() hcl.Diagnostics {
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.late
	st.late = nil
	return d
}

// add declares c as a child of parent, checking its id. The caller holds
// mu.
func (st *Stack) add(parent, c *construct, internal bool) bool {
	c.stack, c.parent = st, parent
	if st.returned && !internal {
		st.report(diagAt(c.pos, "Called after the program's function returned",
			"%s was called after the function given to tether.Main returned (from an Apply function, or a goroutine). Declare everything while that function runs, using lazy values for what is not known yet.", c.what))
		orphan(c)
		return false
	}
	if parts := splitTokens(c.id); parts != nil {
		st.report(diagAt(c.pos, "Lazy id", "The id given to %s holds a lazy value (%s). Ids name things in plans and state, so they must be known while the program runs.", c.what, firstLazy(parts).desc))
		orphan(c)
		return false
	}
	if !hclsyntax.ValidIdentifier(c.id) {
		st.report(diagAt(c.pos, fmt.Sprintf("Invalid id %q", c.id), "The id given to %s must start with a letter or underscore and hold only letters, digits, underscores and dashes, because it becomes part of an address.", c.what))
		orphan(c)
		return false
	}
	if prev, ok := parent.children[c.id]; ok {
		where := "the stack"
		if parent.kind == kindComponent {
			where = "component " + parent.addr
		}
		at, prevAt, subject := posString(c.pos), posString(prev.pos), c.pos
		if a, b, ok := parting(c.declStack, prev.declStack); ok && at == prevAt {
			// Both through one helper's line: the helper's callers
			// made the mistake.
			subject = position(a.File, a.Line, "")
			at = fmt.Sprintf("%s (called from %s:%d)", at, relative(a.File), a.Line)
			prevAt = fmt.Sprintf("%s (called from %s:%d)", prevAt, relative(b.File), b.Line)
		}
		st.report(diagAt(subject, "Duplicate id",
			"%s at %s uses the id %q, which %s at %s already uses in %s. Ids must be unique among the resources, data sources and components of one scope.",
			c.what, at, c.id, prev.what, prevAt, where))
		orphan(c)
		return false
	}
	if parent.children == nil {
		parent.children = map[string]*construct{}
	}
	parent.children[c.id] = c
	return true
}

// Export makes value an output of the stack, shown after `up` and by
// `tether output`. value is a plain value, an Output, or a value holding
// Outputs. A value that holds sensitive values must be exported with
// Sensitive().
func (s *Stack) Export(name string, value any, opts ...ExportOption) {
	pos := caller(1)
	if s == nil {
		scopeOf(nil, pos, "Export")
		return
	}
	st := s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.returned {
		st.report(diagAt(pos, "Called after the program's function returned", "Export %q was called after the function given to tether.Main returned; export values while it runs.", name))
		return
	}
	if !hclsyntax.ValidIdentifier(name) {
		st.report(diagAt(pos, fmt.Sprintf("Invalid export name %q", name), "An export name must start with a letter or underscore and hold only letters, digits, underscores and dashes."))
		return
	}
	if prev, ok := st.exports[name]; ok {
		st.report(diagAt(pos, fmt.Sprintf("Duplicate export %q", name), "%q is already exported at %s.", name, posString(prev)))
		return
	}
	st.exports[name] = pos
	var o exportOptions
	for _, opt := range opts {
		if opt != nil {
			opt.applyExport(&o)
		}
	}
	b := &builder{where: "Export " + name, pos: pos, want: st}
	t := b.value(reflect.ValueOf(value), "", 0)
	st.diags = append(st.diags, b.diags...)
	n := &config.Node{Kind: config.Output, Addr: "output." + name, Name: name, DeclRange: pos, Sensitive: o.sensitive, Refs: nodeRefs(b.depList(), pos)}
	n.Eval = config.EvalFunc(func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		v, diags := t.eval(sc)
		diags = append(diags, st.takeLate()...)
		if !diags.HasErrors() && !o.sensitive && marks.ContainsSensitive(v) {
			diags = append(diags, diagAt(pos, fmt.Sprintf("Export %q holds a secret", name),
				"The value exported as %q is, or is computed from, a sensitive value (tether.Secret, or a sensitive attribute). Export it with tether.Sensitive() to show that this is intended: s.Export(%q, value, tether.Sensitive()). Tether then hides it.", name, name))
		}
		return v, diags
	})
	terraformOutput(n, t)
	st.nodes = append(st.nodes, n)
}

// ExportOption changes how a value is exported.
type ExportOption interface{ applyExport(*exportOptions) }

type exportOptions struct{ sensitive bool }

type sensitiveOpt struct{}

func (sensitiveOpt) applyExport(o *exportOptions) { o.sensitive = true }

// Sensitive hides an exported value: plans, `up` and `tether output` show
// (sensitive value) instead.
func Sensitive() ExportOption { return sensitiveOpt{} }

func nodeRefs(addrs []string, pos hcl.Range) []config.Ref {
	out := make([]config.Ref, len(addrs))
	for i, a := range addrs {
		out[i] = config.Ref{Addr: a, Range: pos}
	}
	return out
}

// newStack makes the stack a program's function builds.
func newStack(in cli.LoadInput) *Stack {
	st := &Stack{in: in, providers: map[string]*providerUse{}, exports: map[string]hcl.Range{}, instances: map[string]provider.Provider{}, schemas: map[string]*provider.Schema{}}
	st.root = &construct{stack: st, kind: kindStack, what: "the stack"}
	st.diags = registrationDiags()
	st.tokens = newTokenTable(st)
	current.Lock()
	current.stack = st
	current.Unlock()
	return st
}

// Program is the function a program gives Main, as this package runs it.
type Program struct {
	// Build declares the program's resources in the stack; nil when the
	// program gave Main nil.
	Build func(*Stack) error
	// Func is the function the program wrote, for its place in messages:
	// Build may be a wrapper of it.
	Func any
}

// ProgramOf is the Program of a function that takes this package's Stack.
func ProgramOf(f func(*Stack) error) Program {
	if f == nil {
		return Program{}
	}
	return Program{Build: f, Func: f}
}

// StackScope is what the public package's Stack holds: a stack, usable
// as a Scope, with no exported methods to promote.
type StackScope struct{ st *Stack }

func (s StackScope) scopeConstruct() *construct { return s.st.root }

// NewStackScope is st as the public package's Stack holds it.
func NewStackScope(st *Stack) StackScope { return StackScope{st: st} }

// StackOf is the stack a StackScope holds.
func StackOf(s StackScope) *Stack { return s.st }

// build runs the program's function, turning an error or a panic into a
// diagnostic at the program's source.
func (st *Stack) build(p Program) (diags hcl.Diagnostics) {
	f := p.Build
	defer func() {
		if r := recover(); r != nil {
			site, ok := panicSite()
			if !ok {
				site = funcPos(p.Func)
			}
			diags = append(diags, diagAt(site, "The program panicked", "%v", r))
		}
	}()
	defer func() {
		st.mu.Lock()
		st.returned = true
		st.mu.Unlock()
	}()
	if f == nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No program", Detail: "tether.Main was given a nil function."}}
	}
	err := f(st)
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		d := e.diagnostic()
		if msg := err.Error(); msg != e.Error() {
			// Wrapped: keep what the program added.
			d.Detail = strings.TrimSpace(msg + "\n\n" + d.Detail)
		}
		return hcl.Diagnostics{d}
	}
	return hcl.Diagnostics{diagAt(funcPos(p.Func), err.Error(), "The function given to tether.Main returned this error.")}
}

// funcPos is where a function is declared.
func funcPos(f any) hcl.Range {
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	if fn == nil {
		return hcl.Range{Filename: "(unknown)", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 1}}
	}
	file, line := fn.FileLine(fn.Entry())
	return position(goprogram.SourceFile(file), line, "")
}

// seal ends the program's function: later declarations are mistakes. It
// adds the provider configurations and returns the configuration.
func (st *Stack) seal() (*config.Config, hcl.Diagnostics) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.sealed, st.returned = true, true
	for _, p := range st.instances {
		p.Close()
	}
	st.instances = nil
	for _, name := range st.provOrder {
		st.nodes = append(st.nodes, st.providerNode(st.providers[name]))
	}
	cfg := &config.Config{Nodes: st.nodes, Sources: sourceFiles(), Files: st.files, Moved: st.extra.Moved, Imports: st.extra.Imports, Removed: st.extra.Removed, Platform: st.platform, Backend: st.backend}
	for name, text := range st.extra.Sources {
		cfg.Sources[name] = text
	}
	cfg.Required = st.required()
	return cfg, st.diags
}

// required is the program's required_providers, for synth: each
// provider by its local name, with the version its bindings were
// generated from, which they require. The caller holds mu.
func (st *Stack) required() map[string]config.ProviderRequirement {
	req := map[string]config.ProviderRequirement{}
	for _, name := range st.provOrder {
		p := st.providers[name]
		r := config.ProviderRequirement{Source: p.source, DeclRange: p.first}
		if p.version != "" {
			r.Constraints = []string{p.version}
		}
		req[p.name] = r
	}
	return req
}

// parting finds where two call stacks that declared on the same line part,
// counting from main: the frames of the program's calls that differ, as
// two calls of a helper constructor from two lines. It reports false when
// the stacks do not part (one line run twice, in a loop).
func parting(a, b []uintptr) (runtime.Frame, runtime.Frame, bool) {
	fa, fb := framesOf(a), framesOf(b)
	i, j := len(fa)-1, len(fb)-1
	for i >= 0 && j >= 0 && fa[i].File == fb[j].File && fa[i].Line == fb[j].Line {
		i--
		j--
	}
	if i < 0 || j < 0 {
		return runtime.Frame{}, runtime.Frame{}, false
	}
	return fa[i], fb[j], true
}

func framesOf(pcs []uintptr) []runtime.Frame {
	var out []runtime.Frame
	if len(pcs) == 0 {
		return nil
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := nextFrame(frames)
		out = append(out, f)
		if !more {
			return out
		}
	}
}
