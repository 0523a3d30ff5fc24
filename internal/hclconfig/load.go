package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/funcs"
	"github.com/tetherhq/tether/internal/provider"
)

// Options are what loading needs besides the files.
type Options struct {
	// Schemas gives the schema of each provider by its fully qualified
	// source address (`registry.terraform.io/hashicorp/time`); Requirements
	// lists the providers a configuration needs. A provider missing here
	// is an error at the first place that uses it.
	Schemas map[string]*provider.Schema
	// Vars are -var and -var-file arguments in the order given; later ones
	// win, as in Terraform.
	Vars []VarArg
	// Environ is the process environment, for TF_VAR_ values.
	Environ []string
	// Modules are the folders of the modules that module calls load, by
	// module key ("net", "net.vpc"), as Modules returns them. A call not
	// listed may only have a literal local source.
	Modules map[string]string
	// Workspace is the selected workspace, the value of
	// terraform.workspace; "default" when empty.
	Workspace string
	// Files, when set, keeps the files read, for the other walks of the
	// same command (Modules, RequirementsOf, Load) to parse each once.
	Files *Files
	// UnknownVariables gives every root input variable an unknown value of
	// its type instead of reading Vars, Environ and .tfvars files, as
	// terraform validate does: none is required.
	UnknownVariables bool
	// Ask, when set, asks for the value of a required root variable that
	// nothing set, as Terraform does on a terminal: query is var.NAME,
	// description the variable's. The answer is taken as -var's value;
	// false leaves the variable unset.
	Ask func(query, description string) (string, bool)
}

// VarArg is one -var NAME=VALUE (File empty) or -var-file FILE argument.
type VarArg struct {
	Name, Value string
	File        string
}

var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "terraform"},
		{Type: "provider", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"type", "name"}},
		{Type: "data", LabelNames: []string{"type", "name"}},
		{Type: "ephemeral", LabelNames: []string{"type", "name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "module", LabelNames: []string{"name"}},
		{Type: "moved"},
		{Type: "import"},
		{Type: "removed"},
		{Type: "check", LabelNames: []string{"name"}},
	},
}

// topContent is body.Content(topSchema)'s blocks and diagnostics. In a
// native syntax body where Content finds nothing to report (no argument,
// every block of a type topSchema names, with its labels), the resource,
// data source and ephemeral resource blocks are made in one allocation,
// where hclsyntax makes each on its own: a hundred thousand for a large
// generated configuration. Nothing keeps one of them once the module is
// loaded (module.resource copies what it keeps), so they are let go
// together.
func topContent(body hcl.Body) (hcl.Blocks, hcl.Diagnostics) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok || len(sb.Attributes) > 0 {
		content, diags := body.Content(topSchema)
		return content.Blocks, diags
	}
	many := 0
	for _, b := range sb.Blocks {
		labels, known := topLabels[b.Type]
		if !known || len(b.Labels) != labels {
			content, diags := body.Content(topSchema)
			return content.Blocks, diags
		}
		if resourceBlockTypes[b.Type] {
			many++
		}
	}
	if len(sb.Blocks) == 0 {
		return nil, nil // as Content
	}
	made := make([]hcl.Block, 0, many)
	blocks := make(hcl.Blocks, len(sb.Blocks))
	for i, b := range sb.Blocks {
		if !resourceBlockTypes[b.Type] {
			blocks[i] = b.AsHCLBlock()
			continue
		}
		made = append(made, hcl.Block{Type: b.Type, Labels: b.Labels, Body: b.Body, DefRange: b.DefRange(), TypeRange: b.TypeRange, LabelRanges: b.LabelRanges})
		blocks[i] = &made[len(made)-1]
	}
	return blocks, nil
}

// topLabels is the number of labels of each block type topSchema names.
var topLabels = func() map[string]int {
	m := map[string]int{}
	for _, b := range topSchema.Blocks {
		m[b.Type] = len(b.LabelNames)
	}
	return m
}()

// resourceBlockTypes are the block types module.resource reads.
var resourceBlockTypes = map[string]bool{"resource": true, "data": true, "ephemeral": true}

