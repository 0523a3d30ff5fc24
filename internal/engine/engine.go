package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// DefaultParallelism is how many provider operations run at once unless
// told otherwise. Terraform's 10 leaves most of a cloud API's latency
// budget unused; the engine's own cost per operation is small enough that
// a higher default only helps.
const DefaultParallelism = 256

// Engine plans and applies configurations against one state store.
type Engine struct {
	// Providers starts an instance for each provider configuration the
	// plan reaches, and gives the schemas resources are planned with.
	Providers provider.Factory
	// StartConfig, when set, may start the provider of a provider
	// configuration (its node: Addr, and Name as tether.west) in place
	// of Providers.Start: ok false leaves it to Providers. A test file's
	// aliased provider and mock_provider blocks stand in for one
	// configuration of a provider this way.
	StartConfig func(cfg *config.Node) (p provider.Provider, ok bool, err error)
	Store       state.Store
	// Parallelism limits concurrent provider operations; 0 means
	// DefaultParallelism.
	Parallelism int
	// Events, when set, receives progress while a plan is applied. It is
	// called from many goroutines.
	Events func(plan.Event)
	// Keys seal sensitive objects in state and hash referenced values.
	// Without keys, nothing is sealed and every referenced value is
	// planned as changed.
	Keys *secrets.Keys
}

// PlanOptions choose the kind of plan.
type PlanOptions struct {
	// Destroy plans the deletion of everything recorded.
	Destroy bool
	// SkipRefresh trusts state without reading objects back from their
	// providers.
	SkipRefresh bool
	// Imports are imported besides the configuration's own import blocks
	// (`tether import`).
	Imports []config.Import
	// Targets narrow the plan to these addresses (resources, instances,
	// modules) and what they depend on, as Terraform's -target; for a
	// destroy, to them and what depends on them.
	Targets []string
	// Excludes leave these addresses out of the plan, and what depends on
	// them (for a destroy, what they depend on), as OpenTofu's -exclude:
	// the complement of Targets, with which it cannot be combined.
	Excludes []string
	// Replace lists resource instances to replace even when nothing
	// requires it, as Terraform's -replace.
	Replace []string
	// RefreshOnly plans no change but recording what refresh found, as
	// Terraform's -refresh-only.
	RefreshOnly bool
	// PlanTime is when the plan is made, for plantimestamp(); zero means
	// now. A saved plan, planned again to be applied, passes its own.
	PlanTime time.Time
	// ModuleOverrides are a test's override_module blocks: by module
	// call (module.m, every instance) or instance (module.m["a"]), the
	// object of output values that stands in for it. Nothing inside an
	// overridden instance is planned; its outputs take the object's
	// attributes, null for those it does not set, as in terraform test.
	ModuleOverrides map[string]cty.Value
}

// Planned is a plan together with what applying it needs. It is used
// once, by Apply.
type Planned struct {
	Plan *plan.Plan

	cfg    *config.Config
	opts   PlanOptions
	nodes  []*node
	byAddr map[string]int
	mods   map[string]*modPath
	// recorded are the recorded objects by module instance and resource,
	// for claiming, but those at a root module node's address, which the
	// node holds (node.recorded): found without a look-up, and claimed in
	// the node's own memory. groups holds the others.
	recorded map[claim]*recordGroup
	groups   []*recordGroup
	// recordedData are the data source results state records, by
	// address (see data.go).
	recordedData map[string]*state.Object
	outputs      map[string]*state.Output // recorded before the plan
	moves        []move
	sem          chan struct{}
	keys         *secrets.Keys
	// slots limit provider operations during apply (see slots).
	slots *slots
	// impliedProviders are the default provider configurations that only
	// recorded objects need, started for their destruction, by address.
	implied          sync.Mutex
	impliedProviders map[string]provider.Provider
	// imported counts the imports applied.
	imported atomic.Int64
	// ephemerals are the ephemeral resource instances open in the
	// current walk (plan or apply), all closed when it ends.
	ephemerals ephemerals
	// run is what evaluation knows of the run: when the plan was made
	// (plantimestamp), and, once Apply starts, that it is applying.
	run config.Run
	// targets is what -target keeps, nil without it: set before the plan
	// walk for refresh, again once orphans are known, and last by narrow.
	targets *targetSet
	// checks collects the check results of the plan, then of the apply;
	// recordedChecks are those state recorded before.
	checks         *checkRecord
	recordedChecks []byte
	// refreshed are the recorded objects a destroy's walk refreshed, by
	// address, for planOrphans to plan their deletion without reading
	// them again (see destroy.go).
	refreshed   map[string]*instance
	refreshedMu sync.Mutex
	// noRefresh is set on a destroy of a state that records nothing:
	// as Terraform's, it reads no data source.
	noRefresh bool
}

