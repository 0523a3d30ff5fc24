package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/planfile"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/ui"
)

// session is a loaded configuration with its state opened and locked.
type session struct {
	cfg    *config.Config
	store  state.Store
	unlock state.Unlocker
	engine *engine.Engine
	// pool runs the providers; closing the session stops them.
	pool *providerPool
	// stderr is where close says that the lock stayed behind.
	stderr io.Writer
}

func (s *session) close() {
	s.pool.close()
	if s.unlock != nil {
		if err := s.unlock.Unlock(); err != nil && !errors.Is(err, state.ErrLockNotHeld) && s.stderr != nil {
			fmt.Fprintf(s.stderr, "Warning: the state's lock could not be released: %v. Once no other Tether operation is running, break it with: tether state unlock\n", err)
		}
	}
	if s.store != nil {
		s.store.Close()
	}
}

// open loads the configuration, opens state and takes its lock. On failure
// it has printed the reason.
func (e *env) open(ctx context.Context, c *common, op string) (*session, bool) {
	if err := c.chdir(); err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	dir := stateDirOf(ctx)
	if dir == stateDir {
		ws, ok := e.selectedWorkspace()
		if !ok {
			return nil, false
		}
		c.workspace = ws
	}
	// The providers start while the backend and the configuration are
	// read: both wait for the same files, and the first is on the way.
	pool, diags := e.commandPool(ctx, c)
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return nil, false
	}
	c.recorded = e.recordedPlatform(ctx, c, dir)
	if firstLocalState(dir, c.workspace) {
		// The state file's content is built while the configuration is
		// loaded, on the core that loading leaves idle.
		c.parsed = state.BuildNewFileAhead
	}
	pool, cfg, ok := e.load(ctx, c, pool)
	if !ok {
		return nil, false
	}
	s := &session{cfg: cfg, pool: pool, stderr: e.stderr}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.errorf("cannot create state folder: %v", err)
		return nil, false
	}
	// tether test keeps its own local state, whatever the backend.
	b, err := backend.Open(ctx, dir, backend.Local)
	if dir == stateDir {
		b, ok = e.openBackend(ctx, *c.vars.list)
	} else if err != nil {
		e.errorf("%v", err)
		ok = false
	}
	if !ok {
		s.close()
		return nil, false
	}
	defer b.Close()
	ws := c.workspace
	if ws == "" {
		ws = backend.DefaultWorkspace
	}
	if dir == stateDir && (op == "plan" || op == "up" || op == "import") && e.refuseUnadopted(ctx, b, ws) {
		s.close()
		return nil, false
	}
	store, ok := e.openWorkspace(ctx, b, ws, false)
	if !ok {
		s.close()
		return nil, false
	}
	s.store = store
	host, _ := os.Hostname()
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	if !c.noLock {
		unlock, err := lockState(ctx, store, state.LockInfo{Operation: op, Who: who + "@" + host, Host: host, PID: os.Getpid(), Created: time.Now()}, c.lockTimeout)
		if err != nil {
			s.close()
			e.errorf("%v", err)
			return nil, false
		}
		s.unlock = unlock
	}
	keys, err := b.Keys()
	if err != nil {
		s.close()
		e.errorf("%v", err)
		return nil, false
	}
	s.engine = &engine.Engine{Providers: pool.factory(), Store: store, Parallelism: c.parallelism, Keys: keys}
	return s, true
}

// planShowing plans, reporting what planning does that a user sees happen
// (an ephemeral resource opened and closed), as Terraform does.
func (v *view) planShowing(ctx context.Context, s *session, opts engine.PlanOptions) (*engine.Planned, hcl.Diagnostics) {
	progress := v.progress()
	var shown atomic.Bool
	s.engine.Events = func(ev plan.Event) {
		shown.Store(true)
		progress.Event(ev)
	}
	defer func() { s.engine.Events = nil }()
	planned, diags := s.engine.Plan(ctx, s.cfg, opts)
	progress.Done("")
	if shown.Load() {
		v.say("")
	}
	return planned, diags
}

