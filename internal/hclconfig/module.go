package hclconfig

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
)

// module is one module folder loaded for one module call (or the root).
// The same folder called twice is loaded twice, under two paths.
type module struct {
	l      *loader
	dir    string
	relDir string // dir relative to the root, for path.module
	// path is the static module path, "" for the root.
	path string
	// call is the call that loaded this module; nil for the root.
	call *moduleCall
	// calls are the module calls declared here, by name.
	calls map[string]*moduleCall
	depth int
	// required are the module's required_providers by local name.
	required map[string]requiredProvider
	// ownConfigs are the provider configurations the module's own provider
	// blocks declare (the legacy way to configure a module's providers),
	// by reference ("aws", "aws.west"), to their addresses.
	ownConfigs map[string]string
	// implied caches the root module's provider configuration addresses:
	// every resource asks for its own.
	implied map[addr.ProviderConfig]string
	// funcs are the functions its expressions may call: the built-in
	// ones and its providers' (provider::NAME::FUNCTION), made once the
	// required providers are known.
	funcs map[string]function.Function
	// pathVal is path.* for this module, made once: every evaluation
	// needs it.
	fixedOnce sync.Once
	pathVal   cty.Value
	// vars are a called module's variables in declaration order.
	vars []*variableDecl
	// localExprs are the module's locals' expressions, by name, and
	// static what its expressions can know before anything is planned
	// (see staticScope).
	localExprs map[string]hcl.Expression
	static     *staticScope
}

// moduleCall is a module block.
type moduleCall struct {
	node   *config.Node
	parent *module
	child  *module
	block  *hcl.Block
	// args are the call's arguments other than the meta-arguments; they
	// set the child's variables.
	args hcl.Attributes
	// repeat is "", "count", "for_each" or "enabled".
	repeat string
	// passed are the provider configurations the call passes with its
	// providers argument: the called module's reference ("aws",
	// "aws.east") to a configuration address.
	passed map[string]string
	// passedKeys are, for an instance of a repeated configuration passed,
	// the expression of its key, evaluated where the call is.
	passedKeys map[string]hcl.Expression
	// external is set for a call made by another front-end (see
	// LoadCall); block and args are then nil.
	external *Call
}

// declRange is where the call is made.
func (c *moduleCall) declRange() hcl.Range {
	if c.external != nil {
		return c.external.DeclRange
	}
	return c.block.DefRange
}

// prefix returns the address of a name declared in this module.
func (m *module) prefix(rel string) string {
	if m.path == "" {
		return rel
	}
	return m.path + "." + rel
}

var moduleMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source", Required: true},
		{Name: "version"},
		{Name: "count"},
		{Name: "for_each"},
		{Name: "depends_on"},
		{Name: "providers"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "lifecycle"}},
}

// moduleLifecycleSchema is what a module call's lifecycle block takes:
// OpenTofu's enabled alone (Terraform reserves the block).
var moduleLifecycleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enabled"}}}

