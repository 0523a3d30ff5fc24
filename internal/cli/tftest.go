package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/jsonplan"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/tftest"
	"github.com/tetherhq/tether/internal/ui"
)

// tftestStateDir holds the states of Terraform test files' runs, a folder
// per file and module, apart from the stack tether_tester tests deploy.
var tftestStateDir = filepath.Join(testStateDir, "tftest")

// tftestExec is the tftest.Executor of `tether test`: each step loads the
// configuration (or a run's module) afresh with the test's variables and
// plans, applies or destroys it against a state of its own.
type tftestExec struct {
	e *env
	// root is the absolute configuration folder.
	root string
	// vars are the command's -var and -var-file arguments.
	vars []varArg
	// said holds the dev-override warnings printed: each step starts
	// providers anew, and terraform test says it once. Steps of
	// parallel runs share it.
	said *onceSaid
	// parallelism is -parallelism when given, for each step's engine.
	parallelism int
	// json makes -verbose's plans and states the JSON documents
	// terraform test -json -verbose writes.
	json bool
}

// onceSaid is the warnings printed already, and the lock that keeps the
// writes of parallel runs' steps whole.
type onceSaid struct {
	mu   sync.Mutex
	said map[string]bool
}

// onceWriter drops a development-override warning w printed already.
type onceWriter struct {
	w    io.Writer
	said *onceSaid
}

func (o onceWriter) Write(b []byte) (int, error) {
	o.said.mu.Lock()
	defer o.said.mu.Unlock()
	line := string(b)
	if strings.HasPrefix(line, "Warning: provider development overrides are in effect") {
		if o.said.said[line] {
			return len(b), nil
		}
		o.said.said[line] = true
	}
	return o.w.Write(b)
}

func (x *tftestExec) Declared(module string) (map[string]bool, hcl.Diagnostics) {
	dir := filepath.Join(x.root, module)
	found, ok := blockLabels(dir, "variable", 1)
	if !ok {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No configuration files",
			Detail: fmt.Sprintf("The folder %s has no .tf or .tf.json file to test.", dir)}}
	}
	out := map[string]bool{}
	for _, labels := range found {
		out[labels[0]] = true
	}
	return out, nil
}

// hasTesters reports whether the configuration in dir declares a
// tether_tester resource in its root module.
func hasTesters(dir string) bool {
	found, _ := blockLabels(dir, "resource", 2)
	for _, labels := range found {
		if labels[0] == "tether_tester" {
			return true
		}
	}
	return false
}

// blockLabels lists the labels of the top-level blocks of type typ in the
// .tf and .tf.json files of dir, read without the configuration's rules
// (a file that does not parse is skipped: loading it reports why); ok is
// false when dir has no such file.
func blockLabels(dir, typ string, labels int) (found [][]string, ok bool) {
	var files []string
	for _, ext := range []string{"*.tf", "*.tf.json"} {
		matched, _ := filepath.Glob(filepath.Join(dir, ext))
		files = append(files, matched...)
	}
	p := hclparse.NewParser()
	schema := &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: typ, LabelNames: make([]string, labels)}}}
	for i := range schema.Blocks[0].LabelNames {
		schema.Blocks[0].LabelNames[i] = fmt.Sprintf("label%d", i)
	}
	for _, f := range files {
		var file *hcl.File
		var diags hcl.Diagnostics
		if strings.HasSuffix(f, ".json") {
			file, diags = p.ParseJSONFile(f)
		} else {
			file, diags = p.ParseHCLFile(f)
		}
		if diags.HasErrors() {
			continue
		}
		content, _, _ := file.Body.PartialContent(schema)
		for _, b := range content.Blocks {
			found = append(found, b.Labels)
		}
	}
	return found, len(files) > 0
}