func (e *env) diagnostics(s *session, diags hcl.Diagnostics) {
	if len(diags) > 0 {
		e.writeDiagnostics(diags, s.cfg.Sources)
	}
}

// writeDiagnostics prints diags; with -compact-warnings and no error
// among them, the warnings in their short form.
func (e *env) writeDiagnostics(diags hcl.Diagnostics, srcs map[string][]byte) {
	if e.compactWarnings && !diags.HasErrors() {
		ui.WriteCompactWarnings(e.stderr, diags, e.color)
		return
	}
	ui.WriteDiagnostics(e.stderr, diags, srcs, e.color)
}

func (e *env) plan(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("plan", &c)
	e.lockFlag(fs, &c)
	e.warningsFlag(fs)
	detailed := fs.Bool("detailed-exitcode", false, "exit 2 when the plan has changes")
	destroy := fs.Bool("destroy", false, "plan to destroy everything")
	out := fs.String("out", "", "write the plan to FILE for up FILE to apply")
	pa := e.planFlags(fs)
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	opts, ok := e.options(pa, &c, *destroy)
	if !ok {
		return 1
	}
	v := e.newView(pa.json)
	s, ok := e.openView(ctx, &c, "plan", v)
	if !ok {
		return 1
	}
	defer s.close()
	var digest string
	if *out != "" {
		var err error
		if digest, _, err = stateDigest(ctx, s); err != nil {
			return v.fail(s, err)
		}
	}
	made := time.Now()
	opts.PlanTime = made
	planned, diags := v.planShowing(ctx, s, opts)
	diags = append(diags, narrowWarnings(opts)...)
	v.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	if err := v.plan(planned.Plan); err != nil {
		return v.fail(s, err)
	}
	if *out != "" {
		var text strings.Builder
		ui.RenderPlan(&text, planned.Plan, ui.Options{})
		if err := e.savePlan(ctx, s, &c, *out, digest, opts, planned, made, text.String()); err != nil {
			return v.fail(s, err)
		}
		if v.json == nil {
			fmt.Fprintf(e.stdout, "\nSaved the plan to: %s\n\nTo perform exactly these actions, run the following command to apply:\n    tether up %s\n", *out, shellQuote(*out))
		}
	}
	if *detailed && planned.Plan.HasChanges() {
		return 2
	}
	return 0
}

func (e *env) up(ctx context.Context, args []string, destroy bool) int {
	var c common
	name := "up"
	if destroy {
		name = "destroy"
	}
	fs := e.flags(name, &c)
	e.lockFlag(fs, &c)
	e.warningsFlag(fs)
	c.destroying = destroy
	yes := fs.Bool("yes", false, "apply without asking")
	fs.BoolVar(yes, "auto-approve", false, "same as --yes")
	if !destroy {
		// up -destroy is destroy, as terraform apply -destroy is.
		fs.BoolVar(&c.destroying, "destroy", false, "destroy everything recorded")
	}
	pa := e.planFlags(fs)
	pos, code := e.parseCommonArgs(fs, &c, args)
	if code >= 0 {
		return code
	}
	if c.destroying && !destroy {
		if len(pos) > 0 {
			return e.errorf("-destroy cannot be used when applying a saved plan: make the plan with tether plan -destroy -out FILE instead")
		}
		destroy, name = true, "destroy"
	}
	if destroy || len(pos) != 1 {
		if !e.noArgs(name, pos) {
			return 1
		}
		return e.upPlanned(ctx, &c, pa, *yes, destroy)
	}
	// up FILE applies a saved plan, which chose everything already.
	given := []string{}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "var", "var-file", "refresh", "target", "exclude", "replace", "refresh-only":
			given = append(given, "-"+f.Name)
		}
	})
	if len(given) > 0 {
		return e.errorf("%s cannot be used when applying a saved plan: the plan was made with its own options and variables, which it keeps. Make a new plan with them instead", strings.Join(given, ", "))
	}
	return e.upSaved(ctx, &c, pa.json, pos[0])
}