// load reads the module's files and declares everything in them.
func (m *module) load(calledFrom *hcl.Block) bool {
	l := m.l
	files, diags := l.parse(m.dir)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return false
	}
	m.calls = map[string]*moduleCall{}
	m.required = map[string]requiredProvider{}
	var vars, moduleBlocks []*hcl.Block
	var blocks []*hcl.Block
	var overrides [][]*hcl.Block
	for _, f := range files {
		fileBlocks, d := topContent(f.Body)
		l.diags = append(l.diags, d...)
		if isOverrideFile(f.Body.MissingItemRange().Filename) {
			overrides = append(overrides, fileBlocks)
			continue
		}
		blocks = append(blocks, fileBlocks...)
	}
	blocks, overrideTerraform := m.applyOverrides(blocks, overrides)
	// Provider local names are known before anything uses them.
	for _, b := range blocks {
		if b.Type == "terraform" {
			l.terraform(b)
			m.requireProviders(b, false)
		}
	}
	for _, b := range overrideTerraform {
		l.terraform(b)
		m.requireProviders(b, true)
	}
	if m.path != "" && len(m.required) > 0 {
		if l.cfg.ModuleRequired == nil {
			l.cfg.ModuleRequired = map[string]map[string]config.ProviderRequirement{}
		}
		req := map[string]config.ProviderRequirement{}
		for local, rp := range m.required {
			req[local] = config.ProviderRequirement{Source: rp.source, Constraints: rp.constraints, DeclRange: rp.rng}
		}
		l.cfg.ModuleRequired[m.path] = req
	}
	m.checkProviderFunctions(files)
	m.declareOwnConfigs(blocks)
	if m.path == "" {
		// Most of the root's blocks declare a node each: room for them at
		// once, not a map and a list grown by doubling (100,000 resources
		// grew each some 17 times).
		decls := make(map[string]*config.Node, len(l.decls)+len(blocks))
		maps.Copy(decls, l.decls)
		l.decls = decls
		l.cfg.Nodes = slices.Grow(l.cfg.Nodes, len(blocks))
		l.pending = slices.Grow(l.pending, len(blocks))
	}
	for _, b := range blocks {
		switch b.Type {
		case "terraform":
		case "variable":
			vars = append(vars, b)
		case "provider":
			if m.path != "" && m.call.repeat != "" {
				l.errorf(b.DefRange, "Module is incompatible with count, for_each, and depends_on",
					"The module %s declares its own provider configuration, so it cannot be called with %s. Configure the provider in the calling module and pass it with providers = { ... } instead.", m.path, m.call.repeat)
				continue
			}
			m.provider(b)
		case "resource":
			m.resource(b, config.Resource)
		case "data":
			m.resource(b, config.DataSource)
		case "ephemeral":
			m.resource(b, config.Ephemeral)
		case "locals":
			m.locals(b)
		case "output":
			m.output(b)
		case "module":
			moduleBlocks = append(moduleBlocks, b)
		case "moved":
			m.moved(b)
		case "check":
			m.check(b)
		case "import":
			m.importBlock(b)
		case "removed":
			m.removedBlock(b)
		default:
			l.errorf(b.DefRange, fmt.Sprintf("%q blocks are not supported", b.Type),
				"Tether does not read %q blocks; remove this block or keep it in a Terraform-only configuration.", b.Type)
		}
	}
	if m.path == "" {
		m.variables(vars)
	} else {
		m.arguments(vars)
	}
	for _, b := range moduleBlocks {
		m.moduleCall(b)
	}
	return true
}

