package hclconfig

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// Interface is what a module offers its callers: the variables a call sets
// and the outputs it reads. Generated module bindings are made from it.
type Interface struct {
	// Variables in declaration order, file by file.
	Variables []InterfaceVariable
	// Outputs sorted by name.
	Outputs []InterfaceOutput
}

// InterfaceVariable is one variable of a module.
type InterfaceVariable struct {
	Name string
	// Type is the type constraint, cty.DynamicPseudoType when the module
	// gives none (any value). Object types keep their optional
	// attributes.
	Type cty.Type
	// Default is the default value, cty.NilVal when there is none: a call
	// must then set the variable.
	Default             cty.Value
	Nullable, Sensitive bool
	Ephemeral           bool
	Description         string
	DeclRange           hcl.Range
}

// Required reports whether a call must set the variable.
func (v InterfaceVariable) Required() bool { return v.Default == cty.NilVal }

// InterfaceOutput is one output of a module.
type InterfaceOutput struct {
	Name string
	// Type is the type of the output's value, as far as it can be known
	// before any of the module's variables or resources are: see
	// ReadInterface. cty.DynamicPseudoType means any value.
	Type        cty.Type
	Sensitive   bool
	Ephemeral   bool
	Description string
	DeclRange   hcl.Range
}

// ReadInterface reads the variables and outputs of the module in dir, as a
// call of it would see them. opts.Schemas must hold the schema of every
// provider the module requires and opts.Modules the folders of the modules
// it calls that are not local, as Modules returns them for dir.
//
// An output's type is found by evaluating its expression, and what it
// refers to, with every variable unknown but of its type, every resource,
// data source and ephemeral resource unknown but of its schema's type, and
// every module call evaluated the same way. Where that leaves the type
// open, the output's Type is cty.DynamicPseudoType: a resource or module
// with count or for_each (how many instances, under which keys, is not
// known), a for expression over such a value, a conditional whose two
// results differ in type, a function whose result type depends on its
// arguments' values (jsondecode, lookup on an object). A tuple is what the
// expression builds ([a, b]); callers may read it as a list.
func ReadInterface(dir string, opts Options) (*Interface, hcl.Diagnostics) {
	call := Call{Name: "module", Dir: dir, DeclRange: hcl.Range{Filename: dir}, open: true}
	// The module is loaded as the call module.module: its calls' keys
	// are under "module".
	mods := make(map[string]string, len(opts.Modules))
	for k, v := range opts.Modules {
		mods["module."+k] = v
	}
	l, child, diags := loadCall(dir, call, Options{Schemas: opts.Schemas, Modules: mods})
	if l == nil {
		return nil, diags
	}
	if child == nil || l.diags.HasErrors() {
		return nil, uniqueDiags(l.diags)
	}
	iface := &Interface{}
	for _, v := range child.vars {
		n := v.node
		iface.Variables = append(iface.Variables, InterfaceVariable{
			Name: n.Name, Type: v.typ, Default: v.def, Nullable: v.nullable,
			Sensitive: n.Sensitive, Ephemeral: n.Ephemeral, Description: v.description, DeclRange: n.DeclRange,
		})
	}
	ev := &interfaceEval{l: l, nodes: map[string]*config.Node{}, values: map[string]cty.Value{}, busy: map[string]bool{}, repeated: map[string]bool{}}
	for _, n := range l.cfg.Nodes {
		ev.nodes[n.Addr] = n
		if n.Kind == config.Module && n.Repeat != nil {
			ev.repeated[n.Addr] = true
		}
	}
	descriptions := outputDescriptions(l, child.dir)
	for _, n := range l.cfg.Nodes {
		if n.Kind != config.Output || n.Module != child.path {
			continue
		}
		v, _ := ev.value(n.Addr).UnmarkDeep()
		iface.Outputs = append(iface.Outputs, InterfaceOutput{
			Name: n.Name, Type: v.Type(), Sensitive: n.Sensitive, Ephemeral: n.Ephemeral,
			Description: descriptions[n.Name], DeclRange: n.DeclRange,
		})
	}
	sort.Slice(iface.Outputs, func(i, j int) bool { return iface.Outputs[i].Name < iface.Outputs[j].Name })
	return iface, uniqueDiags(l.diags)
}

// interfaceEval evaluates a loaded module with nothing known: the values
// are placeholders whose types are what ReadInterface reports.
type interfaceEval struct {
	l        *loader
	nodes    map[string]*config.Node
	values   map[string]cty.Value
	busy     map[string]bool
	repeated map[string]bool // module calls with count or for_each
}

// value is the placeholder value of the node at addr.
func (ev *interfaceEval) value(addr string) cty.Value {
	if v, ok := ev.values[addr]; ok {
		return v
	}
	n, ok := ev.nodes[addr]
	if !ok || ev.busy[addr] || ev.inRepeated(n) {
		return cty.DynamicVal
	}
	ev.busy[addr] = true
	defer delete(ev.busy, addr)
	v := cty.DynamicVal
	switch n.Kind {
	case config.Resource, config.DataSource, config.Ephemeral:
		if n.Repeat == nil {
			if rs := ev.resourceSchema(n); rs != nil && rs.Block != nil {
				v = cty.UnknownVal(rs.Block.ImpliedType())
			}
		}
	case config.Provider, config.Check:
	default:
		if n.Eval != nil {
			// Only the nodes it refers to are evaluated, each once.
			for _, r := range n.Refs {
				ev.value(r.Addr)
			}
			got, diags := n.Eval.Evaluate(config.ScopeFunc(ev.value), config.NoInstance)
			if !diags.HasErrors() {
				v = got
			}
		}
	}
	ev.values[addr] = v
	return v
}

// inRepeated reports whether n is declared inside a module call with count
// or for_each, whose instances are not known.
func (ev *interfaceEval) inRepeated(n *config.Node) bool {
	for m := n.Module; m != ""; {
		if ev.repeated[m] {
			return true
		}
		p, ok := ev.nodes[m]
		if !ok {
			return false
		}
		m = p.Module
	}
	return false
}

func (ev *interfaceEval) resourceSchema(n *config.Node) *provider.ResourceSchema {
	ps := ev.l.opts.Schemas[n.Source]
	if ps == nil {
		return nil
	}
	types := ps.Resources
	switch n.Kind {
	case config.DataSource:
		types = ps.DataSources
	case config.Ephemeral:
		types = ps.EphemeralResources
	}
	// A type that is missing, or whose schema is unusable, the load has
	// already reported.
	rs, _, _ := types.Get(n.Type)
	return rs
}

var outputDescriptionSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "description"}}}

// outputDescriptions reads the description of each output declared in
// dir; the full load has already reported what is wrong in the files.
func outputDescriptions(l *loader, dir string) map[string]string {
	out := map[string]string{}
	files, _ := l.parse(dir)
	for _, f := range files {
		content, _, _ := f.Body.PartialContent(topSchema)
		for _, b := range content.Blocks {
			if b.Type != "output" {
				continue
			}
			c, _, _ := b.Body.PartialContent(outputDescriptionSchema)
			if a, ok := c.Attributes["description"]; ok {
				if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
					out[b.Labels[0]] = v.AsString()
				}
			}
		}
	}
	return out
}
