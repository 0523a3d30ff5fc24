package sdk

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/refs"
)

// Type is tether.Type, field for field: the root converts a *tether.Type
// to a *Type (the conversion stops compiling if the two part). The
// fields are documented there.
type Type struct {
	Provider   string
	Source     string
	Version    string
	Name       string
	Func       string
	OutputFunc string
}

// Resource is embedded in the resource types of generated bindings. It
// identifies one resource of a stack.
type Resource struct{ c *construct }

func (r *Resource) dependable() *construct { return r.c }

// DataSource is embedded in the result types of output-form data source
// reads in generated bindings.
type DataSource struct{ c *construct }

func (d *DataSource) dependable() *construct { return d.c }

// ResourceOption changes how a resource is declared.
type ResourceOption interface{ applyResource(*options) }

// InvokeOption changes how a data source is read.
type InvokeOption interface{ applyInvoke(*options) }

// ResourceOrInvokeOption is an option for both.
type ResourceOrInvokeOption interface {
	ResourceOption
	InvokeOption
}

type options struct {
	dependsOn []dependsOnOpt
	sets      []setOpt
	lifecycle config.Lifecycle
	// internal is set for what the SDK declares itself once the
	// program's function returned (the program's copy).
	internal bool
}

func collect[O any](opts []O, apply func(O, *options)) *options {
	o := &options{}
	for _, opt := range opts {
		if any(opt) != nil {
			apply(opt, o)
		}
	}
	return o
}

type dependsOnOpt struct {
	deps []Dependable
	pos  hcl.Range
}

func (d dependsOnOpt) applyResource(o *options) { o.dependsOn = append(o.dependsOn, d) }
func (d dependsOnOpt) applyInvoke(o *options)   { o.dependsOn = append(o.dependsOn, d) }

// DependsOn makes a resource, a data source read in output form, or a
// module call wait for others it takes no value from: they are created,
// updated or read first. A component or a module call stands for
// everything in it. The direct form of a
// data source cannot wait, so it rejects DependsOn.
func DependsOn(deps ...Dependable) DependsOnOption {
	return dependsOnOpt{deps: deps, pos: caller(1)}
}

type setOpt struct {
	name  string
	value any
	pos   hcl.Range
}

func (s setOpt) applyResource(o *options) { o.sets = append(o.sets, s) }
func (s setOpt) applyInvoke(o *options)   { o.sets = append(o.sets, s) }

// Set sets the argument name (its schema name, such as delay_ms) to value,
// over what the args struct says. It is for what a typed field cannot
// hold: a lazy value of a type other than string or tether.Number (an
// Output[bool], an Output[[]string] for a list; a number field takes an
// Output[tether.Number] itself). A required field it gives may be
// left unset in the args struct. Zero values need no Set: an optional
// field takes them (tether.Bool(false), tether.Int(0)). Set is an
// option, passed after the args struct; given as the value of a field
// (an any field compiles with it), it is an error at that call.
func Set(name string, value any) ResourceOrInvokeOption {
	return setOpt{name: name, value: value, pos: caller(1)}
}

type lifecycleOpt func(*config.Lifecycle)

func (f lifecycleOpt) applyResource(o *options) { f(&o.lifecycle) }

// PreventDestroy makes any plan that would destroy the resource fail.
func PreventDestroy() ResourceOption {
	return lifecycleOpt(func(l *config.Lifecycle) { l.PreventDestroy = true })
}

// CreateBeforeDestroy makes a replacement create the new object before
// destroying the old one.
func CreateBeforeDestroy() ResourceOption {
	return lifecycleOpt(func(l *config.Lifecycle) { l.CreateBeforeDestroy = true })
}

// Declare declares a resource. Generated constructors call it directly:
// messages point at the line that called the constructor, two frames up.
func Declare(scope Scope, r *Resource, t *Type, id string, args any, opts ...ResourceOption) {
	pos := caller(2)
	o := collect(opts, func(opt ResourceOption, o *options) { opt.applyResource(o) })
	r.c = declare(scope, pos, t, kindResource, id, args, o)
}

