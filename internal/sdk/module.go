package sdk

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/modules"
	"github.com/tetherhq/tether/internal/provider"
)

// ModuleCall is a Terraform module called from a program: a module block
// of the program's configuration. Everything the module declares is
// planned and applied with the program's own resources, at addresses
// under module.ID, as Terraform gives them (module.net.tether_file.a).
//
// A ModuleCall is Dependable: tether.DependsOn(call) waits for everything
// in the module. Its outputs are read with tether.Attr, or with the
// getters of generated module bindings (tether gen --module).
type ModuleCall struct{ c *construct }

func (m *ModuleCall) dependable() *construct {
	if m == nil {
		return nil
	}
	return m.c
}

// ModuleSource is tether.ModuleSource, field for field: the root converts
// one to the other (the conversion stops compiling if the two part). The
// fields are documented there.
type ModuleSource struct {
	Source    string
	Version   string
	Generated string
	Func      string
}

// ModuleOption changes how a module is called.
type ModuleOption interface{ applyModule(*moduleOptions) }

type moduleOptions struct {
	dependsOn []dependsOnOpt
	version   string
}

func (d dependsOnOpt) applyModule(o *moduleOptions) { o.dependsOn = append(o.dependsOn, d) }

// DependsOnOption is what DependsOn returns: an option of resources, of
// data sources read in output form, and of module calls.
type DependsOnOption interface {
	ResourceOption
	InvokeOption
	ModuleOption
}

type versionOpt string

func (v versionOpt) applyModule(o *moduleOptions) { o.version = string(v) }

// ModuleVersion sets the version constraint of a module from a registry,
// as a module block's version argument does.
func ModuleVersion(constraint string) ModuleOption { return versionOpt(constraint) }

// Module calls the Terraform module at source, with args setting its
// variables by name. The source is written as a module block's: a folder
// relative to the program's folder (./modules/net), a module registry
// address (with ModuleVersion), git::URL or an archive URL; what is not
// local is installed into .tether/modules as tether init installs it. A value in args is a plain Go value or holds Outputs (it then
// waits for them), and is converted to the variable's type; the module's
// validation rules run as they do for a module block. A missing required
// variable, an argument the module does not declare, a value of the wrong
// type and a failed validation are errors at the line of the call.
//
// Each call is one module instance: call it in a Go loop, with distinct
// ids, for several. Generated bindings (tether gen --module) call the
// same module with a typed args struct.
func Module(scope Scope, id, source string, args map[string]any, opts ...ModuleOption) *ModuleCall {
	pos := caller(1)
	m := &ModuleCall{}
	m.c = callModule(scope, pos, &ModuleSource{Source: source, Func: "tether.Module"}, id, args, opts)
	return m
}

// CallModule calls a module. Generated module bindings call it directly:
// messages point at the line that called the binding, two frames up.
func CallModule(scope Scope, m *ModuleCall, src *ModuleSource, id string, args any, opts ...ModuleOption) {
	m.c = callModule(scope, caller(2), src, id, args, opts)
}

