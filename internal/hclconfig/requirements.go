package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
)

// Requirements lists the providers the configuration in dir needs, before
// any provider runs: what `tether init` installs and what plan and up start.
// It reads the required_providers blocks of the root module and of every
// local module it calls, and the provider local names that resource types,
// data sources, provider blocks and provider meta-arguments use. A local
// name with no required_providers entry implies hashicorp/NAME, as in
// Terraform, except "tether", which is Tether's built-in provider.
//
// modules are the folders of installed modules by key, as Modules returns
// them; a call not listed there is followed only to a literal local path.
//
// The result is sorted by source address; constraints from several modules
// on the same provider are all kept.
func Requirements(dir string, modules map[string]string) ([]config.ProviderRequirement, hcl.Diagnostics) {
	return RequirementsOf(dir, Options{Modules: modules})
}

// RequirementsOf is Requirements with the installed modules in
// opts.Modules, reading files through opts.Files (see Files); the other
// options are not used.
func RequirementsOf(dir string, opts Options) ([]config.ProviderRequirement, hcl.Diagnostics) {
	r, _, diags := scanRequirements(dir, opts)
	if r == nil {
		return nil, diags
	}
	var out []config.ProviderRequirement
	for _, req := range r.bySource {
		out = append(out, *req)
	}
	sortRequirements(out)
	return out, r.diags
}

// ModuleRequirements is what one module requires of providers, and what
// the modules it calls require, as `terraform providers` shows them.
type ModuleRequirements struct {
	// Requirements are the module's own: its required_providers entries
	// and the providers its blocks use, each with the constraints this
	// module puts on it, sorted by source address.
	Requirements []config.ProviderRequirement
	// Children are the modules it calls that could be read (installed,
	// or local folders), sorted by call name.
	Children []ModuleCallRequirements
}

// ModuleCallRequirements is a module call and what its module requires.
type ModuleCallRequirements struct {
	Name string
	*ModuleRequirements
}

// RequirementsTree is RequirementsOf by module: the root module's
// requirements with those of every module it calls, and so on down. A
// module folder called twice is read once but shown under each call.
func RequirementsTree(dir string, opts Options) (*ModuleRequirements, hcl.Diagnostics) {
	r, abs, diags := scanRequirements(dir, opts)
	if r == nil {
		return nil, diags
	}
	return r.tree(abs, 0), r.diags
}

// scanRequirements reads the requirements of the module in dir and of
// the modules it calls; it returns the absolute folder with the scan.
func scanRequirements(dir string, opts Options) (*reqScan, string, hcl.Diagnostics) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()}}
	}
	// The loader only parses here; without functions it checks no calls,
	// which the full load does.
	l := &loader{dir: abs, opts: Options{Files: opts.Files}, cfg: &config.Config{Sources: map[string][]byte{}}}
	r := newReqScan(l, opts.Modules)
	r.module(abs, "", 0)
	return r, abs, r.diags
}

func (r *reqScan) tree(dir string, depth int) *ModuleRequirements {
	m := &ModuleRequirements{Requirements: r.byDir[dir]}
	if depth > 32 {
		return m
	}
	for _, c := range r.calls[dir] {
		m.Children = append(m.Children, ModuleCallRequirements{Name: c.name, ModuleRequirements: r.tree(c.dir, depth+1)})
	}
	sort.SliceStable(m.Children, func(i, j int) bool { return m.Children[i].Name < m.Children[j].Name })
	return m
}

// reqScan carries one Requirements call.
type reqScan struct {
	l        *loader
	bySource map[tfaddr.Provider]*config.ProviderRequirement
	seen     map[string]bool // module folders already read
	modules  map[string]string
	diags    hcl.Diagnostics
	// byDir is each module folder's own requirements, and calls the
	// module calls it makes, for RequirementsTree.
	byDir map[string][]config.ProviderRequirement
	calls map[string][]moduleCallDir
}

// moduleCallDir is a module call followed to its folder.
type moduleCallDir struct{ name, dir string }

