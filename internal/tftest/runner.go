package tftest

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/provider"
)

// Step is one plan, apply or destroy an Executor carries out.
type Step struct {
	// Module is the folder of the configuration to run, relative to the
	// configuration under test: "" for that configuration itself.
	Module string
	// State names the state the step works on, one per test file and
	// module: the executor keeps each apart from the others and from the
	// folder's own.
	State string
	// VarFiles are variable files (relative to the configuration folder)
	// that take precedence over -var and -var-file: for a test file in
	// tests/, that folder's terraform.tfvars(.json) and *.auto.tfvars(.json).
	VarFiles []string
	// Variables are values for the configuration's root variables, which
	// take precedence over all the others.
	Variables map[string]cty.Value
	// Apply applies the plan; Destroy plans to destroy and applies.
	Apply, Destroy bool
	// Mocks stand in for the providers they name (see NewMockProvider).
	Mocks []*Mock
	// Options are the run's plan_options; none when destroying.
	Options Options
	// Verbose asks for the plan (or, for an apply, the state) as text.
	Verbose bool
	// Providers configure the providers they name (by local name) in
	// place of the configuration's provider blocks: each decodes its
	// test-file block against the provider's configuration schema.
	Providers map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics)
	// Overrides are the run's override_resource and override_data
	// blocks, then the file's: their objects are served by
	// NewOverriding in place of every provider.
	Overrides []*Override
}

// Outcome is what a step made, for the run's assertions.
type Outcome struct {
	// Config is the configuration the step ran; nil when it could not be
	// loaded.
	Config *config.Config
	// Scope gives the values of Config's root nodes after the plan (or
	// the apply), by address; nil when planning failed.
	Scope config.Scope
	// PlanDiags are the diagnostics of loading and planning, ApplyDiags
	// the apply's; none is printed yet.
	PlanDiags, ApplyDiags hcl.Diagnostics
	// Applied is set when the plan was applied (planning succeeded).
	Applied bool
	// Verbose is the plan, or the state after an apply, for -verbose.
	Verbose string
	// Empty is set when, after an apply, the state records no managed
	// resource: there is nothing to destroy.
	Empty bool
}

// Diags is all of the outcome's diagnostics.
func (o Outcome) Diags() hcl.Diagnostics {
	return append(append(hcl.Diagnostics(nil), o.PlanDiags...), o.ApplyDiags...)
}

// Executor plans and applies configurations for the runner.
type Executor interface {
	Execute(ctx context.Context, step Step) Outcome
	// Declared lists the root variables of the configuration in module
	// (as Step.Module), so that test variables it does not declare are
	// not passed to it.
	Declared(module string) (map[string]bool, hcl.Diagnostics)
}

// Runner runs test files.
type Runner struct {
	Dir  string // the configuration folder
	Exec Executor
	// Report shows progress, diagnostics and the summary.
	Report Reporter
	// Filter restricts the run to these files (-filter), when set.
	Filter []string
	// Verbose shows each run's plan or state (-verbose).
	Verbose bool
	// Parallelism is how many parallel runs may run at once
	// (-run-parallelism); below 1, one.
	Parallelism int
}

// Run runs the test files and prints what terraform test prints; it
// returns the exit code.
func (r *Runner) Run(ctx context.Context) int {
	names := Find(r.Dir)
	if len(r.Filter) > 0 {
		keep := map[string]bool{}
		for _, f := range r.Filter {
			keep[f] = true
		}
		var filtered []string
		for _, n := range names {
			if keep[n] {
				filtered = append(filtered, n)
			}
		}
		names = filtered
	}
	// A file that cannot be read is a configuration error: nothing runs,
	// as in terraform test.
	p := hclparse.NewParser()
	var files []*File
	var diags hcl.Diagnostics
	for _, name := range names {
		f, d := Parse(p, r.Dir, name)
		diags = append(diags, d...)
		files = append(files, f)
	}
	if diags.HasErrors() {
		r.Report.Diagnostics("", "", diags, r.sources(p, nil))
		return 1
	}
	r.Report.Abstract(files)
	var counts Counts
	suite := pending
	for _, f := range files {
		if st := r.runFile(ctx, p, f, &counts); st > suite {
			suite = st
		}
	}
	r.Report.Summary(suite, counts)
	if suite >= fail {
		return 1
	}
	return 0
}

// sources are the files diagnostics quote: the test files and the
// configuration's.
func (r *Runner) sources(p *hclparse.Parser, cfg *config.Config) map[string][]byte {
	out := map[string][]byte{}
	if cfg != nil {
		for k, v := range cfg.Sources {
			out[k] = v
		}
	}
	for name, f := range p.Files() {
		out[name] = f.Bytes
	}
	return out
}