// node is one vertex of the plan and apply graphs: a configuration node
// (all its instances in all module instances), or one recorded object that
// nothing in the configuration claims any more.
type node struct {
	id   int
	addr string
	cfg  *config.Node // nil for an orphan
	deps []int
	// deps1 holds deps when there is one, as for most resources (their
	// provider): no list of its own to make.
	deps1 [1]int
	// cbd is create_before_destroy in force: declared, or forced by a
	// dependent that declares it (forceCreateBeforeDestroy).
	cbd bool
	mod *modPath
	// recorded are the recorded objects at the address of a node of the
	// root module (see Planned.recordedAt).
	recorded recordGroup

	// prov is a provider configuration's instance, started when it is
	// planned; a resource's or data source's is its configuration's,
	// taken when it is planned. A provider configuration repeated with
	// for_each has provs instead, by instance key, and its resources'
	// instances each take theirs.
	prov   provider.Provider
	provs  map[string]provider.Provider
	schema *provider.ResourceSchema

	// per holds the node in each instance of its module, aligned with
	// mod.instances.
	per []*nodeInst
	// orphan is the recorded object of an orphan node.
	orphan *instance
	// imports are the instances import blocks adopt into the resource,
	// by module instance and instance address, once evaluated.
	imports map[string]map[string]config.ImportTarget
	// deleteFirst are, during apply, the instances of a resource whose
	// delete removes the object another of its instances creates: they
	// are applied before the rest (see orderSameObjects).
	deleteFirst map[*instance]bool
	// configUnknown is set on a provider whose configuration was not
	// wholly known during plan, or held ephemeral values, so that apply
	// configures it again.
	configUnknown bool
	// depth is the length of the longest chain of work behind the node,
	// which decides who gets a free parallelism slot first.
	depth int32
	// deferredAny is set when the node was deferred in any module
	// instance; its recorded objects are then left alone.
	deferredAny bool
	// held is set on a variable, local, output or check that -target or
	// -refresh-only leaves out: apply neither evaluates nor records it.
	held bool
}

// nodeInst is a node within one module instance.
type nodeInst struct {
	mi *modInstance
	// value is what dependents in the same module instance see:
	// planned during plan, final during apply. Marked.
	value cty.Value
	// pending is set when the node has, or passes on, a change not applied
	// yet; a data source downstream of one is read during apply.
	pending bool
	// deferred is set when the node's instances cannot be known in this
	// round; waiting names what it waits for.
	deferred bool
	// byProvider is set when the provider deferred it (waiting says why).
	byProvider bool
	waiting    string
	// keys is the repetition (count or for_each value) as planned.
	repeat cty.Value
	insts  []*instance
	// only holds insts when there is one instance, as nearly always: no
	// list of its own to make.
	only [1]*instance
}

