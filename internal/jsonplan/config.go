package jsonplan

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig/schemabody"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/provider"
)

// Configuration is the `configuration` section of a JSON plan, in
// Terraform's own shape: terraform-json's types cannot say everything
// Terraform writes there (a constant null, a single nested block as an
// object), so it has types of its own, which terraform-json reads.
type Configuration struct {
	ProviderConfig map[string]ProviderConfig `json:"provider_config,omitempty"`
	RootModule     ConfigModule              `json:"root_module"`
}

// ProviderConfig is one provider configuration, keyed by its local name
// (and alias), prefixed with "MODULE:" inside a module.
type ProviderConfig struct {
	Name              string         `json:"name,omitempty"`
	FullName          string         `json:"full_name,omitempty"`
	Alias             string         `json:"alias,omitempty"`
	VersionConstraint string         `json:"version_constraint,omitempty"`
	ModuleAddress     string         `json:"module_address,omitempty"`
	Expressions       map[string]any `json:"expressions,omitempty"`
}

// ConfigModule is what one module declares.
type ConfigModule struct {
	Outputs     map[string]ConfigOutput   `json:"outputs,omitempty"`
	Resources   []ConfigResource          `json:"resources,omitempty"`
	ModuleCalls map[string]ModuleCall     `json:"module_calls,omitempty"`
	Variables   map[string]ConfigVariable `json:"variables,omitempty"`
}

// ModuleCall is a module block and the module it calls.
type ModuleCall struct {
	Source            string         `json:"source,omitempty"`
	Expressions       map[string]any `json:"expressions,omitempty"`
	CountExpression   *Expression    `json:"count_expression,omitempty"`
	ForEachExpression *Expression    `json:"for_each_expression,omitempty"`
	Module            ConfigModule   `json:"module"`
	VersionConstraint string         `json:"version_constraint,omitempty"`
	DependsOn         []string       `json:"depends_on,omitempty"`
}

// ConfigVariable is an input variable's declaration.
type ConfigVariable struct {
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
}

// ConfigResource is a resource or data source block.
type ConfigResource struct {
	Address           string         `json:"address,omitempty"`
	Mode              string         `json:"mode,omitempty"`
	Type              string         `json:"type,omitempty"`
	Name              string         `json:"name,omitempty"`
	ProviderConfigKey string         `json:"provider_config_key,omitempty"`
	Expressions       map[string]any `json:"expressions,omitempty"`
	SchemaVersion     uint64         `json:"schema_version"`
	CountExpression   *Expression    `json:"count_expression,omitempty"`
	ForEachExpression *Expression    `json:"for_each_expression,omitempty"`
	DependsOn         []string       `json:"depends_on,omitempty"`
}

// ConfigOutput is an output block.
type ConfigOutput struct {
	Sensitive   bool       `json:"sensitive,omitempty"`
	Expression  Expression `json:"expression"`
	DependsOn   []string   `json:"depends_on,omitempty"`
	Description string     `json:"description,omitempty"`
}

// Expression is an expression as written: its value when it refers to
// nothing and needs no function, else the references in it.
type Expression struct {
	ConstantValue json.RawMessage `json:"constant_value,omitempty"`
	References    []string        `json:"references,omitempty"`
}

func (e Expression) empty() bool { return e.ConstantValue == nil && e.References == nil }

// SchemaFunc gives the schema of the provider with a source address.
type SchemaFunc func(source string) (*provider.Schema, error)

// FromConfig builds the configuration section from what the front-end
// read. Nodes without config.Syntax (a Go program's) are listed with
// their addresses, types and providers, without expressions.
func FromConfig(cfg *config.Config, schema SchemaFunc) (*Configuration, error) {
	b := configBuilder{cfg: cfg, schema: schema, byModule: map[string][]*config.Node{}, providers: map[string]*config.Node{}}
	for _, n := range cfg.Nodes {
		b.byModule[n.Module] = append(b.byModule[n.Module], n)
		if n.Kind == config.Provider {
			b.providers[n.Addr] = n
		}
	}
	b.homes = b.impliedHomes()
	out := &Configuration{ProviderConfig: map[string]ProviderConfig{}}
	if err := b.providerConfigs(out.ProviderConfig); err != nil {
		return nil, err
	}
	root, err := b.module("")
	if err != nil {
		return nil, err
	}
	out.RootModule = root
	return out, nil
}