// topBlocks is topSchema with only the block types named: a walk that
// reads a few types asks for those alone, so that the thousands of
// resource blocks of a large configuration are not copied (hcl.Block) for
// it, while the blocks it reads are what topSchema gives.
func topBlocks(types ...string) *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, b := range topSchema.Blocks {
		if slices.Contains(types, b.Type) {
			s.Blocks = append(s.Blocks, b)
		}
	}
	return s
}

// loader carries what the parts of one Load share.
type loader struct {
	dir   string // the root module's folder
	opts  Options
	cfg   *config.Config
	lib   *funcs.Library
	funcs map[string]function.Function // lib's, by plain and core:: name
	// decls maps each address to its node, to resolve references and
	// report duplicates.
	decls map[string]*config.Node
	// providerUses remembers, for each default provider configuration
	// used, where it was first used: one that no provider block declares
	// is declared implicitly.
	providerUses map[string]providerUse
	specs        map[specKey]hcldec.Spec
	bodySpecs    map[bodySpecKey]hcldec.Spec // see bodySpec
	// heldFiles are the files resource bodies are held from (heldBody), by
	// name.
	heldFiles map[string]*heldFile
	heldPlans map[bodySpecKey]*heldPlan
	cwd       string
	diags     hcl.Diagnostics
	// pending bodies are resolved once every declaration is known.
	pending []pendingStep
	// addrs is the block resources' addresses are carved from (see
	// module.resourceAddr).
	addrs []byte
	// evalRefs are each node's resolved references, by node address.
	evalRefs map[string][]evalRef
	// importTos are the import targets written without expressions, to
	// find duplicates.
	importTos []importTo
	// backendOnly is set on Backend's loader: it reads only the files'
	// terraform, variable and locals blocks (see Files.file).
	backendOnly bool
	// read are the files parse returned, as read: what is known of each
	// beside its syntax tree (see readFile.functionCalls).
	read map[*hcl.File]*readFile
	// missing are the providers already reported as not available.
	missing map[string]bool
	// schemas caches each schema block's body schema for checkBody.
	schemas map[*provider.Block]*hcl.BodySchema
	// required counts each schema block's required arguments (see
	// argsContent).
	required map[*provider.Block]int
	// sources are the source addresses' strings, made once (see
	// sourceString).
	sources map[tfaddr.Provider]string
	// kinds are resourceArgs with each resource schema, made once (see
	// terraformBlock).
	kinds map[*provider.Block]*argKinds

	// runFuncs are lib.ForRun's functions for run, the last run asked
	// for: every evaluation of a plan or an apply wants the same ones.
	runMu    sync.Mutex
	run      funcs.Run
	runFuncs map[string]function.Function
	// terraform is terraformVal's, made once.
	terraformOnce sync.Once
	terraformV    cty.Value
}

// sourceString is src.String(), one string for every node of the same
// provider: each resource keeps it for the whole run.
func (l *loader) sourceString(src tfaddr.Provider) string {
	if s, ok := l.sources[src]; ok {
		return s
	}
	if l.sources == nil {
		l.sources = map[tfaddr.Provider]string{}
	}
	s := src.String()
	l.sources[src] = s
	return s
}

// funcsForRun is lib.ForRun(run), made once per run.
func (l *loader) funcsForRun(run funcs.Run) map[string]function.Function {
	l.runMu.Lock()
	defer l.runMu.Unlock()
	if l.runFuncs == nil || l.run != run {
		l.run, l.runFuncs = run, l.lib.ForRun(run)
	}
	return l.runFuncs
}

// Load reads the configuration files in dir (see configFiles).
func Load(dir string, opts Options) (*config.Config, hcl.Diagnostics) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()}}
	}
	l := newLoader(abs, opts)
	root := &module{l: l, dir: abs}
	if !root.load(nil) {
		return l.cfg, l.diags
	}
	l.implicitProviders()
	l.cfg.Required = map[string]config.ProviderRequirement{}
	for local, rp := range root.required {
		l.cfg.Required[local] = config.ProviderRequirement{Source: rp.source, Constraints: rp.constraints, DeclRange: rp.rng}
	}
	l.runPending()
	l.cfg.Evaluate = root.expressionEvaluator()
	l.release()
	return l.cfg, uniqueDiags(l.diags)
}