func callModule(scope Scope, pos hcl.Range, src *ModuleSource, id string, args any, opts []ModuleOption) *construct {
	o := &moduleOptions{version: src.Version}
	for _, opt := range opts {
		if opt != nil {
			opt.applyModule(o)
		}
	}
	c := &construct{kind: kindModule, id: id, pos: pos, what: src.Func}
	parent := enter(scope, c, false)
	if parent == nil {
		return c
	}
	st := parent.stack
	defer st.mu.Unlock()
	c.addr = join(parent.module, "module."+id)
	fail := func(d *hcl.Diagnostic) *construct {
		st.report(d)
		c.dead = true
		return c
	}
	dir, mods, diags := st.moduleDir(src, hclconfig.ModuleKey(c.addr), o.version, pos)
	st.diags = append(st.diags, diags...)
	if diags.HasErrors() {
		c.dead = true
		return c
	}
	schemas, diag := st.moduleSchemas(src, dir, stripKeys(mods, hclconfig.ModuleKey(c.addr)), pos)
	if diag != nil {
		return fail(diag)
	}
	b := &builder{where: src.Func, pos: pos, want: st}
	tm := b.value(reflect.ValueOf(args), "", 0)
	st.diags = append(st.diags, b.diags...)
	call := hclconfig.Call{
		Name: id, Module: parent.module, Dir: dir, DeclRange: pos,
		Args:      st.moduleArgs(tm, pos),
		DependsOn: st.dependsOn(o.dependsOn, src.Func),
	}
	cfg, implied, diags := hclconfig.LoadCall(".", call, hclconfig.Options{Schemas: schemas, Modules: mods})
	st.diags = append(st.diags, diags...)
	if cfg == nil {
		c.dead = true
		return c
	}
	if diags.HasErrors() {
		c.dead = true
	}
	c.outputs = map[string]bool{}
	for _, n := range cfg.Nodes {
		if n.Kind == config.Output && n.Module == c.addr {
			c.outputs[n.Name] = true
		}
		if n.Kind == config.Module && n.Addr == c.addr {
			terraformModule(n, src, o.version, dir, tm)
		}
	}
	st.nodes = append(st.nodes, cfg.Nodes...)
	st.extra.Moved = append(st.extra.Moved, cfg.Moved...)
	st.extra.Imports = append(st.extra.Imports, cfg.Imports...)
	st.extra.Removed = append(st.extra.Removed, cfg.Removed...)
	if st.extra.Sources == nil {
		st.extra.Sources = map[string][]byte{}
	}
	for name, text := range cfg.Sources {
		st.extra.Sources[name] = text
	}
	for _, ip := range implied {
		if _, ok := st.providers[ip.Source.String()]; !ok {
			st.providers[ip.Source.String()] = &providerUse{name: ip.Local, source: ip.Source, first: ip.Range, config: known(cty.EmptyObjectVal)}
			st.provOrder = append(st.provOrder, ip.Source.String())
		}
	}
	return c
}

// moduleDir finds the folder of a module's source, installing a module
// from a registry, git or an archive into .tether/modules as init does,
// and returns it with the folders of the modules it calls, by key. The
// caller holds mu.
func (st *Stack) moduleDir(src *ModuleSource, key, version string, pos hcl.Range) (string, map[string]string, hcl.Diagnostics) {
	s := src.Source
	local := modules.IsLocal(s)
	if local {
		if version != "" {
			return "", nil, hcl.Diagnostics{diagAt(pos, "Version not allowed for a local module", "%s calls the module %q, a local folder, with the version %q; a module loaded from a local folder has no version.", src.Func, s, version)}
		}
		dir := filepath.FromSlash(s)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			abs, _ := filepath.Abs(dir)
			return "", nil, hcl.Diagnostics{diagAt(pos, "Module not found", "%s calls the module %q, which does not name a folder (looked for %s). Module sources are relative to the program's folder.", src.Func, s, abs)}
		}
	}
	if st.in.Module == nil {
		if local {
			return filepath.FromSlash(s), nil, nil
		}
		return "", nil, hcl.Diagnostics{diagAt(pos, "Module not installed", "%s calls the module %q, and this program cannot install modules while it runs.", src.Func, s)}
	}
	mi, diags := st.in.Module(key, s, version)
	for _, d := range diags {
		if d.Subject == nil {
			d.Subject = pos.Ptr()
			d.Detail = fmt.Sprintf("%s calls the module %q: %s", src.Func, s, d.Detail)
		}
	}
	if mi == nil || diags.HasErrors() {
		return "", nil, diags
	}
	if src.Generated != "" && mi.Version != "" && mi.Version != src.Generated {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Module bindings out of date",
			Detail: fmt.Sprintf("%s was generated from version %s of the module %s, and version %s is installed: its variables and outputs may have changed. Regenerate them with `tether gen --module %s --version %q`.",
				src.Func, src.Generated, s, mi.Version, s, version),
			Subject: pos.Ptr(),
		})
	}
	return mi.Dir, mi.Modules, diags
}