type configBuilder struct {
	cfg       *config.Config
	schema    SchemaFunc
	byModule  map[string][]*config.Node
	providers map[string]*config.Node
	// homes are the static module paths where an implied provider
	// configuration is keyed, by its address (see impliedHomes).
	homes map[string]map[string]bool
}

// impliedHomes finds where Terraform keys each default provider
// configuration that no provider block declares: at the root when the
// root module requires or uses the provider; otherwise in each module
// that requires or uses it while none of its callers does
// ("module.x:NAME"), an entry the modules it calls share. Only providers
// some resource uses are considered.
func (b *configBuilder) impliedHomes() map[string]map[string]bool {
	users := map[string]map[string]bool{}
	for _, n := range b.cfg.Nodes {
		p, ok := b.providers[n.Provider]
		if !ok || p.Syntax != nil || providerModule(p) != "" {
			continue
		}
		switch n.Kind {
		case config.Resource, config.DataSource, config.Ephemeral:
			if users[p.Addr] == nil {
				users[p.Addr] = map[string]bool{}
			}
			users[p.Addr][n.Module] = true
		}
	}
	homes := map[string]map[string]bool{}
	for a, mods := range users {
		p := b.providers[a]
		// Requiring it is using it, as for Terraform.
		for _, r := range b.cfg.Required {
			if r.Source.String() == p.Source {
				mods[""] = true
			}
		}
		for path, req := range b.cfg.ModuleRequired {
			for _, r := range req {
				if r.Source.String() == p.Source {
					mods[path] = true
				}
			}
		}
		homes[a] = map[string]bool{}
		for m := range mods {
			if b.homeOf(mods, m) == m {
				homes[a][m] = true
			}
		}
	}
	return homes
}

// homeOf is the outermost of module m and its callers found in mods.
func (b *configBuilder) homeOf(mods map[string]bool, m string) string {
	home := m
	for {
		if mods[m] {
			home = m
		}
		if m == "" {
			return home
		}
		m = parentModule(m)
	}
}

// parentModule is the static path of the module that calls module m.
func parentModule(m string) string {
	parts := addr.Split(m + ".x")
	if len(parts) <= 3 {
		return ""
	}
	return strings.Join(parts[:len(parts)-3], ".")
}

// providerKey is Terraform's key for a provider configuration: its local
// name and alias, after "MODULE:" inside a module.
func providerKey(name, module string) string {
	if module == "" {
		return name
	}
	return module + ":" + name
}

// providerModule is the static module path a provider configuration is
// declared in.
func providerModule(n *config.Node) string {
	if n.Module != "" {
		return n.Module
	}
	if pc, err := addr.ParseProviderConfig(n.Addr); err == nil {
		return staticModule(pc.Module)
	}
	return ""
}

// staticModule drops instance keys from a module path.
func staticModule(path string) string {
	if path == "" {
		return ""
	}
	parts := addr.Split(path + ".x")
	return strings.Join(parts[:len(parts)-1], ".")
}

