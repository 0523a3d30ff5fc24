package hclconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// requiredProvider is one entry of a required_providers block.
type requiredProvider struct {
	local       string
	source      tfaddr.Provider
	constraints []string
	// aliases are the configuration_aliases: provider configurations the
	// module expects its callers to pass, by alias.
	aliases []string
	rng     hcl.Range
}

// readRequiredProviders reads a required_providers block. Entries are
// objects (`{ source, version, configuration_aliases }`), or the legacy
// version constraint string. configuration_aliases holds references, not
// values, so the entries are taken apart as expressions.
func readRequiredProviders(b *hcl.Block) ([]requiredProvider, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	var out []requiredProvider
	for _, a := range sortedAttrs(attrs) {
		rp := requiredProvider{local: a.Name, rng: a.NameRange}
		src := ""
		if items, d := hcl.ExprMap(a.Expr); !d.HasErrors() {
			for _, item := range items {
				key := hcl.ExprAsKeyword(item.Key)
				if key == "" {
					if kv, d := item.Key.Value(nil); !d.HasErrors() && kv.Type() == cty.String && !kv.IsNull() {
						key = kv.AsString()
					}
				}
				switch key {
				case "source", "version":
					v, d := item.Value.Value(nil)
					if d.HasErrors() || v.Type() != cty.String || v.IsNull() {
						diags = append(diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Invalid required_providers entry",
							Detail:   fmt.Sprintf("The %s of provider %q must be a literal string.", key, a.Name),
							Subject:  item.Value.Range().Ptr(),
						})
						continue
					}
					if key == "source" {
						src = v.AsString()
					} else {
						rp.constraints = append(rp.constraints, v.AsString())
					}
				case "configuration_aliases":
					exprs, d := hcl.ExprList(item.Value)
					diags = append(diags, d...)
					for _, e := range exprs {
						t, d := hcl.AbsTraversalForExpr(e)
						if d.HasErrors() || len(t) != 2 || t.RootName() != a.Name {
							diags = append(diags, &hcl.Diagnostic{
								Severity: hcl.DiagError,
								Summary:  "Invalid configuration alias",
								Detail:   fmt.Sprintf("Each configuration alias of provider %q is written %s.ALIAS, without quotes.", a.Name, a.Name),
								Subject:  e.Range().Ptr(),
							})
							continue
						}
						rp.aliases = append(rp.aliases, t[1].(hcl.TraverseAttr).Name)
					}
				default:
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid required_providers entry",
						Detail:   fmt.Sprintf("A provider requirement takes source, version and configuration_aliases; %q is none of them.", key),
						Subject:  item.Key.Range().Ptr(),
					})
				}
			}
		} else {
			v, d := a.Expr.Value(nil)
			if d.HasErrors() || v.Type() != cty.String || v.IsNull() {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid required_providers entry",
					Detail:   fmt.Sprintf("Provider %q must be required with an object such as { source = \"hashicorp/%s\", version = \"~> 1.0\" }.", a.Name, a.Name),
					Subject:  a.Expr.Range().Ptr(),
				})
				continue
			}
			// The legacy form `name = "constraint"` names no source.
			rp.constraints = append(rp.constraints, v.AsString())
		}
		var err error
		if src == "" {
			rp.source, err = impliedSource(a.Name)
		} else {
			rp.source, err = tfaddr.ParseProviderSource(src)
		}
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider source",
				Detail:   fmt.Sprintf("The source of provider %q is not a valid provider source address: %s.", a.Name, err),
				Subject:  a.Expr.Range().Ptr(),
			})
			continue
		}
		if rp.source.IsBuiltIn() && rp.source != config.TerraformSource {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid dependency on built-in provider",
				Detail:   fmt.Sprintf("Cannot use %s: Tether has no built-in provider named %q; the only one is %s.", rp.source, rp.source.Type, config.TerraformSource),
				Subject:  a.Expr.Range().Ptr(),
			})
			continue
		}
		out = append(out, rp)
	}
	return out, diags
}

// impliedSource is the source address a local name implies when no
// required_providers entry gives one.
func impliedSource(name string) (tfaddr.Provider, error) {
	switch name {
	case "tether":
		return config.BuiltinSource, nil
	case "terraform":
		return config.TerraformSource, nil
	}
	return tfaddr.ParseProviderSource("hashicorp/" + name)
}