// Read declares an output-form data source read. Generated output-form
// functions call it directly, as constructors call Declare.
func Read(scope Scope, d *DataSource, t *Type, id string, args any, opts ...InvokeOption) {
	pos := caller(2)
	o := collect(opts, func(opt InvokeOption, o *options) { opt.applyInvoke(o) })
	what := t.OutputFunc
	if what == "" {
		what = t.Func
	}
	tt := *t
	tt.Func = what
	d.c = declare(scope, pos, &tt, kindData, id, args, o)
}

func declare(scope Scope, pos hcl.Range, t *Type, kind constructKind, id string, args any, o *options) *construct {
	c := &construct{kind: kind, id: id, pos: pos, what: t.Func, typ: t}
	noteDeclared(c)
	parent := enter(scope, c, o.internal)
	if parent == nil {
		return c
	}
	st := parent.stack
	defer st.mu.Unlock()
	rel := t.Name + "." + id
	nodeKind := config.Resource
	if kind == kindData {
		rel = "data." + rel
		nodeKind = config.DataSource
	}
	c.addr = join(parent.module, rel)
	schema, diag := st.typeSchema(t, kind, pos)
	if diag != nil {
		st.report(diag)
		c.dead = true
		return c
	}
	c.schema = schema
	b := &builder{where: t.Func, pos: pos, want: st, set: setNames(o.sets)}
	tm := b.value(reflect.ValueOf(args), "", 0)
	tm = st.applySets(b, tm, o.sets, schema.Block)
	deps := st.dependsOn(o.dependsOn, t.Func)
	st.diags = append(st.diags, b.diags...)
	n := &config.Node{
		Kind: nodeKind, Addr: c.addr, Module: parent.module, Type: t.Name, Name: id,
		DeclRange: pos, Refs: nodeRefs(b.depList(), pos), DependsOn: deps,
		Lifecycle: o.lifecycle,
	}
	pu := st.useProvider(t, pos)
	n.Provider, n.Source = pu.addr(), pu.source.String()
	// A wholly known configuration is checked now, so that a mistake
	// stops the program before anything is planned.
	if tm.kind == tKnown && schema != standInSchema {
		if _, err := conform(tm.val, schema.Block, nil); err != nil {
			st.report(diagAt(pos, "Invalid arguments", "%s: %s", t.Func, pathError(err)))
		}
	}
	n.Eval = st.evalConfig(n, t.Func, tm, schema.Block)
	nameFields(n, reflect.TypeOf(args), pos)
	terraformNode(n, t.Func, tm)
	st.nodes = append(st.nodes, n)
	return c
}

// enter adds c to scope and returns its parent, with the stack's mu held
// for the caller to release. It returns nil, holding nothing, when c
// cannot be declared: the reason is reported and c has no address.
func enter(scope Scope, c *construct, internal bool) *construct {
	parent := scopeOf(scope, c.pos, c.what)
	if parent == nil {
		orphan(c)
		return nil
	}
	st := parent.stack
	st.mu.Lock()
	if !st.add(parent, c, internal) {
		st.mu.Unlock()
		return nil
	}
	return parent
}

// typeSchema finds the schema of a type, or says why there is none: a
// provider that cannot be installed or started, or a type the provider
// does not have. The caller holds mu.
func (st *Stack) typeSchema(t *Type, kind constructKind, pos hcl.Range) (*provider.ResourceSchema, *hcl.Diagnostic) {
	ps, diag := st.providerSchema(t, pos)
	if diag != nil {
		return nil, diag
	}
	if ps == standInProvider {
		return standInSchema, nil
	}
	types, what := ps.Resources, "resource type"
	if kind == kindData {
		types, what = ps.DataSources, "data source"
	}
	s, ok, err := types.Get(t.Name)
	if err != nil {
		return nil, diagAt(pos, "Invalid provider schema", "%s declares a %s %q of provider %s, whose schema cannot be used: %s.", t.Func, what, t.Name, t.Provider, err)
	}
	if !ok || s.Block == nil {
		return nil, diagAt(pos, "Unknown "+what, "%s declares a %s %q, which provider %s does not have: the bindings were generated from a different version of the provider. Regenerate them with tether gen.", t.Func, what, t.Name, t.Provider)
	}
	return s, nil
}