// providerConfigs lists, as Terraform does, every provider block, the
// root module's other required and implied providers, and a module's
// own providers; a module's use of a configuration it inherits or is
// passed is its caller's entry, which its resources name.
func (b *configBuilder) providerConfigs(m map[string]ProviderConfig) error {
	for _, n := range b.cfg.Nodes {
		if n.Kind != config.Provider {
			continue
		}
		module := providerModule(n)
		if module != "" && n.Syntax == nil {
			continue
		}
		local, alias, _ := strings.Cut(n.Name, ".")
		pc := ProviderConfig{Name: local, FullName: n.Source, Alias: alias, ModuleAddress: module}
		var err error
		if n.Syntax != nil {
			if pc.VersionConstraint, err = constraints(n.Source, []string{n.Syntax.Declared().Version}); err != nil {
				return fmt.Errorf("%s: %w", n.Addr, err)
			}
			ps, err := b.schema(n.Source)
			if err != nil {
				return fmt.Errorf("%s: %w", n.Addr, err)
			}
			pc.Expressions = expressions(n.Syntax.Body, orEmptyBlock(ps.Provider))
		} else if r, ok := b.cfg.Required[local]; ok {
			if pc.VersionConstraint, err = constraints(n.Source, r.Constraints); err != nil {
				return fmt.Errorf("%s: %w", n.Addr, err)
			}
		}
		if homes := b.homes[n.Addr]; n.Syntax == nil && module == "" && len(homes) > 0 && !homes[""] {
			// Only modules use it: each outermost one keys it.
			for home := range homes {
				pc := ProviderConfig{Name: local, FullName: n.Source, ModuleAddress: home}
				var raw []string
				for _, r := range b.cfg.ModuleRequired[home] {
					if r.Source.String() == n.Source {
						raw = append(raw, r.Constraints...)
					}
				}
				var err error
				if pc.VersionConstraint, err = constraints(n.Source, raw); err != nil {
					return fmt.Errorf("%s in %s: %w", n.Addr, home, err)
				}
				m[providerKey(n.Name, home)] = pc
			}
			continue
		}
		m[providerKey(n.Name, module)] = pc
	}
	for local, r := range b.cfg.Required {
		if _, ok := m[local]; ok {
			continue
		}
		vc, err := constraints(r.Source.String(), r.Constraints)
		if err != nil {
			return fmt.Errorf("provider %s: %w", local, err)
		}
		m[local] = ProviderConfig{Name: local, FullName: r.Source.String(), VersionConstraint: vc}
	}
	return b.requiredOnlyInModules(m)
}

// requiredOnlyInModules adds the providers that modules require and that
// nothing above lists (no resource uses them, no block configures them,
// the root does not require them): as Terraform does, each outermost
// module requiring one keys it, with that module's constraints.
func (b *configBuilder) requiredOnlyInModules(m map[string]ProviderConfig) error {
	listed := map[string]bool{}
	for _, pc := range m {
		listed[pc.FullName] = true
	}
	requiring := map[string]map[string]bool{} // source -> module paths
	for path, req := range b.cfg.ModuleRequired {
		for _, r := range req {
			if src := r.Source.String(); !listed[src] {
				if requiring[src] == nil {
					requiring[src] = map[string]bool{}
				}
				requiring[src][path] = true
			}
		}
	}
	for src, mods := range requiring {
		for path := range mods {
			if b.homeOf(mods, path) != path {
				continue
			}
			for local, r := range b.cfg.ModuleRequired[path] {
				if r.Source.String() != src {
					continue
				}
				vc, err := constraints(src, r.Constraints)
				if err != nil {
					return fmt.Errorf("provider %s in %s: %w", local, path, err)
				}
				m[providerKey(local, path)] = ProviderConfig{Name: local, FullName: src, VersionConstraint: vc, ModuleAddress: path}
			}
		}
	}
	return nil
}

// constraints is version constraints as Terraform writes them.
func constraints(source string, raw []string) (string, error) {
	p, err := tfaddr.ParseProviderSource(source)
	if err != nil {
		return "", err
	}
	return install.ConstraintsString(p, raw)
}

func orEmptyBlock(b *provider.Block) *provider.Block {
	if b == nil {
		return &provider.Block{}
	}
	return b
}