// requireProviders records a module's required_providers.
//
// An override file's entries replace those of the same local name.
func (m *module) requireProviders(b *hcl.Block, override bool) {
	content, _, d := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "required_providers"}}})
	m.l.diags = append(m.l.diags, d...)
	for _, rb := range content.Blocks {
		rps, d := readRequiredProviders(rb)
		m.l.diags = append(m.l.diags, d...)
		for _, rp := range rps {
			if prev, ok := m.required[rp.local]; ok && prev.source != rp.source && !override {
				m.l.errorf(rp.rng, "Duplicate provider local name", "The local name %q is already required as %s at %s.", rp.local, prev.source.ForDisplay(), rangeString(prev.rng))
				continue
			}
			m.required[rp.local] = rp
		}
	}
}

// sourceOf is the source address a local name stands for in this module.
func (m *module) sourceOf(local string, rng hcl.Range) (tfaddr.Provider, bool) {
	if rp, ok := m.required[local]; ok {
		return rp.source, true
	}
	src, err := impliedSource(local)
	if err != nil {
		m.l.errorf(rng, "Invalid provider local name", "The provider local name %q implies no valid source address: %s. Declare it in required_providers with a source.", local, err)
		return tfaddr.Provider{}, false
	}
	return src, true
}

// providerRef reads a reference to a provider configuration, `aws` or
// `aws.west`, from an expression.
func providerRef(expr hcl.Expression) (local, alias string, ok bool) {
	t, d := hcl.AbsTraversalForExpr(expr)
	if d.HasErrors() || len(t) == 0 || len(t) > 2 {
		return "", "", false
	}
	local = t.RootName()
	if len(t) == 2 {
		a, isAttr := t[1].(hcl.TraverseAttr)
		if !isAttr {
			return "", "", false
		}
		alias = a.Name
	}
	return local, alias, true
}

func refString(local, alias string) string {
	if alias == "" {
		return local
	}
	return local + "." + alias
}

// providerConfig resolves a provider reference made in this module, such
// as a resource's provider argument (or the provider its type implies),
// to the address of the provider configuration that serves it. A default
// configuration that nothing declares is declared implicitly in the root
// module, as Terraform does; an alias must be declared, or, in a called
// module, passed by the call.
func (m *module) providerConfig(local, alias string, rng hcl.Range) (string, tfaddr.Provider, bool) {
	src, ok := m.sourceOf(local, rng)
	if !ok {
		return "", src, false
	}
	ref := refString(local, alias)
	if a, ok := m.ownConfigs[ref]; ok {
		return a, src, true
	}
	if m.call == nil {
		pc := addr.ProviderConfig{Source: src, Alias: alias}
		a, ok := m.implied[pc]
		if !ok {
			a = pc.String()
			if m.implied == nil {
				m.implied = map[addr.ProviderConfig]string{}
			}
			m.implied[pc] = a
		}
		if alias == "" {
			m.l.useProvider(a, src, local, rng)
		} else {
			m.l.later(func() {
				if _, ok := m.l.decls[a]; !ok {
					m.l.errorf(rng, "Provider configuration not present",
						"There is no provider block for %s with alias = %q in the root module. Add one, or refer to a configuration that exists.", local, alias)
				}
			})
		}
		return a, src, true
	}
	if a, ok := m.call.passed[ref]; ok {
		return a, src, true
	}
	if alias != "" && m.declaresAlias(local, alias) {
		// checkPassed says so once, at the call.
		return "", src, false
	}
	if alias != "" {
		m.l.errorf(rng, "Provider configuration not passed",
			"This module uses the provider configuration %s, which its call %s does not pass. Add providers = { %s = ... } to the module block at %s, and list %s in configuration_aliases.",
			ref, m.call.node.Addr, ref, rangeString(m.call.declRange()), ref)
		return "", src, false
	}
	a, ok := m.call.parent.defaultConfig(src, local, rng)
	return a, src, ok
}

// defaultConfig is the default configuration of the provider src in this
// module: what a called module inherits when its call passes none.
func (m *module) defaultConfig(src tfaddr.Provider, local string, rng hcl.Range) (string, bool) {
	for ref, a := range m.ownConfigs {
		if strings.Contains(ref, ".") {
			continue
		}
		if s, ok := m.sourceOf(ref, rng); ok && s == src {
			return a, true
		}
	}
	if m.call == nil {
		a := addr.ProviderConfig{Source: src}.String()
		m.l.useProvider(a, src, local, rng)
		return a, true
	}
	for ref, a := range m.call.passed {
		if strings.Contains(ref, ".") {
			continue
		}
		if s, ok := m.sourceOf(ref, rng); ok && s == src {
			return a, true
		}
	}
	return m.call.parent.defaultConfig(src, local, rng)
}