// applySets puts the values given with Set into a configuration.
func (st *Stack) applySets(b *builder, tm *tmpl, sets []setOpt, block *provider.Block) *tmpl {
	if block == standInSchema.Block {
		return tm // a running closure: the deployment checked them
	}
	for _, s := range sets {
		_, isAttr := block.Attributes[s.name]
		_, isBlock := block.BlockTypes[s.name]
		if !isAttr && !isBlock {
			st.report(diagAt(s.pos, "No such argument", "tether.Set names %q, but %s has no argument or block of that name.", s.name, b.where))
			continue
		}
		sb := &builder{where: fmt.Sprintf("tether.Set(%q)", s.name), pos: s.pos, want: st, noLazy: b.noLazy}
		v := sb.value(reflect.ValueOf(s.value), "."+s.name, 0)
		b.diags = append(b.diags, sb.diags...)
		b.lazyArgs = append(b.lazyArgs, sb.lazyArgs...)
		for d := range sb.deps {
			if b.deps == nil {
				b.deps = map[string]bool{}
			}
			b.deps[d] = true
		}
		tm = withAttr(tm, s.name, v)
	}
	return tm
}

// withAttr returns an object template with attribute name set to v.
func withAttr(tm *tmpl, name string, v *tmpl) *tmpl {
	var names []string
	var attrs []*tmpl
	switch {
	case tm.kind == tObject:
		names, attrs = tm.names, tm.attrs
	case tm.kind == tKnown && tm.val.Type().IsObjectType() && !tm.val.IsNull():
		for n, a := range tm.val.AsValueMap() {
			names = append(names, n)
			attrs = append(attrs, known(a))
		}
	}
	out := &tmpl{kind: tObject}
	for i, n := range names {
		if n != name {
			out.names = append(out.names, n)
			out.attrs = append(out.attrs, attrs[i])
		}
	}
	out.names = append(out.names, name)
	out.attrs = append(out.attrs, v)
	return object(out.names, out.attrs)
}

// dependsOn resolves DependsOn options to addresses. The caller holds mu.
func (st *Stack) dependsOn(opts []dependsOnOpt, what string) []config.Ref {
	var out []config.Ref
	for _, o := range opts {
		for _, d := range o.deps {
			c, diag := constructOf(d, o.pos, "tether.DependsOn")
			switch {
			case diag != nil:
				st.report(diag)
			case c.dead:
			case c.stack != st:
				st.report(diagAt(o.pos, "Dependency in another stack", "tether.DependsOn given to %s names %s, which belongs to another stack.", what, c.addr))
			default:
				out = append(out, config.Ref{Addr: c.addr, Range: o.pos})
			}
		}
	}
	return out
}