// module builds what the module at the static path declares.
func (b *configBuilder) module(path string) (ConfigModule, error) {
	var out ConfigModule
	var managed, data []ConfigResource
	for _, n := range b.byModule[path] {
		switch n.Kind {
		case config.Resource, config.DataSource:
			r, err := b.resource(n)
			if err != nil {
				return out, err
			}
			if n.Kind == config.Resource {
				managed = append(managed, r)
			} else {
				data = append(data, r)
			}
		case config.Output:
			if out.Outputs == nil {
				out.Outputs = map[string]ConfigOutput{}
			}
			o := ConfigOutput{Sensitive: n.Sensitive}
			if s := n.Syntax; s != nil {
				o.Expression = expression(s.Declared().Expr)
				o.DependsOn = dependsOn(s.DependsOn)
				o.Description = s.Declared().Description
			}
			out.Outputs[n.Name] = o
		case config.Variable:
			if out.Variables == nil {
				out.Variables = map[string]ConfigVariable{}
			}
			v := ConfigVariable{Sensitive: n.Sensitive}
			if s := n.Syntax; s != nil {
				d := s.Declared()
				v.Description = d.Description
				if d.Default != cty.NilVal {
					raw, err := ctyjson.Marshal(d.Default, d.Default.Type())
					if err != nil {
						return out, fmt.Errorf("%s: default: %w", n.Addr, err)
					}
					v.Default = raw
				}
			}
			out.Variables[n.Name] = v
		case config.Module:
			call, err := b.moduleCall(n)
			if err != nil {
				return out, err
			}
			if out.ModuleCalls == nil {
				out.ModuleCalls = map[string]ModuleCall{}
			}
			out.ModuleCalls[n.Name] = call
		}
	}
	for _, rs := range [][]ConfigResource{managed, data} {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Address < rs[j].Address })
	}
	out.Resources = append(managed, data...)
	return out, nil
}

func (b *configBuilder) resource(n *config.Node) (ConfigResource, error) {
	rel := strings.TrimPrefix(n.Addr, n.Module+".")
	if n.Module == "" {
		rel = n.Addr
	}
	r := ConfigResource{Address: rel, Mode: "managed", Type: n.Type, Name: n.Name}
	if n.Kind == config.DataSource {
		r.Mode = "data"
	}
	if p, ok := b.providers[n.Provider]; ok {
		module := providerModule(p)
		if homes := b.homes[p.Addr]; len(homes) > 0 {
			module = b.homeOf(homes, n.Module)
		}
		r.ProviderConfigKey = providerKey(p.Name, module)
	}
	ps, err := b.schema(n.Source)
	if err != nil {
		return r, fmt.Errorf("%s: %w", n.Addr, err)
	}
	types := ps.Resources
	if n.Kind == config.DataSource {
		types = ps.DataSources
	}
	rs, ok, err := types.Get(n.Type)
	if err != nil {
		return r, fmt.Errorf("%s: provider %s: %w", n.Addr, n.Source, err)
	}
	if !ok {
		return r, fmt.Errorf("%s: provider %s has no %s type %q", n.Addr, n.Source, n.Kind, n.Type)
	}
	r.SchemaVersion = uint64(rs.Version)
	r.CountExpression, r.ForEachExpression = repeat(n.Repeat)
	if s := n.Syntax; s != nil {
		r.Expressions = expressions(s.Body, orEmptyBlock(rs.Block))
		r.DependsOn = dependsOn(s.DependsOn)
	}
	return r, nil
}

func (b *configBuilder) moduleCall(n *config.Node) (ModuleCall, error) {
	var call ModuleCall
	call.CountExpression, call.ForEachExpression = repeat(n.Repeat)
	if s := n.Syntax; s != nil {
		call.Source, call.VersionConstraint = s.Declared().Source, s.Declared().Version
		call.DependsOn = dependsOn(s.DependsOn)
		// The call's arguments are its module's variables.
		vars := &provider.Block{Attributes: map[string]*provider.Attribute{}}
		for _, v := range b.byModule[n.Addr] {
			if v.Kind == config.Variable {
				vars.Attributes[v.Name] = &provider.Attribute{Type: cty.DynamicPseudoType, Optional: true}
			}
		}
		call.Expressions = expressions(s.Body, vars)
	}
	m, err := b.module(n.Addr)
	if err != nil {
		return call, err
	}
	call.Module = m
	return call, nil
}