// release lets go of what only loading needs, once the configuration is
// loaded: the nodes' evaluations keep the loader for as long as the
// configuration lives (the whole run), and what it would keep with it is
// per declaration: the pending resolutions, each with the traversals and
// ranges it captured, and the parsed files, which the command keeps too,
// trimmed to what Backend reads again (see Files.trim).
func (l *loader) release() {
	l.pending = nil
	// Without the command's Files the parsed files would live on here
	// whole, with every block.
	l.read = nil
	l.opts.Files.trim()
	l.opts.Files = nil
}

// newLoader starts a load of the configuration rooted in the folder abs.
func newLoader(abs string, opts Options) *loader {
	l := &loader{
		dir:          abs,
		opts:         opts,
		cfg:          &config.Config{Sources: map[string][]byte{}},
		lib:          funcs.New(abs),
		decls:        map[string]*config.Node{},
		providerUses: map[string]providerUse{},
		missing:      map[string]bool{},
		specs:        map[specKey]hcldec.Spec{},
		bodySpecs:    map[bodySpecKey]hcldec.Spec{},
		cwd:          cwdOrEmpty(),
		evalRefs:     map[string][]evalRef{},
		schemas:      map[*provider.Block]*hcl.BodySchema{},
	}
	l.funcs = l.lib.Functions()
	return l
}

// uniqueDiags drops repeats: a module called more than once is read once
// per call, and a mistake in it is one mistake, said once.
func uniqueDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		summary, detail string
		subject         hcl.Range
	}
	seen := map[key]bool{}
	out := diags[:0:0]
	for _, d := range diags {
		k := key{summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.subject = *d.Subject
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// configFiles lists the names of the configuration files in dir, sorted:
// *.tf, *.tf.json and, beyond Terraform, OpenTofu's *.tofu and *.tofu.json.
// As in OpenTofu, a .tofu file hides the .tf file of the same name (and a
// .tofu.json file the .tf.json one), so that one folder can serve both
// tools.
func configFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && !strings.HasPrefix(n, ".") && IsConfigFile(n) {
			present[n] = true
		}
	}
	var names []string
	for n := range present {
		if tofu, ok := tofuAlternative(n); ok && present[tofu] {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// configExtensions are the endings of configuration files' names.
var configExtensions = []string{".tf", ".tf.json", ".tofu", ".tofu.json"}

// IsConfigFile reports whether a file name is a configuration file's:
// *.tf, *.tf.json, *.tofu or *.tofu.json.
func IsConfigFile(name string) bool {
	for _, ext := range configExtensions {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// tofuAlternative is the name of the OpenTofu file that takes precedence
// over the .tf or .tf.json file name, if it is one.
func tofuAlternative(name string) (string, bool) {
	for _, ext := range []string{".tf", ".tf.json"} {
		if base, ok := strings.CutSuffix(name, ext); ok {
			return base + strings.Replace(ext, ".tf", ".tofu", 1), true
		}
	}
	return "", false
}

func (l *loader) parse(dir string) ([]*hcl.File, hcl.Diagnostics) {
	names, err := configFiles(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration folder", Detail: err.Error()}}
	}
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   fmt.Sprintf("The folder %s has no *.tf, *.tf.json, *.tofu or *.tofu.json files.", dir),
		}}
	}
	paths := make([]string, len(names))
	for i, n := range names {
		// Diagnostics name files relative to the root folder, as users
		// wrote them.
		paths[i] = filepath.Join(dir, n)
		if rel, err := filepath.Rel(l.dir, paths[i]); err == nil {
			names[i] = filepath.ToSlash(rel)
		}
	}
	var files []*hcl.File
	var diags hcl.Diagnostics
	for i, rf := range l.opts.Files.files(paths, names, l.backendOnly) {
		n := names[i]
		diags = append(diags, rf.diags...)
		if rf.src == nil && rf.file == nil {
			continue
		}
		l.cfg.Sources[n] = rf.src
		if rf.file != nil {
			files = append(files, rf.file)
			if l.read == nil {
				l.read = map[*hcl.File]*readFile{}
			}
			l.read[rf.file] = rf
			if l.funcs != nil {
				diags = append(diags, l.checkFunctions(rf)...)
			}
		}
	}
	return files, diags
}

func (l *loader) errorf(rng hcl.Range, summary, detail string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(detail, args...),
		Subject:  rng.Ptr(),
	})
}