// upPlanned plans and applies; without --yes it asks first.
func (e *env) upPlanned(ctx context.Context, c *common, pa *planArgs, yes, destroy bool) int {
	opts, ok := e.options(pa, c, destroy)
	if !ok {
		return 1
	}
	if pa.json && !yes {
		return e.errorf("-json needs --yes (or --auto-approve): with machine-readable output nobody is asked to approve the plan")
	}
	v := e.newView(pa.json)
	op := "up"
	if destroy {
		op = "destroy"
	}
	s, ok := e.openView(ctx, c, op, v)
	if !ok {
		return 1
	}
	defer s.close()
	planned, diags := v.planShowing(ctx, s, opts)
	diags = append(diags, narrowWarnings(opts)...)
	v.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	if err := v.plan(planned.Plan); err != nil {
		return v.fail(s, err)
	}
	if !planned.Plan.HasChanges() {
		if planned.Plan.UpdatesState() {
			// Nothing to do but record what refresh found deleted.
			if _, diags := s.engine.Apply(ctx, planned); diags.HasErrors() {
				v.diagnostics(s, diags)
				return 1
			}
		}
		return 0
	}
	if !yes {
		if err := e.confirm(destroy, c.input); err != nil {
			return e.errorf("%v", err)
		}
	}
	return e.apply(ctx, s, v, planned, opts, !yes, true)
}

// upSaved applies a saved plan, after checking that state, the
// configuration and what planning now would do are what they were.
func (e *env) upSaved(ctx context.Context, c *common, asJSON bool, path string) int {
	f, ok := e.loadSavedPlan(ctx, c, path)
	if !ok {
		return 1
	}
	c.destroying = f.Options.Destroy
	v := e.newView(asJSON)
	s, ok := e.openView(ctx, c, "up", v)
	if !ok {
		return 1
	}
	defer s.close()
	digest, _, err := stateDigest(ctx, s)
	if err != nil {
		return v.fail(s, err)
	}
	if d := checkSaved(f, digest, planfile.ConfigDigests(s.engine.Keys, s.cfg.Sources)); d != nil {
		v.diagnostics(s, hcl.Diagnostics{d})
		return 1
	}
	opts := engine.PlanOptions{Destroy: f.Options.Destroy, SkipRefresh: f.Options.SkipRefresh, RefreshOnly: f.Options.RefreshOnly,
		Targets: f.Options.Targets, Excludes: f.Options.Excludes, Replace: f.Options.Replace, PlanTime: f.Created}
	planned, diags := s.engine.Plan(ctx, s.cfg, opts)
	if diags.HasErrors() {
		v.diagnostics(s, diags)
		return 1
	}
	doc, err := e.planJSON(ctx, s, planned, f.Created)
	if err != nil {
		return v.fail(s, err)
	}
	if pd, err := planDigest(s.engine.Keys, doc); err != nil || pd != f.Plan {
		v.diagnostics(s, hcl.Diagnostics{planMoved()})
		return 1
	}
	v.diagnostics(s, diags)
	if !planned.Plan.HasChanges() && !planned.Plan.UpdatesState() {
		fmt.Fprintln(e.stdout, "The saved plan has no changes to apply.")
		return 0
	}
	return e.apply(ctx, s, v, planned, opts, false, false)
}