// repeat is a count or for_each expression; Terraform leaves out one
// that shows nothing (a function of constants).
func repeat(r *config.Repeat) (count, forEach *Expression) {
	if r == nil || r.Expr == nil {
		return nil, nil
	}
	e := expression(r.Expr)
	if e.empty() {
		return nil, nil
	}
	if r.ForEach {
		return nil, &e
	}
	return &e, nil
}

// dependsOn is depends_on as Terraform writes it: what each entry refers
// to.
func dependsOn(ts []hcl.Traversal) []string {
	var out []string
	for _, t := range ts {
		if ref, ok := parseRef(t); ok {
			out = append(out, ref.subject)
		}
	}
	return out
}

// expressions are the arguments of body that schema declares, nested
// blocks as lists (or objects, or maps by label) of their own.
func expressions(body hcl.Body, schema *provider.Block) map[string]any {
	if body == nil {
		return nil
	}
	low := &hcl.BodySchema{}
	for name := range schema.Attributes {
		low.Attributes = append(low.Attributes, hcl.AttributeSchema{Name: name})
	}
	for name, nb := range schema.BlockTypes {
		h := hcl.BlockHeaderSchema{Type: name}
		if nb.Nesting == provider.NestingMap {
			h.LabelNames = []string{"key"}
		}
		low.Blocks = append(low.Blocks, h)
	}
	// Attributes written as blocks are shown as the attributes they are,
	// as Terraform shows them.
	content, _, _ := schemabody.Fixup(body, schema).PartialContent(low)
	if content == nil {
		return nil
	}
	out := map[string]any{}
	for name, a := range content.Attributes {
		out[name] = expression(a.Expr)
	}
	for _, blk := range content.Blocks {
		nb := schema.BlockTypes[blk.Type]
		nested := expressions(blk.Body, &nb.Block)
		switch nb.Nesting {
		case provider.NestingSingle, provider.NestingGroup:
			out[blk.Type] = nested
		case provider.NestingList, provider.NestingSet:
			list, _ := out[blk.Type].([]map[string]any)
			out[blk.Type] = append(list, nested)
		case provider.NestingMap:
			m, _ := out[blk.Type].(map[string]map[string]any)
			if m == nil {
				m = map[string]map[string]any{}
			}
			m[blk.Labels[0]] = nested
			out[blk.Type] = m
		}
	}
	return out
}

// expression is an expression's constant value, when it has one without
// any variable or function, and the references in it: each reference
// whole, then shortened a step at a time down to the object it names, as
// Terraform lists them (`tether_value.n[0].output`, `tether_value.n[0]`,
// `tether_value.n`), repeated where the expression repeats them.
func expression(e hcl.Expression) Expression {
	var out Expression
	if e == nil {
		return out
	}
	if v, _ := e.Value(nil); v != cty.NilVal {
		if raw, err := ctyjson.Marshal(v, v.Type()); err == nil {
			out.ConstantValue = raw
		}
	}
	for _, t := range e.Variables() {
		ref, ok := parseRef(t)
		if !ok {
			continue
		}
		for rest := ref.remaining; len(rest) > 0; rest = rest[:len(rest)-1] {
			out.References = append(out.References, ref.subject+traversalString(rest))
		}
		out.References = append(out.References, ref.subject)
		if ref.container != "" {
			out.References = append(out.References, ref.container)
		}
	}
	return out
}

// reference is a traversal read as Terraform reads it: the object it
// names (subject), what it goes on to take from that object, and the
// whole that the object is part of (a resource for an instance, a
// module call for an instance's output), if any.
type reference struct {
	subject   string
	remaining hcl.Traversal
	container string
}