// evalConfig evaluates a resource's or data source's arguments into an
// object of its schema. References in it become the placeholders the
// engine resolves right before each provider call, as for HCL.
func (st *Stack) evalConfig(n *config.Node, what string, tm *tmpl, block *provider.Block) config.EvalFunc {
	return func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
		v, diags := tm.eval(sc)
		// Mistakes made while evaluating (a resource declared in an Apply
		// function) are reported here, or by the next evaluation.
		diags = append(diags, st.takeLate()...)
		if diags.HasErrors() {
			return cty.UnknownVal(block.ImpliedType()), diags
		}
		fail := func(summary, format string, args ...any) (cty.Value, hcl.Diagnostics) {
			return cty.UnknownVal(block.ImpliedType()), append(diags, diagAt(n.DeclRange, summary, format, args...))
		}
		pv, err := refs.Placeholders(v)
		if err != nil {
			at := "its arguments"
			if p, ok := refs.DerivedAt(v); ok && len(p) > 0 {
				at = pathString(p)
			}
			return fail("Invalid use of a reference", "%s was given a value at %s computed from a reference. %s.", what, at, capitalize(err.Error()))
		}
		found := refs.Find(pv)
		// The engine resolves references to strings in the arguments of
		// resources, data sources and provider configurations (it keeps
		// their descriptions in place of their values); others are
		// arguments of references.
		for _, f := range found {
			if f.Ref.Type != cty.String {
				return fail("Reference to a "+f.Ref.Type.FriendlyName()+" in a resource argument", "%s was given the reference %s at %s, which resolves to a %s. Resource arguments take references to strings; a reference to any other type can be an argument of another reference: a field declared as tether.Reference[T] in a reference kind of your own, whose Resolve makes the string.", what, f.Ref.Description(), pathString(f.Path), f.Ref.Type.FriendlyName())
			}
		}
		cv, err := conform(pv, block, nil)
		if err != nil {
			if pe, ok := err.(cty.PathError); ok {
				for _, f := range found {
					if f.Path.Equals(pe.Path) {
						return fail("Reference to a string in a "+attrKind(block, pe.Path)+" argument", "%s was given the reference %s at %s, which resolves to a string; that argument does not take strings.", what, f.Ref.Description(), pathString(f.Path))
					}
				}
			}
			return cty.UnknownVal(block.ImpliedType()), append(diags, diagAt(n.DeclRange, "Invalid arguments", "%s: %s", what, pathError(err)))
		}
		return cv, diags
	}
}