func (m *module) moduleCall(b *hcl.Block) {
	l := m.l
	name := b.Labels[0]
	if !hclsyntaxValidName(name) {
		l.errorf(b.LabelRanges[0], "Invalid module name", "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.")
		return
	}
	n := &config.Node{Kind: config.Module, Addr: m.prefix("module." + name), Name: name, Module: m.path, DeclRange: b.DefRange}
	if !l.declare(n) {
		return
	}
	n.Terraform = m.refuseModule(n)
	content, remain, d := b.Body.PartialContent(moduleMetaSchema)
	l.diags = append(l.diags, d...)
	if d.HasErrors() {
		return
	}
	args, d := callArguments(remain)
	l.diags = append(l.diags, d...)
	n.Syntax = &config.Syntax{
		Body:      remain,
		DependsOn: dependsOnTraversals(content.Attributes["depends_on"]),
		Decl: &config.SyntaxDecl{
			Source:  literalString(content.Attributes["source"]),
			Version: literalString(content.Attributes["version"]),
		},
	}
	call := &moduleCall{node: n, parent: m, block: b, args: args}
	m.calls[name] = call

	srcAttr := content.Attributes["source"]
	providersAttr := content.Attributes["providers"]
	if providersAttr != nil {
		m.passProviders(call, providersAttr)
	}
	dir, ok := l.opts.Modules[ModuleKey(n.Addr)]
	if !ok {
		if dir, ok = m.localSource(srcAttr, content.Attributes["version"], n.Addr); !ok {
			return
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		l.errorf(srcAttr.Expr.Range(), "Module not found",
			"The module source does not name a folder (looked for %s). Create the folder or correct the path.", dir)
		return
	}
	if m.path == "" {
		n.Terraform = m.terraformCall(n, b, dir)
	}
	if m.depth >= 32 {
		l.errorf(b.DefRange, "Modules nested too deeply", "Module calls are nested more than 32 levels deep; a module probably calls itself.")
		return
	}
	rel, _ := filepath.Rel(l.dir, dir)
	n.Repeat, call.repeat = l.repeat(content.Attributes, m, n)
	for _, lb := range content.Blocks {
		lc, d := lb.Body.Content(moduleLifecycleSchema)
		l.diags = append(l.diags, d...)
		if a, ok := lc.Attributes["enabled"]; ok && !d.HasErrors() {
			if m.enabled(n, a); n.Enabled != nil {
				call.repeat = "enabled"
			}
		}
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		n.DependsOn = m.dependsOn(a)
	}
	child := &module{l: l, dir: dir, relDir: filepath.ToSlash(rel), path: n.Addr, call: call, depth: m.depth + 1}
	call.child = child
	if child.load(b) {
		child.checkPassed(providersAttr)
	}
	l.later(func() { m.resolveDependsOn(n) })
}

// callArguments are a module call's arguments: what its body sets besides
// the meta-arguments. hclsyntax's JustAttributes refuses every block, the
// lifecycle blocks PartialContent took too, so those are not refused here.
func callArguments(remain hcl.Body) (hcl.Attributes, hcl.Diagnostics) {
	return withoutLifecycle(remain).JustAttributes()
}

// withoutLifecycle is a body without its lifecycle blocks, in an override
// file's too.
func withoutLifecycle(body hcl.Body) hcl.Body {
	switch b := body.(type) {
	case *hclsyntax.Body:
		others := *b
		others.Blocks = nil
		for _, blk := range b.Blocks {
			if blk.Type != "lifecycle" {
				others.Blocks = append(others.Blocks, blk)
			}
		}
		return &others
	case mergedBody:
		return mergedBody{withoutLifecycle(b.base), withoutLifecycle(b.over), b.rule}
	}
	return body
}

// localSource is the folder of a module call whose source is a literal
// local path, the one kind of source that needs no installing; any other
// is an error saying to install it.
func (m *module) localSource(srcAttr, version *hcl.Attribute, addr string) (string, bool) {
	l := m.l
	srcVal, d := srcAttr.Expr.Value(nil)
	if d.HasErrors() || srcVal.Type() != cty.String || srcVal.IsNull() {
		l.errorf(srcAttr.Expr.Range(), "Module not installed",
			"The source of %s is an expression, evaluated when modules are installed. Run \"tether init\" to install it.", addr)
		return "", false
	}
	src := srcVal.AsString()
	if !isLocalSource(src) {
		l.errorf(srcAttr.Expr.Range(), "Module not installed",
			"The module %s (source %q) is not installed. Run \"tether init\" to install it.", addr, src)
		return "", false
	}
	if version != nil {
		l.errorf(version.NameRange, "Version not allowed for a local module", "A module loaded from a local folder has no version; remove the version argument.")
	}
	return filepath.Join(m.dir, filepath.FromSlash(src)), true
}

// arguments declares a called module's variables, each set from the
// call's argument of the same name or its default.
func (m *module) arguments(blocks []*hcl.Block) {
	l := m.l
	call := m.call
	given := call.argumentRanges()
	declared := map[string]bool{}
	for _, b := range blocks {
		v := m.variable(b)
		if v == nil {
			continue
		}
		name := v.node.Name
		declared[name] = true
		v.node.Argument = true
		m.vars = append(m.vars, v)
		if call.external != nil && call.external.open {
			m.externalArgument(v, Argument{Range: v.node.DeclRange, Eval: func(config.Scope, config.Instance) (cty.Value, hcl.Diagnostics) {
				return cty.DynamicVal, nil
			}})
			continue
		}
		if _, ok := given[name]; !ok {
			if !v.hasDef {
				hint := fmt.Sprintf(" Add %s = ... to the module block.", name)
				if call.external != nil {
					hint = ""
				}
				l.errorf(call.declRange(), fmt.Sprintf("Missing required argument %q", name),
					"The module %s needs a value for its variable %q, which has no default.%s", call.node.Addr, name, hint)
				continue
			}
			m.finishVariable(v)
			continue
		}
		if call.external != nil {
			m.externalArgument(v, call.external.Args[name])
		} else {
			m.argument(v, call.args[name])
		}
	}
	for _, name := range sortedKeysOf(given) {
		if !declared[name] {
			l.errorf(given[name], "Unsupported argument",
				"The module %s declares no variable named %q.%s", call.node.Addr, name, didYouMean(name, keys(declared)))
		}
	}
}

// argumentRanges are the call's arguments by name, each with where it is
// given.
func (c *moduleCall) argumentRanges() map[string]hcl.Range {
	out := map[string]hcl.Range{}
	if c.external != nil {
		for name, a := range c.external.Args {
			out[name] = a.Range
		}
		return out
	}
	for name, a := range c.args {
		out[name] = a.NameRange
	}
	return out
}

// argument sets a variable from the module block's argument.
func (m *module) argument(v *variableDecl, arg *hcl.Attribute) {
	call := m.call
	m.validate(v, arg.Expr.Range())
	traversals := arg.Expr.Variables()
	m.l.later(func() {
		refs := call.parent.resolve(v.node, traversals, call.repeat)
		v.node.Eval = config.EvalFunc(func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
			val, diags := arg.Expr.Value(call.parent.evalContext(refs, scope, inst, cty.NilVal))
			if diags.HasErrors() {
				return cty.DynamicVal, diags
			}
			return v.convert(val, arg.Expr.Range())
		})
	})
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