// declare adds a node, refusing a second declaration of the same address.
func (l *loader) declare(n *config.Node) bool {
	if prev, ok := l.decls[n.Addr]; ok {
		l.errorf(n.DeclRange, fmt.Sprintf("Duplicate %s %q", n.Kind, n.Addr),
			"%s was already declared at %s. Each %s needs a unique name.", n.Addr, rangeString(prev.DeclRange), n.Kind)
		return false
	}
	l.decls[n.Addr] = n
	l.cfg.Nodes = append(l.cfg.Nodes, n)
	return true
}

func rangeString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// terraform reads what the loader itself needs of a terraform block:
// required_providers is the module's (see requireProviders).
func (l *loader) terraform(b *hcl.Block) {
	content, _, d := b.Body.PartialContent(&hcl.BodySchema{
		Blocks: []hcl.BlockHeaderSchema{{Type: "required_providers"}, {Type: "backend", LabelNames: []string{"type"}}, {Type: "cloud"}},
	})
	l.diags = append(l.diags, d...)
	for _, rb := range content.Blocks {
		switch rb.Type {
		case "cloud":
			l.errorf(rb.DefRange, `"cloud" is not supported`,
				"Tether keeps state in .tether/ next to the configuration, or in PostgreSQL with a backend \"pg\" block; remove the cloud block.")
		case "backend":
			// Read by Backend, before the configuration is loaded; only
			// the type is checked here, so that plan names a wrong one.
			if _, ok := config.BackendArguments[rb.Labels[0]]; !ok {
				l.errorf(rb.LabelRanges[0], "Unsupported backend type",
					"There is no backend type named %q in Tether. Tether supports the %s backends.", rb.Labels[0], config.BackendTypes())
			}
		}
	}
}

func cwdOrEmpty() string {
	wd, _ := os.Getwd()
	return wd
}

// checkFunctions reports calls to functions that do not exist when the
// file is read, rather than when (or if) the expression is evaluated.
func (l *loader) checkFunctions(rf *readFile) hcl.Diagnostics {
	calls := rf.functionCalls()
	if len(calls) == 0 {
		return nil
	}
	// Type constraints such as list(string) look like calls but are not.
	var types []hcl.Range
	for _, b := range rf.file.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "variable" {
			if a, ok := b.Body.Attributes["type"]; ok {
				types = append(types, a.Expr.Range())
			}
		}
	}
	var diags hcl.Diagnostics
calls:
	for _, call := range calls {
		for _, t := range types {
			if t.ContainsOffset(call.NameRange.Start.Byte) {
				continue calls
			}
		}
		if strings.HasPrefix(call.Name, "provider::") {
			// Checked once the module's required providers are known.
			continue
		}
		if _, ok := l.funcs[call.Name]; !ok {
			var names []string
			for name := range l.funcs {
				if !strings.HasPrefix(name, "core::") {
					names = append(names, name)
				}
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Call to unknown function",
				Detail:   fmt.Sprintf("There is no function named %q.%s", call.Name, didYouMean(call.Name, names)),
				Subject:  call.NameRange.Ptr(),
			})
		}
	}
	return diags
}

// functionCalls are the function calls in f, a file parse returned.
func (l *loader) functionCalls(f *hcl.File) []*hclsyntax.FunctionCallExpr {
	if rf, ok := l.read[f]; ok {
		return rf.functionCalls()
	}
	return (&readFile{file: f}).functionCalls()
}

// functionCalls are the function calls in rf's native syntax tree, in
// eachCall's order: found once per file, not again by each walk that
// reads it (a command reads its files three times: for the backend, the
// modules and the configuration, and checks provider functions again),
// since at 100,000 resources each search is some 30 ms.
func (rf *readFile) functionCalls() []*hclsyntax.FunctionCallExpr {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if !rf.callsFound {
		if body, ok := rf.file.Body.(*hclsyntax.Body); ok {
			eachCall(body, func(call *hclsyntax.FunctionCallExpr) { rf.calls = append(rf.calls, call) })
		}
		rf.callsFound = true
	}
	return rf.calls
}