// newNodeInsts is a node's node instances, one for each of mis, the
// common one of them made at once with its list.
func newNodeInsts(mis []*modInstance) []*nodeInst {
	if len(mis) == 1 {
		one := &struct {
			ni   nodeInst
			list [1]*nodeInst
		}{ni: nodeInst{mi: mis[0]}}
		one.list[0] = &one.ni
		return one.list[:]
	}
	per := make([]*nodeInst, len(mis))
	for i, mi := range mis {
		per[i] = &nodeInst{mi: mi}
	}
	return per
}

// instance is one resource or data source instance.
type instance struct {
	addr string
	// rk is its key and each.value, nil for an instance of a resource
	// without count or for_each (most of a large configuration's): one
	// word instead of two cty.Values, since an instance is held for each
	// resource instance for the whole run. Read through key and each.
	rk *repeatKey

	recorded     *state.Object
	recordedVal  cty.Value
	prior        cty.Value
	priorPrivate []byte
	// recordedPrivate is the recorded object's private data, opened.
	recordedPrivate []byte
	change          *plan.ResourceChange
	planned         cty.Value // unmarked
	plannedPriv     []byte
	configVal       cty.Value // unmarked configuration the plan was made from, references resolved
	// validated is the last configuration its provider found valid, with
	// no diagnostic at all (see planChange); nil when none.
	validated *validation
	// result is what apply records of a data source instance read in
	// this walk (marked): the value its provider returned, or for a check
	// block's data source whose read failed, its configuration with
	// nothing computed, as Terraform records it. NilVal when none.
	result cty.Value
	// res holds the configuration's references, resolved; providerPrior
	// is the prior object as the provider saw it (see resolution.priorFor).
	res           *resolution
	providerPrior cty.Value
	meta          objectMeta // what state recorded with the object
	// importID is set on an instance an import adopts: prior is then the
	// imported object, which apply records.
	importID string
	// deferredBy is set when the provider deferred the instance's read
	// or plan, saying why: its node waits for a later round.
	deferredBy string
	// sec holds its secrets, nil while it has none (most instances):
	// read through secrets, inputs and sources.
	sec          *instSecrets
	resourceDeps []string
	// prov is the provider instance that serves this instance when its
	// provider configuration is repeated, and provKey its key (["x"]);
	// otherwise the node's serves.
	prov    provider.Provider
	provKey string
	value   cty.Value // marked

	// The flags are kept together, so that they share one word.
	forceReplace bool
	// readFailed is set on a check block's data source that could not be
	// read during plan: its check is then skipped, as in Terraform.
	readFailed bool
	// gone is set on a recorded instance whose key left count or
	// for_each; it is destroyed.
	gone bool
	// leftOut is set on an instance -target leaves out whose object does
	// not exist: as in Terraform, whose targeted plan never expands it,
	// its resource's value has no such instance.
	leftOut bool
	// checkAfterApply holds postconditions that were unknown at plan.
	checkAfterApply bool
	// judged is set once judgeBy has set its sources (see sourcesFor).
	judged bool
}

// instSecrets are an instance's secrets.
type instSecrets struct {
	// secrets are the sensitive strings of its configuration and of the
	// variables and locals it uses (inputs), scrubbed from whatever its
	// provider says.
	secrets, inputs []string
	// sources are the secrets what its provider returns is judged by
	// (see the rule for derived values, derived.go), once the instance
	// is judged.
	sources []string
}

func (in *instance) secrets() []string {
	if in.sec == nil {
		return nil
	}
	return in.sec.secrets
}

func (in *instance) inputs() []string {
	if in.sec == nil {
		return nil
	}
	return in.sec.inputs
}

func (in *instance) sources() []string {
	if in.sec == nil {
		return nil
	}
	return in.sec.sources
}

// secretsToSet is in.sec, made when v has a string; nil when there is
// none and v has none (nothing to set: an empty list reads as none).
func (in *instance) secretsToSet(v []string) *instSecrets {
	if in.sec == nil && len(v) > 0 {
		in.sec = &instSecrets{}
	}
	return in.sec
}