// apply carries out an approved plan. With rounds, what was deferred is
// planned and applied in the same run; ask says whether a round that
// destroys or replaces must be approved again.
func (e *env) apply(ctx context.Context, s *session, v *view, planned *engine.Planned, opts engine.PlanOptions, ask, rounds bool) int {
	destroy := opts.Destroy
	progress := v.progress()
	s.engine.Events = progress.Event
	res, diags := s.engine.Apply(ctx, planned)
	// What could not be planned because count, for_each or a dynamic
	// block waited on values known only after apply is planned and
	// applied now, in the same run; each round must make progress.
	for round := 1; rounds && !diags.HasErrors() && len(planned.Plan.Deferred) > 0; round++ {
		waiting := planned.Plan.Deferred
		progress.Done("")
		v.round(round + 1)
		// Every round is part of the one plan the user approved, so
		// plantimestamp() is that plan's time in all of them.
		next, d := v.planShowing(ctx, s, engine.PlanOptions{SkipRefresh: opts.SkipRefresh, Targets: opts.Targets, Excludes: opts.Excludes, PlanTime: planned.Plan.Timestamp})
		diags = append(diags, d...)
		if d.HasErrors() {
			break
		}
		if err := v.plan(next.Plan); err != nil {
			return v.fail(s, err)
		}
		if stuck(waiting, next.Plan) {
			diags = append(diags, stuckDiag(next.Plan))
			break
		}
		if ask && destroysAny(next.Plan) {
			// The first plan listed this round's work only as deferred:
			// what it destroys or replaces was never approved.
			if err := e.confirmRound(); err != nil {
				progress.Done("")
				v.diagnostics(s, diags)
				return e.errorf("%v", err)
			}
		}
		progress = v.progress()
		s.engine.Events = progress.Event
		more, d := s.engine.Apply(ctx, next)
		diags = append(diags, d...)
		if more != nil {
			res.Imported += more.Imported
			res.Added += more.Added
			res.Changed += more.Changed
			res.Destroyed += more.Destroyed
			res.Outputs = more.Outputs
		}
		planned = next
	}
	if diags.HasErrors() {
		progress.Done("")
		v.diagnostics(s, diags)
		return 1
	}
	if len(opts.Targets) > 0 || len(opts.Excludes) > 0 {
		diags = append(diags, targetedApplyWarning(opts))
	}
	summary := ""
	if res != nil {
		if destroy {
			summary = ui.DestroySummary(res.Destroyed)
		} else {
			summary = ui.ImportSummary(res.Imported, res.Added, res.Changed, res.Destroyed)
		}
	}
	if v.json != nil {
		progress.Done("")
		v.diagnostics(s, diags)
		v.json.Applied(destroy, res.Imported, res.Added, res.Changed, res.Destroyed, res.Outputs)
		return 0
	}
	progress.Done(summary)
	v.diagnostics(s, diags)
	if !rounds && len(planned.Plan.Deferred) > 0 {
		fmt.Fprintf(e.stdout, "\n%d deferred part(s) of the configuration were not applied: a saved plan applies only what it lists. Run tether plan again to plan them.\n", len(planned.Plan.Deferred))
	}
	if !destroy && len(res.Outputs) > 0 {
		fmt.Fprintln(e.stdout, "\nOutputs:")
		fmt.Fprintln(e.stdout)
		for _, name := range sortedKeys(res.Outputs) {
			fmt.Fprintf(e.stdout, "%s = %s\n", name, ui.FormatValue(res.Outputs[name], 0))
		}
	}
	return 0
}

// confirm asks on a terminal; anywhere else it refuses, so that a script
// never applies a plan nobody saw.
func (e *env) confirm(destroy, input bool) error {
	if !input {
		return errors.New("refusing to apply: --input=false forbids asking for confirmation. Run again with --yes to apply without asking")
	}
	if !e.stdinTTY {
		return errors.New("refusing to apply: stdin is not a terminal, so nobody can confirm the plan. Run again with --yes to apply without asking")
	}
	what := "perform these actions"
	if destroy {
		what = "destroy all resources"
	}
	if !e.answeredYes(fmt.Sprintf("\nDo you want to %s?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ", what)) {
		return errors.New("cancelled: the answer was not 'yes'; nothing was changed")
	}
	return nil
}