// fileRun is the state of one test file's run.
type fileRun struct {
	f *File
	// outputs are the outputs of the runs so far, by run name.
	outputs map[string]cty.Value
	// states lists the states the file's runs used, in order of first
	// use, with the last variables each ran with, for clean-up.
	states []*stateUse
	vars   map[string]cty.Value // the file's variables, evaluated
}

type stateUse struct {
	name string
	// run is the last run applied to the state, last its place in the
	// file.
	run    string
	last   int
	module string
	key    string
	vars   map[string]cty.Value
	// all are the test's variables of that run, declared or not, for
	// the file's provider blocks.
	all map[string]cty.Value
	// mocks and configs are the providers the last apply ran with.
	mocks   []*Mock
	configs map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics)
	// overrides are the overrides the last apply ran with.
	overrides []*Override
	// applied is set once a run applied to it: a state only planned
	// holds nothing to destroy.
	applied bool
}

func (r *Runner) runFile(ctx context.Context, p *hclparse.Parser, f *File, counts *Counts) Status {
	r.Report.File(f.Name, Starting, pending)
	fr := &fileRun{f: f, outputs: map[string]cty.Value{}}
	fileStatus := skip
	if len(f.Runs) == 0 {
		fileStatus = pass
	}
	var fileVars map[string]cty.Value
	var diags hcl.Diagnostics
	fileVars, diags = r.evalVariables(fr, f.Variables, nil)
	fr.vars = fileVars
	if diags.HasErrors() {
		r.Report.Diagnostics(f.Name, "", diags, r.sources(p, nil))
		fileStatus = errored
	}
	// The states are listed in the order of the runs, whichever of them
	// runs first.
	for _, run := range f.Runs {
		fr.stateFor(run)
	}
	for _, st := range r.runAll(ctx, p, fr, fileStatus == errored) {
		counts.add(st)
		if st > fileStatus {
			fileStatus = st
		}
	}
	r.Report.File(f.Name, Teardown, pending)
	if !r.cleanUp(context.WithoutCancel(ctx), p, fr) && fileStatus < errored {
		fileStatus = errored
	}
	r.Report.File(f.Name, Complete, fileStatus)
	return fileStatus
}

// runAll runs the file's runs and returns their statuses, in the file's
// order. A run starts once the runs it waits for (see Dependencies) are
// over, with at most Parallelism runs at once; it is skipped when one of
// them errored or was skipped for that, or when skipAll is set or ctx is
// done. What a run reports is shown in the file's order, whatever order
// the runs end in.
func (r *Runner) runAll(ctx context.Context, p *hclparse.Parser, fr *fileRun, skipAll bool) []Status {
	runs := fr.f.Runs
	deps := Dependencies(fr.f)
	n := len(runs)
	status := make([]Status, n)
	// outputs[i] is what run.NAME stands for after run i; poisoned[i]
	// is set when run i errored or was skipped because one before it did.
	outputs := make([]cty.Value, n)
	poisoned := make([]bool, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	limit := r.Parallelism
	if limit < 1 {
		limit = 1
	}
	slots := make(chan struct{}, limit)
	rep := newOrderedReport(r.Report, n)
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rep.finish(i)
			defer close(done[i])
			poison := skipAll
			for _, j := range deps[i] {
				<-done[j]
				poison = poison || poisoned[j]
			}
			if poison || ctx.Err() != nil {
				status[i], poisoned[i] = skip, poison
				rep.emit(i, func(to Reporter) { to.Run(fr.f.Name, run.Name, Complete, skip) })
				return
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			// The run sees the outputs of the runs it waits for: all
			// those it refers to are among them.
			view := *fr
			view.outputs = map[string]cty.Value{}
			for _, j := range deps[i] {
				if outputs[j] != cty.NilVal {
					view.outputs[runs[j].Name] = outputs[j]
				}
			}
			rep.emit(i, func(to Reporter) { to.Run(fr.f.Name, run.Name, Starting, pending) })
			st, out, diags := r.runOne(ctx, &view, run)
			if v, ok := view.outputs[run.Name]; ok {
				outputs[i] = v
			}
			status[i], poisoned[i] = st, st == errored
			rep.emit(i, func(to Reporter) {
				to.Run(fr.f.Name, run.Name, Complete, st)
				if out.Verbose != "" {
					to.Verbose(fr.f.Name, run.Name, !run.Plan, out.Verbose)
				}
				if len(diags) > 0 {
					to.Diagnostics(fr.f.Name, run.Name, diags, r.sources(p, out.Config))
				}
			})
		}()
	}
	wg.Wait()
	return status
}