func (x *tftestExec) Execute(ctx context.Context, step tftest.Step) tftest.Outcome {
	var out tftest.Outcome
	fail := func(summary, detail string) tftest.Outcome {
		out.PlanDiags = append(out.PlanDiags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
		return out
	}
	folder := filepath.Join(x.root, tftestStateDir, step.State)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return fail("Cannot create state folder", fmt.Sprintf("Creating %s failed: %v.", folder, err))
	}
	args := []string{}
	for _, v := range x.vars {
		if v.file != "" {
			args = append(args, "-var-file", filepath.Join(x.root, v.file))
		} else {
			args = append(args, "-var", v.name+"="+v.value)
		}
	}
	if x.parallelism > 0 {
		args = append(args, "-parallelism", strconv.Itoa(x.parallelism))
	}
	for _, f := range step.VarFiles {
		args = append(args, "-var-file", filepath.Join(x.root, f))
	}
	if len(step.Variables) > 0 {
		path := filepath.Join(folder, "run.tfvars")
		if err := writeTFVars(path, step.Variables); err != nil {
			return fail("Cannot pass the test's variables", err.Error())
		}
		args = append(args, "-var-file", path)
	}
	// A fresh env: the files one step parsed are not another's.
	e := *x.e
	e.files = nil
	e.stderr = onceWriter{w: x.e.stderr, said: x.said}
	e.diagSink = func(diags hcl.Diagnostics, _ map[string][]byte) { out.PlanDiags = append(out.PlanDiags, diags...) }
	var c common
	fs := e.flags("test", &c)
	if err := fs.Parse(args); err != nil {
		return fail("Invalid test variables", err.Error())
	}
	c.destroying = step.Destroy
	c.configDir = filepath.ToSlash(filepath.Clean(step.Module))
	s, ok := e.open(withStateDir(ctx, folder), &c, "test")
	if !ok {
		if !out.PlanDiags.HasErrors() {
			return fail("Cannot run the configuration", "Loading the configuration or its state failed; the messages above say why.")
		}
		return out
	}
	defer s.close()
	out.Config = s.cfg
	if len(step.Mocks) > 0 || len(step.Providers) > 0 || len(step.Overrides) > 0 {
		s.engine.StartConfig = testStartConfig(s.engine.Providers, step)
		s.engine.Providers = testFactory(s.engine.Providers, s.cfg, step)
	}
	o := step.Options
	planned, diags := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{Destroy: step.Destroy,
		RefreshOnly: o.RefreshOnly, SkipRefresh: o.SkipRefresh, Replace: o.Replace, Targets: o.Target,
		ModuleOverrides: tftest.ModuleOverrides(step.Overrides)})
	out.PlanDiags = append(out.PlanDiags, diags...)
	if diags.HasErrors() || planned == nil {
		return out
	}
	out.Scope = planned.RootScope()
	if !step.Apply {
		if step.Verbose && x.json {
			var d hcl.Diagnostics
			out.Verbose, d = verbosePlanJSON(ctx, s, planned)
			out.PlanDiags = append(out.PlanDiags, d...)
		} else if step.Verbose {
			var text strings.Builder
			ui.RenderPlan(&text, planned.Plan, ui.Options{})
			out.Verbose = text.String()
		}
		return out
	}
	if len(planned.Plan.Deferred) > 0 {
		out.ApplyDiags = append(out.ApplyDiags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Deferred changes in a test run",
			Detail: "Part of the configuration could be planned only after an apply (count, for_each or a dynamic block waiting on unknown values); tether test does not apply in rounds yet."})
		return out
	}
	out.Applied = true
	_, diags = s.engine.Apply(ctx, planned)
	out.ApplyDiags = append(out.ApplyDiags, diags...)
	if snap, err := s.store.Load(ctx); err == nil {
		out.Empty = true
		for _, obj := range snap.Objects {
			if obj.Mode == state.Managed {
				out.Empty = false
				break
			}
		}
	}
	if step.Verbose && !diags.HasErrors() {
		if x.json {
			out.Verbose, diags = verboseStateJSON(ctx, s)
		} else {
			out.Verbose, diags = verboseState(ctx, s)
		}
		out.ApplyDiags = append(out.ApplyDiags, diags...)
	}
	return out
}

// verbosePlanJSON is the plan as terraform test -json -verbose writes it
// in a test_plan message.
func verbosePlanJSON(ctx context.Context, s *session, planned *engine.Planned) (string, hcl.Diagnostics) {
	warn := renderWarning("plan")
	objects, outputs, err := recordedNow(ctx, s)
	if err != nil {
		return "", warn(err)
	}
	doc, err := jsonplan.FromPlan(planned.Plan, jsonplan.Prior{Objects: objects, Outputs: outputs, Variables: planned.Variables()}, time.Now())
	if err != nil {
		return "", warn(err)
	}
	m := map[string]any{"plan_format_version": jsonplan.PlanFormatVersion}
	if len(doc.OutputChanges) > 0 {
		m["output_changes"] = doc.OutputChanges
	}
	if len(doc.ResourceChanges) > 0 {
		m["resource_changes"] = doc.ResourceChanges
	}
	if len(doc.ResourceDrift) > 0 {
		m["resource_drift"] = doc.ResourceDrift
	}
	if len(doc.RelevantAttributes) > 0 {
		m["relevant_attributes"] = doc.RelevantAttributes
	}
	if len(doc.DeferredChanges) > 0 {
		m["deferred_changes"] = doc.DeferredChanges
	}
	return verboseDoc(s, m, warn)
}