// useProvider notes that a default provider configuration is used, so
// that one with an empty body is declared if no provider block does.
func (l *loader) useProvider(a string, src tfaddr.Provider, local string, rng hcl.Range) {
	if _, seen := l.providerUses[a]; !seen {
		l.providerUses[a] = providerUse{source: src, local: local, rng: rng}
	}
}

type providerUse struct {
	source tfaddr.Provider
	local  string
	rng    hcl.Range
}

// passProviders reads a module call's providers argument: each entry
// passes a configuration of the calling module to the called one, under
// the called module's local name (and alias).
func (m *module) passProviders(call *moduleCall, a *hcl.Attribute) {
	call.passed = map[string]string{}
	call.passedKeys = map[string]hcl.Expression{}
	items, d := hcl.ExprMap(a.Expr)
	m.l.diags = append(m.l.diags, d...)
	for _, item := range items {
		childLocal, childAlias, ok1 := providerRef(item.Key)
		local, alias, key, ok2 := keyedProviderRef(item.Value)
		if !ok1 || !ok2 {
			m.l.errorf(item.Key.Range(), "Invalid providers entry",
				"Each entry of providers maps a provider of the called module to one of this module, as in { aws = aws.west }, without quotes.")
			continue
		}
		a, _, ok := m.providerConfig(local, alias, item.Value.Range())
		if !ok {
			continue
		}
		ref := refString(childLocal, childAlias)
		call.passed[ref] = a
		if key != nil {
			call.passedKeys[ref] = key
		}
		rng := item.Value.Range()
		m.l.later(func() {
			target, ok := m.l.decls[a]
			switch {
			case !ok:
			case target.Repeat != nil && key == nil && m.call != nil && passedOn(m, a):
				// The instance this module was given, passed on.
			case target.Repeat != nil && key == nil:
				m.l.errorf(rng, "Provider instance key missing",
					"%s is repeated with for_each, so a module is passed one of its instances: %s[each.key], say.", target.Name, target.Name)
			case target.Repeat == nil && key != nil:
				m.l.errorf(key.Range(), "Provider configuration not repeated",
					"%s has no for_each, so it has no instances to pick by key; remove the index.", target.Name)
			}
		})
	}
}

// checkPassed runs once the called module's required_providers are known:
// every passed configuration must be of the provider the called module
// means by that name, and every configuration alias it declares must be
// passed.
func (m *module) checkPassed(a *hcl.Attribute) {
	call := m.call
	rng := call.block.DefRange
	if a != nil {
		rng = a.Expr.Range()
	}
	for ref, pa := range call.passed {
		local, alias, _ := strings.Cut(ref, ".")
		want, ok := m.sourceOf(local, rng)
		if !ok {
			continue
		}
		got, err := addr.ParseProviderConfig(pa)
		if err == nil && got.Source != want {
			m.l.errorf(rng, "Provider type mismatch",
				"The module %s means %s by %q, but the configuration passed for it, %s, is of %s.", call.node.Addr, want.ForDisplay(), local, pa, got.Source.ForDisplay())
		}
		if alias != "" && !m.declaresAlias(local, alias) {
			m.l.errorf(rng, "Provider configuration not expected",
				"The module %s does not list %s in its configuration_aliases, so it cannot use what is passed for it. Add it to the module's required_providers.", call.node.Addr, ref)
		}
	}
	for _, local := range sortedKeysOf(m.required) {
		for _, alias := range m.required[local].aliases {
			ref := local + "." + alias
			if _, ok := call.passed[ref]; !ok {
				m.l.errorf(call.block.DefRange, "Provider configuration not passed",
					"The module %s declares the configuration alias %s, which this call does not pass. Add providers = { %s = ... } to the module block.", call.node.Addr, ref, ref)
			}
		}
	}
}

func (m *module) declaresAlias(local, alias string) bool {
	for _, a := range m.required[local].aliases {
		if a == alias {
			return true
		}
	}
	return false
}

func sortedKeysOf[V any](mp map[string]V) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// functions is the module's function table: the built-in functions (by
// plain and core:: name) and provider::LOCAL::NAME for the functions of
// each provider the module requires.
func (m *module) functions() map[string]function.Function {
	if m.funcs != nil {
		return m.funcs
	}
	out := make(map[string]function.Function, len(m.l.funcs))
	for name, f := range m.l.funcs {
		out[name] = f
	}
	for local, rp := range m.required {
		ps := m.l.opts.Schemas[rp.source.String()]
		if ps == nil {
			continue
		}
		for _, name := range ps.Functions.Names() {
			out["provider::"+local+"::"+name], _ = provider.Callable(ps.Functions, name)
		}
	}
	m.funcs = out
	return out
}