func newReqScan(l *loader, modules map[string]string) *reqScan {
	return &reqScan{
		l:        l,
		bySource: map[tfaddr.Provider]*config.ProviderRequirement{},
		seen:     map[string]bool{},
		modules:  modules,
		byDir:    map[string][]config.ProviderRequirement{},
		calls:    map[string][]moduleCallDir{},
	}
}

var reqTopSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "terraform"},
		{Type: "provider", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"type", "name"}},
		{Type: "data", LabelNames: []string{"type", "name"}},
		{Type: "ephemeral", LabelNames: []string{"type", "name"}},
		{Type: "module", LabelNames: []string{"name"}},
	},
}

func (r *reqScan) module(dir, key string, depth int) {
	if r.seen[dir] || depth > 32 {
		return
	}
	r.seen[dir] = true
	files, diags := r.l.parse(dir)
	r.diags = append(r.diags, diags...)
	if diags.HasErrors() {
		return
	}
	sources := map[string]*config.ProviderRequirement{} // by local name, this module's
	var uses []struct {
		name string
		rng  hcl.Range
	}
	// valid are the names used so far whose implied source is valid:
	// only a name's first use counts then (the later find it in sources),
	// where each use of an invalid one is reported.
	valid := map[string]bool{}
	use := func(name string, rng hcl.Range) {
		if valid[name] {
			return
		}
		if _, err := impliedSource(name); err == nil {
			valid[name] = true
		}
		uses = append(uses, struct {
			name string
			rng  hcl.Range
		}{name, rng})
	}
	// useResource notes the provider a resource, data source or ephemeral
	// resource block uses: its provider argument's or the implied one.
	useResource := func(typ string, body hcl.Body, rng hcl.Range) {
		name := impliedProvider(typ)
		var provider *hcl.Attribute
		if sb, ok := body.(*hclsyntax.Body); ok {
			// A top-level block's body hides nothing: this is what
			// PartialContent finds, without its maps.
			provider = sb.Attributes["provider"].AsHCLAttribute()
		} else if meta, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "provider"}}}); meta != nil {
			provider = meta.Attributes["provider"]
		}
		if provider != nil {
			if local, _, _, ok := keyedProviderRef(provider.Expr); ok {
				name = local
			}
		}
		use(name, rng)
	}
	var versions []struct{ name, c string }
	// Override files come last, so that their required_providers entries
	// and module sources win, as when loading.
	sort.SliceStable(files, func(i, j int) bool {
		return !isOverrideFile(files[i].Body.MissingItemRange().Filename) && isOverrideFile(files[j].Body.MissingItemRange().Filename)
	})
	calls := map[string]*hcl.Block{}
	var callOrder []string
	for _, f := range files {
		eachReqBlock(f.Body, useResource, func(b *hcl.Block) {
			switch b.Type {
			case "terraform":
				r.terraform(b, sources)
			case "provider":
				use(b.Labels[0], b.DefRange)
				// A version in a provider block is deprecated but still
				// constrains the installation, as in Terraform.
				if meta, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "version"}}}); meta != nil {
					if a, ok := meta.Attributes["version"]; ok {
						if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && !v.IsNull() {
							versions = append(versions, struct{ name, c string }{b.Labels[0], v.AsString()})
						}
					}
				}
			case "resource", "data", "ephemeral":
				useResource(b.Labels[0], b.Body, b.DefRange)
			case "module":
				name := b.Labels[0]
				if _, ok := calls[name]; ok {
					if moduleSource(b) == nil {
						return // the override keeps the base's source
					}
				} else {
					callOrder = append(callOrder, name)
				}
				calls[name] = b
			}
		})
	}
	for _, name := range callOrder {
		r.moduleCall(dir, key, calls[name], depth)
	}
	for _, u := range uses {
		if _, ok := sources[u.name]; ok {
			continue
		}
		src, err := impliedSource(u.name)
		if err != nil {
			r.diags = append(r.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid provider local name",
				Detail:   fmt.Sprintf("The provider local name %q implies no valid source address: %s. Declare it in required_providers with a source.", u.name, err),
				Subject:  u.rng.Ptr(),
			})
			continue
		}
		sources[u.name] = &config.ProviderRequirement{Source: src, DeclRange: u.rng}
	}
	for _, v := range versions {
		if req, ok := sources[v.name]; ok {
			req.Constraints = append(req.Constraints, v.c)
		}
	}
	own := map[tfaddr.Provider]*config.ProviderRequirement{}
	for _, req := range sources {
		r.add(req)
		if prev, ok := own[req.Source]; ok {
			prev.Constraints = append(prev.Constraints, req.Constraints...)
		} else {
			c := *req
			c.Constraints = append([]string(nil), req.Constraints...)
			own[req.Source] = &c
		}
	}
	for _, req := range own {
		r.byDir[dir] = append(r.byDir[dir], *req)
	}
	sortRequirements(r.byDir[dir])
}