// verboseStateJSON is the state as terraform test -json -verbose writes
// it in a test_state message.
func verboseStateJSON(ctx context.Context, s *session) (string, hcl.Diagnostics) {
	warn := renderWarning("state")
	objects, outputs, err := recordedNow(ctx, s)
	if err != nil {
		return "", warn(err)
	}
	doc, err := jsonplan.State(objects, outputs)
	if err != nil {
		return "", warn(err)
	}
	m := map[string]any{"state_format_version": jsonplan.StateFormatVersion}
	if doc.Values != nil {
		if doc.Values.RootModule != nil {
			m["root_module"] = doc.Values.RootModule
		}
		if len(doc.Values.Outputs) > 0 {
			m["outputs"] = doc.Values.Outputs
		}
	}
	return verboseDoc(s, m, warn)
}

// recordedNow is what the session's state records, read through the
// test's providers (a mock reads what it recorded).
func recordedNow(ctx context.Context, s *session) ([]jsonplan.Object, []jsonplan.Output, error) {
	snap, err := s.store.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	return recorded(s.engine.Keys, snap, s.engine.Providers)
}

// verboseDoc is m with the schemas of the configuration's providers, as
// JSON.
func verboseDoc(s *session, m map[string]any, warn func(error) hcl.Diagnostics) (string, hcl.Diagnostics) {
	schemas := map[string]any{}
	for _, n := range s.cfg.Nodes {
		if n.Source == "" || schemas[n.Source] != nil {
			continue
		}
		ps, err := s.engine.Providers.Schema(n.Source)
		if err != nil {
			return "", warn(err)
		}
		schemas[n.Source] = jsonplan.ProviderSchema(ps)
	}
	m["provider_format_version"] = jsonplan.ProviderFormatVersion
	if len(schemas) > 0 {
		m["provider_schemas"] = schemas
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", warn(err)
	}
	return string(b), nil
}

// renderWarning is terraform test's warning that the plan or the state
// (what) could not be shown.
func renderWarning(what string) func(error) hcl.Diagnostics {
	return func(err error) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Failed to render test " + what,
			Detail: fmt.Sprintf("The %s could not be shown: %v.", what, err)}}
	}
}

// verboseState is what the session's state records, as terraform show
// prints it.
func verboseState(ctx context.Context, s *session) (string, hcl.Diagnostics) {
	warn := renderWarning("state")
	objects, outputs, err := recordedNow(ctx, s)
	if err != nil {
		return "", warn(err)
	}
	var text strings.Builder
	if err := writeState(&text, objects, outputs); err != nil {
		return "", warn(err)
	}
	return text.String(), nil
}

// testFactory is f with the providers a test file names replaced where
// testStartConfig does not start them (the implied provider of a deleted
// object): by its mock_provider blocks, or
// configured with its provider blocks in place of the configuration's; the
// objects its override_resource and override_data blocks target are served
// by tftest.NewOverriding. A block's name is the local name its resources'
// types begin with (tether for tether_file), as terraform test takes it.
func testFactory(f provider.Factory, cfg *config.Config, step tftest.Step) provider.Factory {
	sources := map[string][]string{}
	for _, n := range cfg.Nodes {
		if (n.Kind == config.Resource || n.Kind == config.DataSource) && n.Source != "" {
			local, _, _ := strings.Cut(n.Type, "_")
			sources[local] = append(sources[local], n.Source)
		}
	}
	mocks := map[string]*tftest.Mock{}
	for _, m := range step.Mocks {
		for _, src := range sources[m.Name] {
			mocks[src] = m
		}
	}
	configs := map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics){}
	for name, c := range step.Providers {
		for _, src := range sources[name] {
			configs[src] = c
		}
	}
	start := f.Start
	f.Start = func(source string) (provider.Provider, error) {
		if m, ok := mocks[source]; ok {
			s, err := f.Schema(source)
			if err != nil {
				return nil, err
			}
			return tftest.NewOverriding(tftest.NewMockProvider(s, m), step.Overrides), nil
		}
		p, err := start(source)
		if err != nil {
			return p, err
		}
		if c, ok := configs[source]; ok {
			p = &testConfigured{Provider: p, config: c}
		}
		return tftest.NewOverriding(p, step.Overrides), nil
	}
	return f
}