func (in *instance) setSecrets(v []string) {
	if s := in.secretsToSet(v); s != nil {
		s.secrets = v
	}
}

func (in *instance) setInputs(v []string) {
	if s := in.secretsToSet(v); s != nil {
		s.inputs = v
	}
}

// setSources sets the secrets what its provider returns is judged by:
// judged is set even when there are none, which sourcesFor tells apart
// from sources never set.
func (in *instance) setSources(v []string) {
	in.judged = v != nil
	if s := in.secretsToSet(v); s != nil {
		s.sources = v
	}
}

// key is the instance's count.index or each.key, cty.NilVal for none.
func (in *instance) key() cty.Value {
	if in.rk == nil {
		return cty.NilVal
	}
	return in.rk.key
}

// each is the instance's each.value, cty.NilVal for none.
func (in *instance) each() cty.Value {
	if in.rk == nil {
		return cty.NilVal
	}
	return in.rk.each
}

// setEach gives the instance a new each.value, in a repeatKey of its own:
// rk may be shared with the keys it was made from.
func (in *instance) setEach(v cty.Value) {
	in.rk = &repeatKey{key: in.key(), each: v}
}

func (e *Engine) parallelism() int {
	if e.Parallelism > 0 {
		return e.Parallelism
	}
	return DefaultParallelism
}

// schemaOf is the schema of the provider with the given source address.
func (e *Engine) schemaOf(source string) (*provider.Schema, error) {
	if e.Providers.Schema == nil {
		return nil, fmt.Errorf("provider %s is not available", source)
	}
	return e.Providers.Schema(source)
}

// errorDiag makes an error diagnostic about an object, naming its address
// in the diagnostic's Extra and pointing at its declaration when it has one.
func errorDiag(address string, cn *config.Node, summary, detail string) *hcl.Diagnostic {
	return diagnostic.Object(address, declOf(cn), summary, detail)
}

// attribute names an object on diagnostics that came from elsewhere (a
// provider, an evaluation) and points at its declaration when they say
// nothing of where, or at the argument a provider's attribute path names,
// named as the configuration names it.
func attribute(address string, cn *config.Node, diags hcl.Diagnostics) hcl.Diagnostics {
	if len(diags) == 0 {
		// Most calls, one for each provider answer: without reading cn,
		// which at 100,000 resources is a cache miss each.
		return diags
	}
	if cn != nil {
		for _, d := range diags {
			pe, ok := hcl.DiagnosticExtra[attributePather](d)
			if !ok {
				continue
			}
			if cn.Attrs != nil && d.Subject == nil {
				if rng, ok := cn.Attrs.AttrRange(pe.AttributePath()); ok {
					d.Subject = rng.Ptr()
				}
			}
			if cn.Attrs != nil {
				if name, ok := cn.Attrs.AttrName(pe.AttributePath()); ok {
					diagnostic.NameAttribute(d, name)
				}
			}
		}
	}
	return diagnostic.About(address, declOf(cn), diags)
}

// declOf is where cn is declared, or nil for an object only state records.
func declOf(cn *config.Node) *hcl.Range {
	if cn == nil {
		return nil
	}
	return cn.DeclRange.Ptr()
}

// attributePather is what a provider's diagnostic about one attribute
// carries in its Extra (internal/protocol's PathExtra does).
type attributePather interface {
	AttributePath() cty.Path
}

// planTime is the time plantimestamp() gives: the plan's, to the second.
func planTime(opts PlanOptions) time.Time {
	t := opts.PlanTime
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Second)
}