// moduleSchemas installs and starts the providers a module requires, and
// returns their schemas. The caller holds mu.
func (st *Stack) moduleSchemas(src *ModuleSource, dir string, mods map[string]string, pos hcl.Range) (map[string]*provider.Schema, *hcl.Diagnostic) {
	reqs, diags := hclconfig.Requirements(dir, mods)
	if diags.HasErrors() {
		st.diags = append(st.diags, diags...)
		return nil, diagAt(pos, "Invalid module", "%s calls the module %q, whose files have errors (above).", src.Func, src.Source)
	}
	out := map[string]*provider.Schema{}
	for _, req := range reqs {
		key := req.Source.String()
		if ps, ok := st.schemas[key]; ok {
			out[key] = ps
			continue
		}
		if st.in.Schema == nil {
			return nil, diagAt(pos, "Provider not available", "The module %q needs provider %s, and this program cannot start providers while it runs.", src.Source, req.Source.ForDisplay())
		}
		ps, err := st.in.Schema(req)
		if err != nil {
			return nil, diagAt(pos, "Provider not available", "The module %q needs provider %s: %s", src.Source, req.Source.ForDisplay(), err)
		}
		st.schemas[key] = ps
		out[key] = ps
	}
	return out, nil
}

// moduleArgs splits a module's arguments, an object template, into one
// argument per variable, each waiting only for what its own value comes
// from. The caller holds mu.
func (st *Stack) moduleArgs(tm *tmpl, pos hcl.Range) map[string]hclconfig.Argument {
	var names []string
	var attrs []*tmpl
	switch {
	case tm.kind == tObject:
		names, attrs = tm.names, tm.attrs
	case tm.kind == tKnown && !tm.val.IsNull() && tm.val.Type().IsObjectType():
		for name, v := range tm.val.AsValueMap() {
			names = append(names, name)
			attrs = append(attrs, known(v))
		}
	}
	out := make(map[string]hclconfig.Argument, len(names))
	for i, name := range names {
		t := attrs[i]
		out[name] = hclconfig.Argument{
			Range: pos,
			Refs:  nodeRefs(tmplDeps(t), pos),
			Eval: func(sc config.Scope, _ config.Instance) (cty.Value, hcl.Diagnostics) {
				v, diags := t.eval(sc)
				return v, append(diags, st.takeLate()...)
			},
		}
	}
	return out
}

// tmplDeps lists the addresses a template's lazy values come from.
func tmplDeps(t *tmpl) []string {
	deps := map[string]bool{}
	var walk func(t *tmpl)
	add := func(l *lazy) {
		if l == nil {
			return
		}
		for _, d := range l.deps {
			deps[d] = true
		}
	}
	walk = func(t *tmpl) {
		switch t.kind {
		case tLazy:
			add(t.lazy)
		case tConcat:
			for _, p := range t.parts {
				add(p.lazy)
			}
		case tTuple:
			for _, e := range t.elems {
				walk(e)
			}
		case tObject:
			for _, a := range t.attrs {
				walk(a)
			}
		}
	}
	walk(t)
	out := make([]string, 0, len(deps))
	for d := range deps {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// moduleOutput is the output name of a module call, as an Attr reads it.
func moduleOutput(l *lazy, c *construct, name string, pos hcl.Range) {
	out := c.addr + ".output." + name
	l.deps = []string{out, c.addr}
	if !c.dead && !c.outputs[name] {
		names := make([]string, 0, len(c.outputs))
		for n := range c.outputs {
			names = append(names, n)
		}
		sort.Strings(names)
		l.err = diagAt(pos, "Unsupported attribute", "%s has no output %q. The module called at %s declares the outputs %s.", c.addr, name, posString(c.pos), strings.Join(names, ", "))
	}
	ty := l.ty
	l.eval = func(sc config.Scope) (cty.Value, hcl.Diagnostics) {
		v := sc.Value(out)
		uv, m := v.Unmark()
		if !uv.IsKnown() && uv.Type() == cty.DynamicPseudoType {
			return cty.UnknownVal(ty.WithoutOptionalAttributesDeep()).WithMarks(m), nil
		}
		return v, nil
	}
}

// stripKeys makes the keys of the modules a module calls relative to it,
// as hclconfig.Requirements reads that module as a root.
func stripKeys(mods map[string]string, key string) map[string]string {
	out := make(map[string]string, len(mods))
	for k, d := range mods {
		if rest, ok := strings.CutPrefix(k, key+"."); ok {
			out[rest] = d
		}
	}
	return out
}
