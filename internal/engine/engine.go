package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
)

// DefaultParallelism is how many provider operations run at once unless
// told otherwise. Terraform's 10 leaves most of a cloud API's latency
// budget unused; the engine's own cost per operation is small enough that
// a higher default only helps.
const DefaultParallelism = 256

// Engine plans and applies configurations against one state store.
type Engine struct {
	// Providers by local name, each with its schema.
	Providers map[string]provider.Provider
	Schemas   map[string]*provider.Schema
	Store     state.Store
	// Parallelism limits concurrent provider operations; 0 means
	// DefaultParallelism.
	Parallelism int
	// Events, when set, receives progress while a plan is applied. It is
	// called from many goroutines.
	Events func(plan.Event)
}

// PlanOptions choose the kind of plan.
type PlanOptions struct {
	// Destroy plans the deletion of everything recorded.
	Destroy bool
	// SkipRefresh trusts state without reading objects back from their
	// providers.
	SkipRefresh bool
}

// Planned is a plan together with what applying it needs. It is used
// once, by Apply.
type Planned struct {
	Plan *plan.Plan

	cfg     *config.Config
	opts    PlanOptions
	nodes   []*node
	byAddr  map[string]int
	outputs map[string]*state.Output // recorded before the plan
}

// node is one vertex of the plan and apply graphs: a configuration node, or
// an object recorded in state that the configuration no longer declares.
type node struct {
	id   int
	addr string
	cfg  *config.Node // nil for an orphan
	// deps are the graph nodes this one waits for.
	deps []int

	// For resources and data sources.
	prov   provider.Provider
	schema *provider.ResourceSchema
	// recorded is the object as stored; prior is the object as refreshed.
	recorded     *state.Object
	recordedVal  cty.Value
	prior        cty.Value
	priorPrivate []byte
	change       *plan.ResourceChange
	planned      cty.Value // unmarked
	configVal    cty.Value // unmarked configuration the plan was made from
	plannedPriv  []byte
	// resourceDeps are the resources this one depends on, through any
	// chain of locals, variables and data sources; they are recorded with
	// the object so that destroy order survives the configuration.
	resourceDeps []string
	// configUnknown is set on a provider whose configuration was not
	// wholly known during plan, so that apply configures it again.
	configUnknown bool

	// value is what dependents see: planned during plan, final during
	// apply. Marked.
	value cty.Value
	// pending is set when the node has, or passes on, a change that is
	// not applied yet; a data source downstream of one is read during
	// apply rather than plan.
	pending bool
}

func (e *Engine) parallelism() int {
	if e.Parallelism > 0 {
		return e.Parallelism
	}
	return DefaultParallelism
}

func (e *Engine) providerFor(name string) (provider.Provider, *provider.Schema, error) {
	p, ok := e.Providers[name]
	if !ok {
		return nil, nil, fmt.Errorf("provider %q is not available", name)
	}
	return p, e.Schemas[name], nil
}

// errorDiag makes an error diagnostic about a node, naming its address and
// pointing at its declaration when it has one.
func errorDiag(n *node, summary, detail string) *hcl.Diagnostic {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("%s: %s", n.addr, summary), Detail: detail}
	if n.cfg != nil {
		d.Subject = n.cfg.DeclRange.Ptr()
	}
	return d
}

// attribute names a node and points at its declaration on diagnostics that
// came from elsewhere (a provider, an evaluation) and say nothing of where.
func attribute(n *node, diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if !strings.HasPrefix(d.Summary, n.addr+": ") {
			d.Summary = n.addr + ": " + d.Summary
		}
		if d.Subject == nil && n.cfg != nil {
			d.Subject = n.cfg.DeclRange.Ptr()
		}
	}
	return diags
}