// build makes the graph of a configuration and indexes the recorded
// objects so that each node can claim its own.
func (e *Engine) build(cfg *config.Config, snap *state.Snapshot, opts PlanOptions) (*Planned, hcl.Diagnostics) {
	p := &Planned{
		cfg: cfg, opts: opts, byAddr: make(map[string]int, len(cfg.Nodes)), outputs: snap.Outputs,
		recorded: map[claim]*recordGroup{}, recordedData: map[string]*state.Object{},
		sem: make(chan struct{}, e.parallelism()), keys: e.Keys,
		impliedProviders: map[string]provider.Provider{},
		run:              config.Run{PlanTime: planTime(opts)},
		checks:           newCheckRecord(cfg),
		recordedChecks:   snap.Checks,
		noRefresh:        opts.Destroy && len(snap.Objects) == 0 && len(snap.Outputs) == 0,
	}
	var diags hcl.Diagnostics
	p.moves, diags = applyMoves(append(slices.Clone(cfg.Moved), impliedMoves(cfg, snap)...), snap)
	diags = append(diags, verifyTargetedMoves(p.moves, opts.Targets, opts.Excludes)...)
	if diags.HasErrors() {
		return nil, diags
	}
	p.mods = modulePaths(cfg)
	p.withScope(p.mods[""].instances[0])
	// Each provider's schema is asked for once, not once per resource:
	// the answer for a source does not change during a run, and asking
	// parses the source address again each time.
	type schemaAnswer struct {
		s   *provider.Schema
		err error
	}
	schemas := map[string]schemaAnswer{}
	schemaOf := func(source string) (*provider.Schema, error) {
		a, ok := schemas[source]
		if !ok {
			a.s, a.err = e.schemaOf(source)
			schemas[source] = a
		}
		return a.s, a.err
	}
	// The nodes are held for the whole run: made at once.
	all := make([]node, len(cfg.Nodes))
	p.nodes = make([]*node, 0, len(cfg.Nodes))
	for i, cn := range cfg.Nodes {
		n := &all[i]
		// Set field by field: the slice is zeroed already, and a
		// literal copied in was a tenth of a second at 100,000.
		n.id, n.addr, n.cfg, n.mod = len(p.nodes), cn.Addr, cn, p.mods[cn.Module]
		p.nodes = append(p.nodes, n)
		p.byAddr[cn.Addr] = n.id
		if cn.Kind == config.Module {
			p.mods[cn.Addr].call = n
		}
	}
	for _, n := range p.nodes {
		cn := n.cfg
		add := func(a string) {
			if id, ok := p.byAddr[a]; ok && id != n.id {
				if n.deps == nil {
					n.deps = n.deps1[:0]
				}
				n.deps = append(n.deps, id)
			}
		}
		dependOn := func(a string) {
			add(a)
			// depends_on a module waits for everything in it.
			if t, ok := p.byAddr[a]; ok && p.nodes[t].cfg.Kind == config.Module {
				for _, m := range p.nodes {
					if m.cfg.Module == a || strings.HasPrefix(m.cfg.Module, a+".") {
						add(m.addr)
					}
				}
			}
		}
		for _, r := range cn.Refs {
			if r.WholeModule {
				// The whole module's value: as depends_on it.
				dependOn(r.Addr)
				continue
			}
			add(r.Addr)
		}
		for _, r := range cn.DependsOn {
			dependOn(r.Addr)
		}
		if n.mod.call != nil {
			add(n.mod.call.addr)
		}
		// A module's depends_on holds for everything inside it, however
		// deeply nested.
		for m := n.mod; m != nil && m.call != nil; m = m.parent {
			for _, r := range m.call.cfg.DependsOn {
				dependOn(r.Addr)
			}
		}
		switch cn.Kind {
		case config.Resource, config.DataSource, config.Ephemeral:
			if id, ok := p.byAddr[cn.Provider]; !ok || p.nodes[id].cfg.Kind != config.Provider {
				diags = append(diags, errorDiag(n.addr, cn, "Provider configuration not present", fmt.Sprintf("The configuration declares no provider configuration %s.", cn.Provider)))
				continue
			}
			add(cn.Provider)
			schema, err := schemaOf(cn.Source)
			if err != nil {
				diags = append(diags, errorDiag(n.addr, cn, "Provider not available", diagnostic.Failed("starting the provider", err)))
				continue
			}
			types := schema.Resources
			switch cn.Kind {
			case config.DataSource:
				types = schema.DataSources
			case config.Ephemeral:
				types = schema.EphemeralResources
			}
			rs, ok, err := types.Get(cn.Type)
			switch {
			case err != nil:
				diags = append(diags, errorDiag(n.addr, cn, "Invalid provider schema", diagnostic.Failed(fmt.Sprintf("reading the schema of %s type %q of provider %s", cn.Kind, cn.Type, cn.Source), err)))
			case !ok:
				diags = append(diags, errorDiag(n.addr, cn, "Unknown resource type", fmt.Sprintf("Provider %s has no %s type %q.", cn.Source, cn.Kind, cn.Type)))
			default:
				n.schema = rs
			}
		}
	}
	p.forceCreateBeforeDestroy()
	for a, obj := range snap.Objects {
		if obj.Mode == state.Data {
			p.recordedData[a] = obj
		}
		if obj.Mode != state.Managed {
			continue
		}
		ia, err := addr.ParseInstance(a)
		if err != nil {
			diags = append(diags, diagnostic.Wrap("Unreadable address in state", "reading an address recorded in state", err))
			continue
		}
		p.groupFor(addr.ModulePath(ia.Module), ia.Resource).add(obj)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return p, diags
}

// recordGroup is the recorded objects of one resource in one module
// instance, and whether a node claimed them.
type recordGroup struct {
	objs []*state.Object
	// one holds objs when there is one object, as for most resources: no
	// list of its own to make.
	one     [1]*state.Object
	claimed atomic.Bool
}

func (g *recordGroup) add(obj *state.Object) {
	if g.objs == nil {
		g.objs = g.one[:0]
	}
	g.objs = append(g.objs, obj)
}

// groupFor is the group of the recorded objects of resource in module
// instance module, made the first time (see Planned.recordedAt).
func (p *Planned) groupFor(module, resource string) *recordGroup {
	if module == "" {
		if id, ok := p.byAddr[resource]; ok {
			return &p.nodes[id].recorded
		}
	}
	k := claimKey(module, resource)
	g := p.recorded[k]
	if g == nil {
		g = &recordGroup{}
		p.recorded[k] = g
		p.groups = append(p.groups, g)
	}
	return g
}

// recordedAt is the group of node n's recorded objects in module instance
// mi, nil when state records none.
func (p *Planned) recordedAt(n *node, mi *modInstance) *recordGroup {
	if n.mod.name == "" {
		if n.recorded.objs == nil {
			return nil
		}
		return &n.recorded
	}
	return p.recorded[claimKey(mi.str, relAddr(n))]
}

// unclaimed calls f with each recorded object no node claimed.
func (p *Planned) unclaimed(f func(*state.Object)) {
	each := func(g *recordGroup) {
		if !g.claimed.Load() {
			for _, obj := range g.objs {
				f(obj)
			}
		}
	}
	for _, n := range p.nodes {
		each(&n.recorded)
	}
	for _, g := range p.groups {
		each(g)
	}
}

// claim is the key of Planned.recorded: a module instance's path and a
// resource's address in it (a struct, not the two joined: joining was a
// string made for every object and every node).
type claim struct{ module, resource string }

func claimKey(moduleInstance, resource string) claim { return claim{moduleInstance, resource} }

// cycleDiag describes a dependency cycle with every member and where it is
// declared. The summary is Terraform's ("Cycle: a, b"), which scripts
// match on; the detail gives the order the dependencies run in.
func cycleDiag(nodes []*node, members []int) *hcl.Diagnostic {
	names := make([]string, len(members))
	var chain strings.Builder
	for i, m := range members {
		n := nodes[m]
		names[i] = n.addr
		chain.WriteString(n.addr)
		if n.cfg != nil {
			fmt.Fprintf(&chain, " (%s:%d)", n.cfg.DeclRange.Filename, n.cfg.DeclRange.Start.Line)
		}
		chain.WriteString(" -> ")
	}
	chain.WriteString(nodes[members[0]].addr)
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cycle: " + strings.Join(names, ", "),
		Detail:   "Each of these depends on the next, and the last on the first, so none can be planned: " + chain.String() + ". Remove one of the references or depends_on entries.",
	}
}

