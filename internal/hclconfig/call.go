package hclconfig

import (
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

// Call is a module call made by a front-end other than HCL, the Go SDK:
// the module is read from its folder as a module block would read it, and
// its variables take the values of Args, which the front-end evaluates in
// its own way.
type Call struct {
	// Name is the call's name and Module the static path of the calling
	// module ("" for the root, module.site inside a component): the call's
	// address is module.NAME under it.
	Name, Module string
	// Dir is the module's folder, already fetched.
	Dir string
	// DeclRange is where the call is made: errors about the call as a
	// whole (a missing required variable) point at it.
	DeclRange hcl.Range
	// Args set the module's variables by name.
	Args map[string]Argument
	// DependsOn makes everything in the module wait for these nodes.
	DependsOn []config.Ref

	// open sets every variable to a value not known yet, of its type
	// (ReadInterface).
	open bool
}

// Argument is the value of one variable of a Call.
type Argument struct {
	// Range is where the value is given: a wrong type or a failed
	// validation rule points at it.
	Range hcl.Range
	// Refs are the nodes of the calling module the value is computed
	// from.
	Refs []config.Ref
	// Eval computes the value in the calling module's instance.
	Eval func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics)
}

// ImpliedProvider is a default provider configuration of the root module
// that a called module uses (it inherits it, as modules do in Terraform):
// the caller declares it, or configures it.
type ImpliedProvider struct {
	// Addr is the configuration's address, provider["registry.terraform.io/hashicorp/time"].
	Addr   string
	Source tfaddr.Provider
	// Local is the name the module gives the provider.
	Local string
	// Range is where the module first uses it.
	Range hcl.Range
}

// LoadCall reads the module a Call names. The configuration it returns
// holds the call's node (module.NAME, with its DependsOn) and every node
// declared in the module and in the modules it calls, with addresses as
// Terraform gives them (module.net.tether_file.a); its Sources hold the
// module's files. File names in diagnostics are relative to root, the
// calling program's folder, where path.root points too. opts.Schemas must
// hold the schema of every provider the module requires (see
// Requirements, which reads a module folder as well as a root one), and
// opts.Modules the folders of the modules it calls that are not local,
// by key (the call's name, then theirs: "net.vpc"); opts.Vars and
// opts.Environ are not used: a module's variables are set by its call
// alone.
func LoadCall(root string, call Call, opts Options) (*config.Config, []ImpliedProvider, hcl.Diagnostics) {
	l, child, diags := loadCall(root, call, opts)
	if l == nil {
		return nil, nil, diags
	}
	if child == nil {
		return l.cfg, nil, uniqueDiags(l.diags)
	}
	var implied []ImpliedProvider
	for _, a := range sortedKeysOf(l.providerUses) {
		if _, ok := l.decls[a]; ok {
			continue
		}
		u := l.providerUses[a]
		implied = append(implied, ImpliedProvider{Addr: a, Source: u.source, Local: u.local, Range: u.rng})
	}
	return l.cfg, implied, uniqueDiags(l.diags)
}

// loadCall reads the module a Call names, returning the loader and the
// called module, nil when its files cannot be read; the loader holds the
// diagnostics. Without a loader, the diagnostics say why.
func loadCall(root string, call Call, opts Options) (*loader, *module, hcl.Diagnostics) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error(), Subject: call.DeclRange.Ptr()}}
	}
	dir, err := filepath.Abs(call.Dir)
	if err != nil {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read module", Detail: err.Error(), Subject: call.DeclRange.Ptr()}}
	}
	l := newLoader(abs, Options{Schemas: opts.Schemas, Modules: opts.Modules})
	// The calling module stands in for the caller's scope: it declares
	// nothing, and the default provider configurations the module
	// inherits from it are the root's.
	parent := &module{l: l, dir: abs, path: call.Module, calls: map[string]*moduleCall{}, required: map[string]requiredProvider{}}
	if call.Module != "" {
		parent.depth = 1
	}
	n := &config.Node{Kind: config.Module, Addr: parent.prefix("module." + call.Name), Name: call.Name, Module: call.Module, DeclRange: call.DeclRange, DependsOn: call.DependsOn}
	n.Eval = config.EvalFunc(func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) { return cty.EmptyObjectVal, nil })
	l.declare(n)
	mc := &moduleCall{node: n, parent: parent, external: &call}
	parent.calls[call.Name] = mc
	rel, _ := filepath.Rel(abs, dir)
	child := &module{l: l, dir: dir, relDir: filepath.ToSlash(rel), path: n.Addr, call: mc, depth: parent.depth + 1}
	mc.child = child
	if !child.load(nil) {
		return l, nil, nil
	}
	l.runPending()
	l.release()
	return l, child, nil
}

// externalArgument sets a variable from a Call's argument.
func (m *module) externalArgument(v *variableDecl, arg Argument) {
	m.validate(v, arg.Range)
	v.node.Refs = append(v.node.Refs, arg.Refs...)
	v.node.Eval = config.EvalFunc(func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
		val, diags := arg.Eval(scope, inst)
		if diags.HasErrors() {
			return cty.DynamicVal, diags
		}
		return v.convert(val, arg.Range)
	})
}