// build makes the graph of a configuration plus the recorded objects it no
// longer declares.
func (e *Engine) build(cfg *config.Config, snap *state.Snapshot) (*Planned, hcl.Diagnostics) {
	p := &Planned{cfg: cfg, byAddr: make(map[string]int, len(cfg.Nodes)), outputs: snap.Outputs}
	var diags hcl.Diagnostics
	for _, cn := range cfg.Nodes {
		n := &node{id: len(p.nodes), addr: cn.Addr, cfg: cn}
		p.nodes = append(p.nodes, n)
		p.byAddr[cn.Addr] = n.id
	}
	for _, n := range p.nodes {
		cn := n.cfg
		add := func(addr string) {
			if id, ok := p.byAddr[addr]; ok {
				n.deps = append(n.deps, id)
			}
		}
		for _, r := range cn.Refs {
			add(r.Addr)
		}
		for _, r := range cn.DependsOn {
			add(r.Addr)
		}
		if cn.Kind == config.Resource || cn.Kind == config.DataSource {
			add("provider." + cn.Provider)
			prov, schema, err := e.providerFor(cn.Provider)
			if err != nil {
				diags = append(diags, errorDiag(n, "Provider not available", err.Error()))
				continue
			}
			n.prov = prov
			types := schema.Resources
			if cn.Kind == config.DataSource {
				types = schema.DataSources
			}
			n.schema = types[cn.Type]
			if n.schema == nil {
				diags = append(diags, errorDiag(n, "Unknown resource type", fmt.Sprintf("Provider %q has no %s type %q.", cn.Provider, cn.Kind, cn.Type)))
			}
		}
		if cn.Kind == config.Provider {
			n.prov = e.Providers[cn.Provider]
		}
		if cn.Kind == config.Resource {
			if obj, ok := snap.Objects[cn.Addr]; ok && obj.Mode == state.Managed {
				n.recorded = obj
			}
		}
	}
	// Recorded objects the configuration no longer declares are destroyed.
	var orphans []string
	for addr, obj := range snap.Objects {
		if obj.Mode != state.Managed {
			continue
		}
		if id, ok := p.byAddr[addr]; ok && p.nodes[id].cfg.Kind == config.Resource {
			continue
		}
		orphans = append(orphans, addr)
	}
	sort.Strings(orphans)
	for _, addr := range orphans {
		obj := snap.Objects[addr]
		n := &node{id: len(p.nodes), addr: addr, recorded: obj}
		prov, schema, err := e.providerFor(obj.Provider)
		if err != nil {
			diags = append(diags, errorDiag(n, "Provider not available", fmt.Sprintf("The recorded object %s needs %s to be destroyed.", addr, err)))
			continue
		}
		n.prov = prov
		n.schema = schema.Resources[obj.Type]
		if n.schema == nil {
			diags = append(diags, errorDiag(n, "Unknown resource type", fmt.Sprintf("Provider %q no longer has the resource type %q of the recorded object.", obj.Provider, obj.Type)))
			continue
		}
		p.nodes = append(p.nodes, n)
		p.byAddr[addr] = n.id
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return p, diags
}

// cycleDiag describes a dependency cycle with every member and where it is
// declared, in the order the dependencies run.
func cycleDiag(nodes []*node, members []int) *hcl.Diagnostic {
	var b strings.Builder
	b.WriteString("cycle: ")
	for _, m := range members {
		n := nodes[m]
		b.WriteString(n.addr)
		if n.cfg != nil {
			fmt.Fprintf(&b, " (%s:%d)", n.cfg.DeclRange.Filename, n.cfg.DeclRange.Start.Line)
		}
		b.WriteString(" -> ")
	}
	b.WriteString(nodes[members[0]].addr)
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  b.String(),
		Detail:   "Each of these depends on the next, and the last on the first, so none can be planned. Remove one of the references or depends_on entries.",
	}
}

// decodeRecorded turns a stored object into a value of the current schema,
// asking the provider to upgrade it when an older schema version wrote it.
func decodeRecorded(ctx context.Context, n *node) (cty.Value, hcl.Diagnostics) {
	obj := n.recorded
	ty := n.schema.Block.ImpliedType()
	if obj.SchemaVersion == n.schema.Version {
		if v, err := ctyjson.Unmarshal(obj.Value, ty); err == nil {
			return v, nil
		}
	}
	resp := n.prov.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: obj.Type, Version: obj.SchemaVersion, RawStateJSON: obj.Value})
	if resp.Diagnostics.HasErrors() {
		return cty.NilVal, attribute(n, resp.Diagnostics)
	}
	return resp.UpgradedState, resp.Diagnostics
}

// sensitivePaths are the paths of v to mark: those the schema declares and
// those recorded as sensitive.
func withMarks(schema *provider.Block, v cty.Value, extra []cty.Path) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	paths := append(schema.SensitivePaths(v, nil), extra...)
	return marks.MarkPaths(v, paths)
}

func addrOf(n *node) string { return n.addr }

func typeOf(n *node) string {
	if n.cfg != nil {
		return n.cfg.Type
	}
	return n.recorded.Type
}

func providerOf(n *node) string {
	if n.cfg != nil {
		return n.cfg.Provider
	}
	return n.recorded.Provider
}

// order returns the plan graph in dependency order, or the cycle.
func (p *Planned) graph() (*graph.Graph, []int, hcl.Diagnostics) {
	g := graph.New(len(p.nodes))
	for _, n := range p.nodes {
		for _, d := range n.deps {
			g.DependsOn(n.id, d)
		}
	}
	order, cycle := g.Order()
	if cycle != nil {
		return nil, nil, hcl.Diagnostics{cycleDiag(p.nodes, cycle)}
	}
	return g, order, nil
}