// checkProviderFunctions reports calls to provider functions that no
// required provider of the module offers.
func (m *module) checkProviderFunctions(files []*hcl.File) {
	fns := m.functions()
	for _, f := range files {
		for _, call := range m.l.functionCalls(f) {
			if !strings.HasPrefix(call.Name, "provider::") {
				continue
			}
			if _, ok := fns[call.Name]; ok {
				continue
			}
			parts := strings.Split(call.Name, "::")
			detail := fmt.Sprintf("There is no function named %q.", call.Name)
			if len(parts) == 3 {
				if _, required := m.required[parts[1]]; !required {
					detail = fmt.Sprintf("The function %q belongs to provider %q, which this module does not list in required_providers; provider functions need the provider required by that local name.", call.Name, parts[1])
				} else {
					var names []string
					if ps := m.l.opts.Schemas[m.required[parts[1]].source.String()]; ps != nil {
						names = ps.Functions.Names()
					}
					detail = fmt.Sprintf("Provider %s has no function named %q.%s", m.required[parts[1]].source.ForDisplay(), parts[2], didYouMean(parts[2], names))
				}
			}
			m.l.errorf(call.NameRange, "Call to unknown function", "%s", detail)
		}
	}
}

// keyedProviderRef reads a resource's provider argument: a configuration
// (`aws`, `aws.west`), or an instance of one repeated with for_each, whose
// key is an expression (`aws.by_region[each.key]`).
func keyedProviderRef(expr hcl.Expression) (local, alias string, key hcl.Expression, ok bool) {
	if local, alias, ok = providerRef(expr); ok {
		return local, alias, nil, true
	}
	if t, d := hcl.AbsTraversalForExpr(expr); !d.HasErrors() && len(t) == 3 {
		if idx, isIndex := t[2].(hcl.TraverseIndex); isIndex {
			if a, isAttr := t[1].(hcl.TraverseAttr); isAttr {
				return t.RootName(), a.Name, &hclsyntax.LiteralValueExpr{Val: idx.Key, SrcRange: idx.SrcRange}, true
			}
		}
		return "", "", nil, false
	}
	ie, isIndex := expr.(*hclsyntax.IndexExpr)
	if !isIndex {
		return "", "", nil, false
	}
	local, alias, ok = providerRef(ie.Collection)
	if !ok || alias == "" {
		return "", "", nil, false
	}
	return local, alias, ie.Key, true
}

// providerKey checks a resource's provider reference against the
// configuration it names, once every declaration is known: a repeated
// configuration needs a key, and only a repeated one takes one. The key is
// evaluated per instance of the resource, or, when the module's call
// passed one instance, per instance of the module where the call is.
func (m *module) providerKey(n *config.Node, key hcl.Expression, rng hcl.Range, repeatKind string) {
	target, ok := m.l.decls[n.Provider]
	if !ok {
		return // reported where the configuration was looked up
	}
	if key == nil && target.Repeat != nil && m.call != nil {
		if ck, call, up, passed := m.passedKeyFor(n.Provider); passed {
			refs := call.parent.resolve(n, ck.Variables(), call.repeat)
			n.ProviderKey = func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
				return ck.Value(call.parent.evalContext(refs, scope, inst, cty.NilVal))
			}
			n.ProviderKeyFromCall = up
			return
		}
	}
	switch {
	case target.Repeat != nil && key == nil:
		m.l.errorf(rng, "Provider instance key missing",
			"%s is repeated with for_each, so a resource names one of its instances: provider = %s[each.key], say.", target.Name, target.Name)
	case target.Repeat == nil && key != nil:
		m.l.errorf(key.Range(), "Provider configuration not repeated",
			"%s has no for_each, so it has no instances to pick by key; remove the index.", target.Name)
	case key != nil:
		refs := m.resolve(n, key.Variables(), repeatKind)
		n.ProviderKey = func(scope config.Scope, inst config.Instance) (cty.Value, hcl.Diagnostics) {
			return key.Value(m.evalContext(refs, scope, inst, cty.NilVal))
		}
	}
}