// decodeRecorded turns a stored object into a value of the current schema
// through the provider's UpgradeResourceState, as Terraform does for every
// object it reads, also when the schema version has not moved: providers
// on the legacy SDK normalise the object there (a null set of blocks
// becomes an empty one), and the calls that follow must carry the same
// prior state under both tools.
func decodeRecorded(ctx context.Context, keys *secrets.Keys, prov provider.Provider, rs *provider.ResourceSchema, obj *state.Object, cn *config.Node) (cty.Value, hcl.Diagnostics) {
	raw, err := open(keys, obj.Value)
	if err != nil {
		return cty.NilVal, hcl.Diagnostics{errorDiag(obj.Address, cn, "Cannot read recorded object", diagnostic.Failed("reading the recorded object", err))}
	}
	if obj.SchemaVersion > rs.Version {
		return cty.NilVal, hcl.Diagnostics{errorDiag(obj.Address, cn, "Resource instance managed by newer provider version",
			fmt.Sprintf("The recorded object was written by a provider whose schema for %s is version %d, newer than the installed provider's version %d. Install the newer provider (tether init --upgrade, or restore the lock file) to work with this state.", obj.Type, obj.SchemaVersion, rs.Version))}
	}
	resp := prov.UpgradeResourceState(ctx, provider.UpgradeRequest{TypeName: obj.Type, Version: obj.SchemaVersion, RawStateJSON: raw})
	if resp.Diagnostics.HasErrors() {
		return cty.NilVal, attribute(obj.Address, cn, resp.Diagnostics)
	}
	return resp.UpgradedState, resp.Diagnostics
}