// Dependencies lists, for each run of f (by index), the earlier runs it
// waits for, as terraform test 1.12 orders them: every earlier run when
// either of the two is not parallel, the earlier runs on the same state,
// and those whose outputs it refers to (in its variables, its asserts, or
// the file's provider blocks). With no parallel run, each run waits for
// all the runs before it, as in terraform test 1.11.
func Dependencies(f *File) [][]int {
	index := map[string]int{}
	for i, run := range f.Runs {
		index[run.Name] = i
	}
	var providerRefs []hcl.Traversal
	for _, p := range f.Providers {
		refs, all := bodyRefs(p.Body)
		if !all {
			// A body whose references cannot be listed (JSON): every run
			// waits for those before it.
			providerRefs = nil
			for _, run := range f.Runs {
				providerRefs = append(providerRefs, hcl.Traversal{hcl.TraverseRoot{Name: "run"}, hcl.TraverseAttr{Name: run.Name}})
			}
			break
		}
		providerRefs = append(providerRefs, refs...)
	}
	out := make([][]int, len(f.Runs))
	for i, run := range f.Runs {
		refers := map[int]bool{}
		refs := slices.Clone(providerRefs)
		for _, e := range run.Variables {
			refs = append(refs, e.Variables()...)
		}
		for _, a := range run.Asserts {
			refs = append(refs, a.Condition.Variables()...)
			refs = append(refs, a.ErrorMessage.Variables()...)
		}
		for _, t := range refs {
			if names := attrNames(t); len(names) >= 2 && names[0] == "run" {
				if j, ok := index[names[1]]; ok && j < i {
					refers[j] = true
				}
			}
		}
		for j, before := range f.Runs[:i] {
			if refers[j] || !run.Parallel || !before.Parallel || stateName(run) == stateName(before) {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// bodyRefs lists the references of a native syntax body's expressions,
// nested blocks' included; all is false for a body of another syntax.
func bodyRefs(b hcl.Body) (refs []hcl.Traversal, all bool) {
	body, ok := b.(*hclsyntax.Body)
	if !ok {
		return nil, false
	}
	for _, a := range body.Attributes {
		refs = append(refs, a.Expr.Variables()...)
	}
	for _, blk := range body.Blocks {
		more, _ := bodyRefs(blk.Body)
		refs = append(refs, more...)
	}
	return refs, true
}

// cleanUp destroys the file's states, the one a later run applied to
// first, as terraform test does; it reports whether all were destroyed.
func (r *Runner) cleanUp(ctx context.Context, p *hclparse.Parser, fr *fileRun) bool {
	ok := true
	states := slices.Clone(fr.states)
	sort.SliceStable(states, func(i, j int) bool { return states[i].last > states[j].last })
	for _, su := range states {
		if !su.applied {
			continue
		}
		r.Report.Run(fr.f.Name, su.run, Teardown, pending)
		out := r.Exec.Execute(ctx, Step{Module: su.module, State: su.key, Variables: su.vars, VarFiles: r.testVarFiles(fr.f), Apply: true, Destroy: true, Mocks: su.mocks, Providers: su.configs, Overrides: su.overrides})
		if diags := out.Diags(); len(diags) > 0 {
			r.Report.Diagnostics(fr.f.Name, su.run, diags, r.sources(p, out.Config))
		}
		if out.Diags().HasErrors() {
			ok = false
		}
	}
	return ok
}

// stateFor is the state a run works on: one per state_key, which is
// the module source unless the run gives one.
func (fr *fileRun) stateFor(run *Run) *stateUse {
	name := stateName(run)
	for _, su := range fr.states {
		if su.name == name {
			return su
		}
	}
	safe := strings.NewReplacer("/", "_", ".", "_", " ", "_")
	key := safe.Replace(fr.f.Name)
	if name != "" {
		key += "-" + safe.Replace(name)
	}
	su := &stateUse{name: name, module: run.Module, key: key}
	fr.states = append(fr.states, su)
	return su
}

func (r *Runner) runOne(ctx context.Context, fr *fileRun, run *Run) (Status, Outcome, hcl.Diagnostics) {
	runVars, diags := r.evalVariables(fr, run.Variables, fr.vars)
	if diags.HasErrors() {
		return errored, Outcome{}, diags
	}
	declared, d := r.Exec.Declared(run.Module)
	diags = append(diags, d...)
	if d.HasErrors() {
		return errored, Outcome{}, diags
	}
	all := map[string]cty.Value{}
	for k, v := range fr.vars {
		all[k] = v
	}
	for k, v := range runVars {
		all[k] = v
	}
	given := map[string]cty.Value{}
	for k, v := range all {
		if declared[k] {
			given[k] = v
		}
	}
	su := fr.stateFor(run)
	mocks, configs, d := r.runProviders(fr, run, all)
	diags = append(diags, d...)
	if d.HasErrors() {
		return errored, Outcome{}, diags
	}
	overrides := append(slices.Clone(run.Overrides), fr.f.Overrides...)
	out := r.Exec.Execute(ctx, Step{Module: run.Module, State: su.key, Variables: given, VarFiles: r.testVarFiles(fr.f), Apply: !run.Plan, Mocks: mocks, Options: run.Options, Verbose: r.Verbose, Providers: configs, Overrides: overrides})
	if out.Applied {
		// Whatever the apply got to is in the state now; the
		// configuration and variables of the last run applied to a state
		// are what destroys it.
		su.applied = !out.Empty
		su.vars = given
		su.all = all
		su.module = run.Module
		su.run = run.Name
		su.mocks, su.configs, su.overrides = mocks, configs, overrides
		su.last = slices.Index(fr.f.Runs, run)
	}
	d = expectFailures(run, out)
	diags = append(diags, d...)
	if d.HasErrors() {
		return errored, out, diags
	}
	if out.Scope == nil {
		// An expected failure stopped planning before any value was
		// known: the asserts cannot be checked, which must not pass.
		if len(run.Asserts) > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Assertions not evaluated",
				Detail:  "Planning stopped at the expected failure, so no value is known to check this run's assert blocks against. Move them to a run without expect_failures.",
				Subject: run.DeclRange.Ptr()})
			return errored, out, diags
		}
		fr.outputs[run.Name] = cty.EmptyObjectVal
		return pass, out, diags
	}
	st, d := r.assert(fr, run, out, all)
	diags = append(diags, d...)
	// Later runs read this run's outputs, whatever its asserts found.
	fr.outputs[run.Name] = outputsOf(out)
	return st, out, diags
}

// stateName is the name of the state a run works on: its state_key, or
// its module's source ("" for the configuration under test).
func stateName(run *Run) string {
	if run.StateKey != "" {
		return run.StateKey
	}
	return run.Module
}

// runProviders are the mocks and provider configurations a run uses: all
// the file's, or with a providers argument, those it names, each under
// the local name it gives it.
func (r *Runner) runProviders(fr *fileRun, run *Run, vars map[string]cty.Value) ([]*Mock, map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics), hcl.Diagnostics) {
	configs := r.providerConfigs(fr, vars)
	if len(run.Providers) == 0 {
		return fr.f.Mocks, configs, nil
	}
	var diags hcl.Diagnostics
	var mocks []*Mock
	chosen := map[string]func(*provider.Block) (cty.Value, hcl.Diagnostics){}
	for _, child := range sortedNames(run.Providers) {
		parent := run.Providers[child]
		found := false
		for _, m := range fr.f.Mocks {
			if m.Name == parent {
				renamed := *m
				renamed.Name = child
				mocks = append(mocks, &renamed)
				found = true
			}
		}
		if c, ok := configs[parent]; ok {
			chosen[child] = c
			found = true
		}
		if !found {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("Missing provider definition for %s", parent),
				Detail: "This provider block references a provider definition that does not exist.", Subject: run.ProviderRanges[child].Ptr()})
		}
	}
	return mocks, chosen, diags
}

// testVarFiles are the variable files of the tests folder, which
// terraform test reads for the files in it: terraform.tfvars,
// terraform.tfvars.json, then *.auto.tfvars and *.auto.tfvars.json by
// name.
func (r *Runner) testVarFiles(f *File) []string {
	if path.Dir(f.Name) != "tests" {
		return nil
	}
	var out []string
	for _, name := range []string{"terraform.tfvars", "terraform.tfvars.json"} {
		if _, err := os.Stat(filepath.Join(r.Dir, "tests", name)); err == nil {
			out = append(out, "tests/"+name)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(r.Dir, "tests"))
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".auto.tfvars") || strings.HasSuffix(n, ".auto.tfvars.json")) {
			out = append(out, "tests/"+n)
		}
	}
	return out
}

// outputsOf is the object run.NAME stands for: the run's root outputs.
func outputsOf(out Outcome) cty.Value {
	attrs := map[string]cty.Value{}
	if out.Config != nil && out.Scope != nil {
		for _, n := range out.Config.Nodes {
			if n.Kind == config.Output && n.Module == "" {
				attrs[n.Name] = out.Scope.Value(n.Addr)
			}
		}
	}
	return cty.ObjectVal(attrs)
}

// sortedNames is m's keys in order.
func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