// answeredYes prints prompt and reports whether the line read back is
// "yes", the only answer Terraform's prompts take.
// askVariable asks for an input variable's value as Terraform does: the
// query, the description indented, then "Enter a value:". It reads one
// line, and no further: a later question reads the next.
func (e *env) askVariable(query, description string) (string, bool) {
	var b strings.Builder
	b.WriteString(query + "\n")
	if description != "" {
		for _, line := range strings.Split(strings.TrimRight(description, "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("  Enter a value: ")
	fmt.Fprint(e.stdout, b.String())
	var line []byte
	one := make([]byte, 1)
	for {
		n, err := e.stdin.Read(one)
		if n == 1 && one[0] != '\n' {
			line = append(line, one[0])
		}
		if n == 1 && one[0] == '\n' {
			break
		}
		if err != nil {
			if len(line) == 0 {
				return "", false
			}
			break
		}
	}
	fmt.Fprintln(e.stdout)
	return strings.TrimRight(string(line), "\r"), true
}

// inputAllowed reports whether TF_INPUT lets Tether ask, as Terraform
// reads it: a false value (0, false) forbids it.
func inputAllowed(environ []string) bool {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "TF_INPUT="); ok {
			if b, err := strconv.ParseBool(v); err == nil && !b {
				return false
			}
		}
	}
	return true
}

func (e *env) answeredYes(prompt string) bool {
	fmt.Fprint(e.stdout, prompt)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

// confirmRound asks again before a deferred round that destroys or
// replaces: the first plan could only list that round's work as deferred,
// so this is the first time it is shown.
func (e *env) confirmRound() error {
	if !e.stdinTTY {
		return errors.New("refusing to apply the deferred round: it destroys or replaces objects the approved plan did not show, and stdin is not a terminal, so nobody can confirm it. What was approved has been applied; run up again to review the rest, or with --yes to apply without asking")
	}
	if !e.answeredYes("\nThis round destroys or replaces objects that the plan you approved did not show.\nDo you want to perform these actions?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ") {
		return errors.New("cancelled: the answer was not 'yes'; what was approved before has been applied, nothing of this round was")
	}
	return nil
}

// stuck reports whether a round of deferred planning cannot make progress:
// the same things are still deferred and nothing else would change, so
// applying again would learn nothing new.
func stuck(before []*plan.DeferredChange, next *plan.Plan) bool {
	if len(next.Deferred) == 0 {
		return false
	}
	for _, c := range next.Changes {
		if c.Action != plan.NoOp {
			return false
		}
	}
	return len(next.Deferred) >= len(before)
}

func stuckDiag(p *plan.Plan) *hcl.Diagnostic {
	var parts []string
	for _, d := range p.Deferred {
		parts = append(parts, fmt.Sprintf("%s waits for %s", d.Addr, d.WaitingOn))
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Deferred changes cannot be resolved",
		Detail: "After applying everything else, these still depend on values that are not known until they themselves are applied: " +
			strings.Join(parts, "; ") + ". Make count, for_each or the dynamic block's collection depend on values that exist before these resources do.",
	}
}

// refresh is Terraform's refresh: a refresh-only plan applied without
// asking, recording what reading every object back finds and changing
// nothing else. Terraform keeps it for pipelines that call it; up
// -refresh-only shows the changes first.
func (e *env) refresh(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("refresh", &c)
	e.lockFlag(fs, &c)
	e.warningsFlag(fs)
	pa := newPlanArgs()
	pa.refreshOnly = true
	fs.Var(pa.targets, "target", "refresh only this resource or module and what it depends on (repeatable)")
	fs.Var(pa.excludes, "exclude", "refresh all but this resource or module and what depends on it (repeatable)")
	pos, code := e.parseCommonArgs(fs, &c, args)
	if code >= 0 {
		return code
	}
	if !e.noArgs("refresh", pos) {
		return 1
	}
	return e.upPlanned(ctx, &c, pa, true, false)
}

// firstLocalState reports whether this command will most likely create
// the state file: the default workspace of the local backend (no backend
// recorded in the state folder) in the usual state folder, whose file does
// not exist yet. A wrong guess costs only the building of a file's content.
func firstLocalState(dir, workspace string) bool {
	if dir != stateDir || (workspace != "" && workspace != backend.DefaultWorkspace) {
		return false
	}
	if recorded, err := backend.ReadSettings(dir); recorded != nil || err != nil {
		return false
	}
	_, err := os.Lstat(statePath())
	return errors.Is(err, fs.ErrNotExist)
}