// withMarks marks the sensitive paths of v: those the schema declares and
// those given.
func withMarks(schema *provider.Block, v cty.Value, extra []cty.Path) cty.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	paths := append(schema.SensitivePaths(v, nil), extra...)
	return marks.MarkPaths(v, paths)
}

// forceCreateBeforeDestroy sets cbd on each node whose lifecycle declares
// create_before_destroy and on everything such a node depends on,
// directly or not. As Terraform's ForcedCBDTransformer does: a dependency
// replaced destroy-first under a dependent replaced create-first would
// make a cycle, so the dependency follows suit, and its objects record the
// setting in state.
func (p *Planned) forceCreateBeforeDestroy() {
	var force func(n *node)
	force = func(n *node) {
		for _, d := range n.deps {
			if dn := p.nodes[d]; !dn.cbd {
				dn.cbd = true
				force(dn)
			}
		}
	}
	for _, n := range p.nodes {
		if n.cfg != nil && n.cfg.Lifecycle.CreateBeforeDestroy {
			n.cbd = true
			force(n)
		}
	}
}

// graph returns the plan graph in dependency order, or the cycle.
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

// forEach runs f for every index below n, at most as many at once as the
// engine's parallelism allows, and waits for all.
func (p *Planned) forEach(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		p.sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-p.sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

func sortedStrings(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// provider is the provider instance that serves a resource instance.
func (in *instance) provider(n *node) provider.Provider {
	if in.prov != nil {
		return in.prov
	}
	return n.prov
}

// startConfig starts the provider of the provider configuration cfg.
func (e *Engine) startConfig(cfg *config.Node) (provider.Provider, error) {
	if e.StartConfig != nil {
		if p, ok, err := e.StartConfig(cfg); ok {
			return p, err
		}
	}
	return e.Providers.Start(cfg.Source)
}