// attrKind names the type of the attribute at p, for messages.
func attrKind(block *provider.Block, p cty.Path) string {
	ty := block.ImpliedType()
	for _, step := range p {
		switch {
		case ty.IsObjectType():
			a, ok := step.(cty.GetAttrStep)
			if !ok || !ty.HasAttribute(a.Name) {
				return "non-string"
			}
			ty = ty.AttributeType(a.Name)
		case ty.IsCollectionType():
			ty = ty.ElementType()
		default:
			return "non-string"
		}
	}
	return ty.FriendlyName()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pathError says where in the arguments a conversion failed.
func pathError(err error) string {
	pe, ok := err.(cty.PathError)
	if !ok || len(pe.Path) == 0 {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v", pathString(pe.Path), pe.Error())
}

// pathString writes p as it reads after "field ": tags["a"], rule[0].port.
func pathString(p cty.Path) string {
	return strings.TrimPrefix(diagnostic.PathString(p), ".")
}

func sortedList(s []string) []string {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return sortedSet(m)
}

// providerUse is one provider a stack uses: where first, and its
// configuration if the program gave one.
type providerUse struct {
	name      string
	source    tfaddr.Provider
	version   string // the version the bindings were generated from
	first     hcl.Range
	config    *tmpl
	deps      []string
	configPos hcl.Range
	set       bool
}

// addr is the address of the provider's configuration: a stack has one
// per provider.
func (p *providerUse) addr() string { return addr.ProviderConfig{Source: p.source}.String() }

// typeSource is the provider source address a type's bindings name.
func typeSource(t *Type) (tfaddr.Provider, error) {
	if t.Source == "" {
		if t.Provider == "tether" {
			return config.BuiltinSource, nil
		}
		return tfaddr.ParseProviderSource("hashicorp/" + t.Provider)
	}
	return tfaddr.ParseProviderSource(t.Source)
}

// providerSchema installs, starts and reads the schema of a type's
// provider, once per provider. The caller holds mu.
func (st *Stack) providerSchema(t *Type, pos hcl.Range) (*provider.Schema, *hcl.Diagnostic) {
	src, err := typeSource(t)
	if err != nil {
		return nil, diagAt(pos, "Invalid provider source in bindings", "%s names the provider source %q: %s. Regenerate the bindings with tether gen.", t.Func, t.Source, err)
	}
	if ps, ok := st.schemas[src.String()]; ok {
		return ps, nil
	}
	if st.in.Schema == nil {
		return nil, diagAt(pos, "Provider not available", "%s needs provider %s, and this program cannot start providers while it runs.", t.Func, src.ForDisplay())
	}
	req := config.ProviderRequirement{Source: src, DeclRange: pos}
	if t.Version != "" {
		req.Constraints = []string{t.Version}
	}
	ps, err := st.in.Schema(req)
	if err != nil {
		if hint := lockedElsewhere(t, src); hint != "" {
			return nil, diagAt(pos, "Provider not available", "%s needs provider %s: %s.%s", t.Func, src.ForDisplay(), strings.TrimSuffix(err.Error(), "."), hint)
		}
		return nil, diagAt(pos, "Provider not available", "%s needs provider %s: %s", t.Func, src.ForDisplay(), err)
	}
	st.schemas[src.String()] = ps
	return ps, nil
}

// lockedElsewhere explains a provider that cannot be installed because the
// lock file holds another version than the one its bindings were
// generated from, which they require: either side may be moved.
func lockedElsewhere(t *Type, src tfaddr.Provider) string {
	if t.Version == "" {
		return ""
	}
	locks, err := install.ReadLocks(".")
	if err != nil {
		return ""
	}
	lock, ok := locks[src]
	if !ok {
		return ""
	}
	if v, err := version.NewVersion(t.Version); err != nil || v.String() == lock.Version {
		return ""
	}
	pkg, _, _ := strings.Cut(t.Func, ".")
	return fmt.Sprintf(" The bindings of package %s (%s) were generated from version %s and require it, and %s locks version %s: regenerate them for the locked version with `tether gen` (from %s) or `tether gen --from` the provider's binary, or install theirs with `tether init -upgrade`.",
		pkg, t.Func, t.Version, install.LockFileName, lock.Version, cli.RequirementsFile)
}

// useProvider notes that a declaration needs a provider, whose schema
// providerSchema has read. The caller holds mu.
func (st *Stack) useProvider(t *Type, pos hcl.Range) *providerUse {
	src, _ := typeSource(t)
	p, ok := st.providers[src.String()]
	if !ok {
		p = &providerUse{name: t.Provider, source: src, version: t.Version, first: pos, config: known(cty.EmptyObjectVal)}
		st.providers[src.String()] = p
		st.provOrder = append(st.provOrder, src.String())
	}
	return p
}

// ConfigureProvider sets a provider's configuration for the whole stack.
// Generated NewProvider functions call it.
func ConfigureProvider(s *Stack, t *Type, args any) {
	pos := caller(2)
	if s == nil {
		scopeOf(nil, pos, t.Func)
		return
	}
	st := s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.returned {
		st.report(diagAt(pos, "Called after the program's function returned", "%s was called after the program's function returned. Configure providers while the function given to tether.Main runs.", t.Func))
		return
	}
	if _, diag := st.providerSchema(t, pos); diag != nil {
		st.report(diag)
		return
	}
	p := st.useProvider(t, pos)
	if p.set {
		st.report(diagAt(pos, "Provider configured twice", "%s at %s configures provider %q, which %s already configured. A stack has one configuration per provider.", t.Func, posString(pos), t.Provider, posString(p.configPos)))
		return
	}
	b := &builder{where: t.Func, pos: pos, want: st}
	p.config = b.value(reflect.ValueOf(args), "", 0)
	p.deps = b.depList()
	p.configPos, p.set = pos, true
	st.diags = append(st.diags, b.diags...)
}

// providerNode is the configuration node of a provider. The caller holds
// mu.
func (st *Stack) providerNode(p *providerUse) *config.Node {
	pos := p.first
	if p.set {
		pos = p.configPos
	}
	block := &provider.Block{}
	if ps := st.schemas[p.source.String()]; ps != nil && ps.Provider != nil {
		block = ps.Provider
	}
	n := &config.Node{Kind: config.Provider, Addr: p.addr(), Name: p.name, Provider: p.addr(), Source: p.source.String(), DeclRange: pos, Refs: nodeRefs(p.deps, pos)}
	n.Eval = st.evalConfig(n, "provider "+p.name, p.config, block)
	if p.set {
		terraformNode(n, "provider "+p.name, p.config)
	}
	return n
}

// Invoke reads a data source now, while the program runs, into res.
// Generated direct-form functions call it directly, as constructors call
// Declare.
func Invoke(scope Scope, t *Type, args any, res any, opts ...InvokeOption) error {
	pos := caller(2)
	o := collect(opts, func(opt InvokeOption, o *options) { opt.applyInvoke(o) })
	outputForm := t.OutputFunc
	if outputForm == "" {
		outputForm = t.Func + "Output"
	}
	if len(o.dependsOn) > 0 {
		return errorAt(pos, "DependsOn given to a direct-form read",
			fmt.Sprintf("%s is the direct form: it reads %s while the program runs, before anything is created, so it cannot wait for other resources. Use the output form, %s(scope, id, args, tether.DependsOn(...)), which returns lazy results and reads once what it waits on is done.", t.Func, t.Name, outputForm))
	}
	parent := scopeOf(scope, pos, t.Func)
	if parent == nil {
		return errorAt(pos, "Nil scope", t.Func+" was given a nil scope.")
	}
	st := parent.stack
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.returned {
		return errorAt(pos, "Called after the program's function returned", t.Func+" was called after the program's function returned. Read data sources while the function given to tether.Main runs, or use "+outputForm+" for a read that waits for values.")
	}
	schema, diag := st.typeSchema(t, kindData, pos)
	if diag != nil {
		return errorAt(pos, diag.Summary, diag.Detail)
	}
	// References passed on whole are resolved for the read, as in the
	// output form; the program gets their descriptions where the provider
	// echoes their values.
	b := &builder{where: t.Func, pos: pos, want: st, noLazy: true, refsOK: true, set: setNames(o.sets)}
	tm := b.value(reflect.ValueOf(args), "", 0)
	tm = st.applySets(b, tm, o.sets, schema.Block)
	if len(b.lazyArgs) > 0 {
		return errorAt(pos, fmt.Sprintf("%s was given lazy arguments", t.Func),
			fmt.Sprintf("%s is the direct form: it reads %s while the program runs, when %s is not known yet. Use the output form, %s(scope, id, args), which waits for its arguments.", t.Func, t.Name, strings.Join(b.lazyArgs, " and "), outputForm))
	}
	if len(b.diags) > 0 || !onlyReferences(tm) {
		d := &hcl.Diagnostic{Summary: "Invalid arguments", Detail: "The arguments of " + t.Func + " are not valid."}
		if len(b.diags) > 0 {
			d = b.diags[0]
		}
		return errorAt(pos, d.Summary, d.Detail)
	}
	v, diags := tm.eval(nil)
	if diags.HasErrors() {
		return errorAt(pos, diags[0].Summary, diags[0].Detail)
	}
	pv, err := refs.Placeholders(v)
	if err != nil {
		return errorAt(pos, "Invalid use of a reference", fmt.Sprintf("%s was given a value computed from a reference. %s.", t.Func, capitalize(err.Error())))
	}
	for _, f := range refs.Find(pv) {
		if f.Ref.Type != cty.String {
			return errorAt(pos, "Reference to a "+f.Ref.Type.FriendlyName()+" in a data source argument", fmt.Sprintf("%s was given the reference %s at %s, which resolves to a %s. Data source arguments take references to strings.", t.Func, f.Ref.Description(), pathString(f.Path), f.Ref.Type.FriendlyName()))
		}
	}
	cfg, err := conform(pv, schema.Block, nil)
	if err != nil {
		return errorAt(pos, "Invalid arguments", t.Func+": "+pathError(err))
	}
	prov, err := st.instance(t, pos)
	if err != nil {
		return err
	}
	ucfg, _ := marks.Unmark(cfg)
	if d := prov.ValidateDataSourceConfig(t.Name, ucfg); d.HasErrors() {
		return errorAt(pos, fmt.Sprintf("%s: %s", t.Func, d[0].Summary), d[0].Detail)
	}
	ctx := st.in.Context
	if ctx == nil {
		ctx = context.Background()
	}
	resp, d := engine.ReadData(ctx, prov, t.Name, t.Name, cfg)
	if d = append(d, resp.Diagnostics...); d.HasErrors() {
		for _, e := range d {
			if e.Severity == hcl.DiagError {
				return errorAt(pos, fmt.Sprintf("%s: %s", t.Func, e.Summary), e.Detail)
			}
		}
	}
	if err := fromCty(resp.State, reflect.ValueOf(res).Elem()); err != nil {
		return errorAt(pos, "Unexpected result from "+t.Func, err.Error())
	}
	return nil
}

// instance is a configured provider for direct-form reads. The caller
// holds mu, and typeSchema has read the provider's schema.
func (st *Stack) instance(t *Type, pos hcl.Range) (provider.Provider, error) {
	src, _ := typeSource(t)
	name := src.String()
	if p, ok := st.instances[name]; ok {
		return p, nil
	}
	if st.in.NewProvider == nil {
		return nil, errorAt(pos, "Provider not available", fmt.Sprintf("%s needs provider %s, and this program cannot start providers while it runs.", t.Func, src.ForDisplay()))
	}
	p, err := st.in.NewProvider(name)
	if err != nil {
		return nil, errorAt(pos, "Provider not available", fmt.Sprintf("%s needs provider %s: %s", t.Func, src.ForDisplay(), err))
	}
	block := &provider.Block{}
	if ps := st.schemas[name]; ps != nil && ps.Provider != nil {
		block = ps.Provider
	}
	cfg := cty.EmptyObjectVal
	if u, ok := st.providers[name]; ok && u.set {
		if !onlyReferences(u.config) {
			p.Close()
			return nil, errorAt(pos, fmt.Sprintf("Provider %q configured with lazy values", name),
				fmt.Sprintf("Reading a data source while the program runs needs the provider configured with known values, and the configuration at %s holds lazy ones. Use the output form of the read instead.", posString(u.configPos)))
		}
		// References have no value in the program, but they need none
		// from other resources either: they are resolved for the
		// provider's configuration, as in a plan.
		v, diags := u.config.eval(nil)
		if diags.HasErrors() {
			p.Close()
			return nil, errorAt(pos, diags[0].Summary, diags[0].Detail)
		}
		if cfg, err = refs.Placeholders(v); err != nil {
			p.Close()
			return nil, errorAt(pos, "Invalid use of a reference", fmt.Sprintf("The configuration of provider %q at %s holds a value computed from a reference. %s.", name, posString(u.configPos), capitalize(err.Error())))
		}
	}
	conf, err := conform(cfg, block, nil)
	if err != nil {
		p.Close()
		return nil, errorAt(pos, fmt.Sprintf("Invalid configuration of provider %q", name), pathError(err))
	}
	ctx := st.in.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// The provider is wrapped so that a resolved value it echoes in a
	// read's result or diagnostics reaches the program as its
	// description.
	rp, d := engine.ConfigureProvider(ctx, addr.ProviderConfig{Source: src}.String(), p, conf)
	if d.HasErrors() {
		p.Close()
		return nil, errorAt(pos, fmt.Sprintf("Cannot configure provider %q", name), d[0].Summary+": "+d[0].Detail)
	}
	st.instances[name] = rp
	return rp, nil
}

// onlyReferences reports whether a template holds no lazy value but
// references: a provider configuration a direct-form read can resolve.
func onlyReferences(t *tmpl) bool {
	switch t.kind {
	case tKnown:
		return true
	case tLazy:
		return t.lazy.ref != nil && len(t.lazy.deps) == 0
	case tConcat:
		for _, p := range t.parts {
			if p.lazy != nil && (p.lazy.ref == nil || len(p.lazy.deps) > 0) {
				return false
			}
		}
		return true
	}
	for _, e := range append(slices.Clone(t.elems), t.attrs...) {
		if !onlyReferences(e) {
			return false
		}
	}
	return true
}