// eachReqBlock calls visit with each block of a file's body that
// reqTopSchema names, in order, as its PartialContent gives them (a block
// with the wrong number of labels left out), but a native-syntax file's
// resource, data and ephemeral blocks go to useResource instead: there are
// thousands in a large configuration, and PartialContent would make a copy
// of each.
func eachReqBlock(body hcl.Body, useResource func(typ string, body hcl.Body, rng hcl.Range), visit func(*hcl.Block)) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		content, _, _ := body.PartialContent(reqTopSchema)
		for _, b := range content.Blocks {
			visit(b)
		}
		return
	}
	for _, blk := range sb.Blocks {
		for _, bs := range reqTopSchema.Blocks {
			if blk.Type != bs.Type || len(blk.Labels) != len(bs.LabelNames) {
				continue
			}
			switch blk.Type {
			case "resource", "data", "ephemeral":
				useResource(blk.Labels[0], blk.Body, blk.DefRange())
			default:
				visit(blk.AsHCLBlock())
			}
		}
	}
}

func sortRequirements(reqs []config.ProviderRequirement) {
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Source.String() < reqs[j].Source.String() })
}

// terraform reads the required_providers of a terraform block.
func (r *reqScan) terraform(b *hcl.Block, sources map[string]*config.ProviderRequirement) {
	content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "required_providers"}}})
	for _, rb := range content.Blocks {
		rps, d := readRequiredProviders(rb)
		r.diags = append(r.diags, d...)
		for _, rp := range rps {
			sources[rp.local] = &config.ProviderRequirement{Source: rp.source, Constraints: rp.constraints, DeclRange: rp.rng}
		}
	}
}

// moduleCall follows a call to an installed module or a local folder;
// other sources are left to the loader, which reports them.
func (r *reqScan) moduleCall(dir, parentKey string, b *hcl.Block, depth int) {
	key := b.Labels[0]
	if parentKey != "" {
		key = parentKey + "." + key
	}
	child, ok := r.modules[key]
	if !ok {
		a := moduleSource(b)
		if a == nil {
			return
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.String || v.IsNull() || !isLocalSource(v.AsString()) {
			return
		}
		child = filepath.Join(dir, filepath.FromSlash(v.AsString()))
	}
	if fi, err := os.Stat(child); err == nil && fi.IsDir() {
		r.calls[dir] = append(r.calls[dir], moduleCallDir{b.Labels[0], child})
		r.module(child, key, depth+1)
	}
}

func (r *reqScan) add(req *config.ProviderRequirement) {
	prev, ok := r.bySource[req.Source]
	if !ok {
		c := *req
		r.bySource[req.Source] = &c
		return
	}
	prev.Constraints = append(prev.Constraints, req.Constraints...)
}

// moduleSource is a module block's source argument, nil when it has none.
func moduleSource(b *hcl.Block) *hcl.Attribute {
	content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "source"}}})
	if content == nil {
		return nil
	}
	return content.Attributes["source"]
}