// bodyAttrs finds where a block body sets the attribute at path: an
// attribute's expression, or a nested block (by its type and position).
// It is nil where the body was not written in native syntax or is
// generated (dynamic blocks): no range is known there.
func bodyAttrs(body hcl.Body) config.Attrs {
	switch b := body.(type) {
	case *heldBody:
		return b
	case *hclsyntax.Body:
		return (*syntaxRanges)(b)
	}
	return nil
}

// AttrName implements config.Attrs: the configuration names attributes
// as the schema does.
func (h *heldBody) AttrName(cty.Path) (string, bool) { return "", false }

// AttrRange implements config.Attrs for a body of arguments only:
// the first step names one or nothing.
func (h *heldBody) AttrRange(path cty.Path) (hcl.Range, bool) {
	if len(path) > 0 {
		if step, ok := path[0].(cty.GetAttrStep); ok {
			if a := h.attr(step.Name); a != nil {
				return a.expr.Range(), true
			}
		}
	}
	return hcl.Range{}, false
}

// syntaxRanges is a native-syntax body as config.Attrs.
type syntaxRanges hclsyntax.Body

// AttrName implements config.Attrs: the configuration names attributes
// as the schema does.
func (*syntaxRanges) AttrName(cty.Path) (string, bool) { return "", false }

// AttrRange implements config.Attrs: an attribute's expression, or
// a nested block (by its type and position).
func (sr *syntaxRanges) AttrRange(path cty.Path) (hcl.Range, bool) {
	b := (*hclsyntax.Body)(sr)
	var last hcl.Range
	found := false
	for i := 0; i < len(path); i++ {
		step, isAttr := path[i].(cty.GetAttrStep)
		if !isAttr {
			return last, found
		}
		if a, has := b.Attributes[step.Name]; has {
			return a.Expr.Range(), true
		}
		var blocks []*hclsyntax.Block
		for _, blk := range b.Blocks {
			if blk.Type == step.Name {
				blocks = append(blocks, blk)
			}
		}
		if len(blocks) == 0 {
			return last, found
		}
		blk := blocks[0]
		if i+1 < len(path) {
			if idx, isIndex := path[i+1].(cty.IndexStep); isIndex {
				if idx.Key.Type() == cty.Number {
					n, _ := idx.Key.AsBigFloat().Int64()
					if n >= 0 && int(n) < len(blocks) {
						blk = blocks[n]
					}
				} else if idx.Key.Type() == cty.String {
					for _, c := range blocks {
						if len(c.Labels) > 0 && c.Labels[0] == idx.Key.AsString() {
							blk = c
						}
					}
				}
				i++
			}
		}
		last, found = blk.DefRange(), true
		b = blk.Body
	}
	return last, found
}

// declareOwnConfigs notes the addresses of the provider configurations a
// called module declares itself, before anything in it refers to them.
// The root module's are found by address instead.
func (m *module) declareOwnConfigs(blocks []*hcl.Block) {
	m.ownConfigs = map[string]string{}
	if m.path == "" {
		return
	}
	for _, b := range blocks {
		if b.Type != "provider" {
			continue
		}
		local, alias := b.Labels[0], ""
		if meta, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}}}); meta != nil {
			if a, ok := meta.Attributes["alias"]; ok {
				if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && !v.IsNull() {
					alias = v.AsString()
				}
			}
		}
		src, err := impliedSource(local)
		if rp, ok := m.required[local]; ok {
			src, err = rp.source, nil
		}
		if err != nil {
			continue
		}
		m.ownConfigs[refString(local, alias)] = addr.ProviderConfig{Module: m.path, Source: src, Alias: alias}.String()
	}
}

// passedKeyFor finds the module call that passed this module an instance
// of the repeated configuration at address a: this module's call, or, when
// that call passed the configuration on without a key (`providers = { aws
// = aws }`) or passed nothing for it (the module inherits its parent's),
// the call of the module around it, and so on up. It returns the key
// expression, the call, and how many calls up it is (1 for this module's).
func (m *module) passedKeyFor(a string) (hcl.Expression, *moduleCall, int, bool) {
	up := 0
	for mod := m; mod.call != nil; mod = mod.call.parent {
		up++
		for ref, pa := range mod.call.passed {
			if pa == a {
				if k := mod.call.passedKeys[ref]; k != nil {
					return k, mod.call, up, true
				}
			}
		}
	}
	return nil, nil, 0, false
}

// passedOn reports whether module m was given one instance of the
// repeated configuration at address a, which it may pass on as its own.
func passedOn(m *module, a string) bool {
	_, _, _, ok := m.passedKeyFor(a)
	return ok
}