// parseRef reads a traversal as Terraform's addrs.ParseRef does; false
// for what is not a reference (a bare type name, a malformed one).
func parseRef(t hcl.Traversal) (reference, bool) {
	if len(t) == 0 {
		return reference{}, false
	}
	root := t.RootName()
	switch root {
	case "count", "each", "local", "path", "terraform", "var":
		name, ok := attrName(t, 1)
		if !ok {
			return reference{}, false
		}
		return reference{subject: root + "." + name, remaining: t[2:]}, true
	case "self":
		return reference{subject: "self", remaining: t[1:]}, true
	case "module":
		name, ok := attrName(t, 1)
		if !ok {
			return reference{}, false
		}
		call := "module." + name
		rest := t[2:]
		if len(rest) == 0 {
			return reference{subject: call}, true
		}
		inst := call
		if ix, ok := rest[0].(hcl.TraverseIndex); ok {
			k, ok := instanceKey(ix.Key)
			if !ok {
				return reference{}, false
			}
			inst += k
			rest = rest[1:]
			if len(rest) == 0 {
				return reference{subject: inst, container: call}, true
			}
		}
		out, ok := rest[0].(hcl.TraverseAttr)
		if !ok {
			return reference{}, false
		}
		return reference{subject: inst + "." + out.Name, remaining: rest[1:], container: inst}, true
	case "data", "resource", "ephemeral":
		if len(t) < 3 {
			return reference{}, false
		}
		prefix := root + "."
		if root == "resource" {
			prefix = ""
		}
		return resourceRef(prefix, t[1:])
	case "string", "number", "bool", "any":
		if len(t) == 1 {
			return reference{}, false
		}
	}
	return resourceRef("", t)
}

func resourceRef(prefix string, t hcl.Traversal) (reference, bool) {
	if len(t) < 2 {
		return reference{}, false
	}
	var typ string
	switch s := t[0].(type) {
	case hcl.TraverseRoot:
		typ = s.Name
	case hcl.TraverseAttr:
		typ = s.Name
	default:
		return reference{}, false
	}
	name, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		return reference{}, false
	}
	resource := prefix + typ + "." + name.Name
	rest := t[2:]
	if len(rest) == 0 {
		return reference{subject: resource}, true
	}
	if ix, ok := rest[0].(hcl.TraverseIndex); ok {
		k, ok := instanceKey(ix.Key)
		if !ok {
			return reference{}, false
		}
		return reference{subject: resource + k, remaining: rest[1:], container: resource}, true
	}
	return reference{subject: resource, remaining: rest}, true
}

func attrName(t hcl.Traversal, i int) (string, bool) {
	if len(t) <= i {
		return "", false
	}
	a, ok := t[i].(hcl.TraverseAttr)
	return a.Name, ok
}

// instanceKey is an index as an instance key, `[0]` or `["a"]`.
func instanceKey(k cty.Value) (string, bool) {
	if k.IsNull() || !k.IsKnown() {
		return "", false
	}
	switch k.Type() {
	case cty.String:
		return addr.KeyString(k), true
	case cty.Number:
		if bf := k.AsBigFloat(); bf.IsInt() {
			return addr.KeyString(k), true
		}
	}
	return "", false
}

// traversalString writes the rest of a traversal as Terraform does:
// `.name`, `["key"]`, `[0]`.
func traversalString(t hcl.Traversal) string {
	var b strings.Builder
	for _, s := range t {
		switch s := s.(type) {
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			b.WriteByte('[')
			switch s.Key.Type() {
			case cty.String:
				fmt.Fprintf(&b, "%q", s.Key.AsString())
			case cty.Number:
				b.WriteString(s.Key.AsBigFloat().Text('g', 10))
			}
			b.WriteByte(']')
		}
	}
	return b.String()
}