// testStartConfig starts the provider of each provider configuration of
// the root module as the test file says, by its name (tether, or
// tether.west with an alias): its mock_provider's mock, the provider
// configured with its provider block, or, when the file names neither, the
// provider the configuration's own block configures. The objects its
// overrides target are served by tftest.NewOverriding. A child module's
// own provider block (a legacy module) starts its real provider, configured
// with that block. testFactory serves what no configuration starts (a
// deleted object's implied provider).
func testStartConfig(f provider.Factory, step tftest.Step) func(*config.Node) (provider.Provider, bool, error) {
	mocks := map[string]*tftest.Mock{}
	for _, m := range step.Mocks {
		mocks[m.Name] = m
	}
	return func(n *config.Node) (provider.Provider, bool, error) {
		if n.Module != "" {
			// A legacy module's own provider block configures its
			// provider: the test file's blocks stand in for the root
			// module's alone, as in terraform test.
			p, err := f.Start(n.Source)
			if err != nil {
				return p, true, err
			}
			return tftest.NewOverriding(p, step.Overrides), true, nil
		}
		if m, ok := mocks[n.Name]; ok {
			s, err := f.Schema(n.Source)
			if err != nil {
				return nil, true, err
			}
			return tftest.NewOverriding(tftest.NewMockProvider(s, m), step.Overrides), true, nil
		}
		p, err := f.Start(n.Source)
		if err != nil {
			return p, true, err
		}
		if c, ok := step.Providers[n.Name]; ok {
			p = &testConfigured{Provider: p, config: c}
		}
		return tftest.NewOverriding(p, step.Overrides), true, nil
	}
}

// testConfigured is a provider configured with a test file's provider
// block, whatever the configuration's says.
type testConfigured struct {
	provider.Provider
	config func(*provider.Block) (cty.Value, hcl.Diagnostics)
}

func (p *testConfigured) value() (cty.Value, hcl.Diagnostics) {
	s, diags := p.GetSchema()
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return p.config(s.Provider)
}

func (p *testConfigured) ValidateProviderConfig(cty.Value) hcl.Diagnostics {
	v, diags := p.value()
	if diags.HasErrors() {
		return diags
	}
	return append(diags, p.Provider.ValidateProviderConfig(v)...)
}

func (p *testConfigured) ConfigureProvider(ctx context.Context, _ cty.Value) hcl.Diagnostics {
	v, diags := p.value()
	if diags.HasErrors() {
		return diags
	}
	return append(diags, p.Provider.ConfigureProvider(ctx, v)...)
}

// writeTFVars writes values as a tfvars file, where each keeps its type
// (a -var would pass a string to an untyped variable).
func writeTFVars(path string, vals map[string]cty.Value) error {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	for _, name := range sortedKeys(vals) {
		v, _ := vals[name].UnmarkDeep()
		if !v.IsWhollyKnown() {
			return fmt.Errorf("The value of variable %q is not known: it comes from a run that only planned. Give it from a run that applies.", name)
		}
		body.SetAttributeValue(name, v)
	}
	return os.WriteFile(path, f.Bytes(), 0o600)
}

// runTFTests runs the folder's Terraform test files; it returns the exit
// code.
// runTFTests runs the test files. parallelism is -parallelism when given
// (0 otherwise), each run's provider operations at once, as in terraform
// test 1.12; runs is how many parallel runs run at once (Terraform 1.14's
// -run-parallelism; 1.12 runs up to 10).
func (e *env) runTFTests(ctx context.Context, c *common, filter []string, asJSON, verbose bool, parallelism, runs int) int {
	root, err := os.Getwd()
	if err != nil {
		return e.errorf("%v", err)
	}
	var report tftest.Reporter = &tftest.Text{W: e.stdout, Diags: e.writeDiagnostics}
	exec := &tftestExec{e: e, root: root, vars: *c.vars.list, json: asJSON, said: &onceSaid{said: map[string]bool{}}, parallelism: parallelism}
	if asJSON {
		v := ui.NewJSONView(e.stdout)
		v.Version(Version, jsonplan.TerraformVersion)
		report = tftestJSON{v}
	}
	r := &tftest.Runner{Dir: root, Exec: exec, Report: report, Filter: filter, Verbose: verbose, Parallelism: runs}
	return r.Run(ctx)
}
