package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/secrets"
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
}

func (s *session) close() {
	s.pool.close()
	if s.unlock != nil {
		s.unlock.Unlock()
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
	pool, cfg, ok := e.load(ctx, c)
	if !ok {
		return nil, false
	}
	s := &session{cfg: cfg, pool: pool}
	dir := stateDirOf(ctx)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.errorf("cannot create state folder: %v", err)
		return nil, false
	}
	store, err := state.OpenSQLite(filepath.Join(dir, "state.db"))
	if err != nil {
		s.close()
		e.errorf("%v", err)
		return nil, false
	}
	s.store = store
	host, _ := os.Hostname()
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	unlock, err := lockState(ctx, store, state.LockInfo{Operation: op, Who: who + "@" + host, Host: host, PID: os.Getpid(), Created: time.Now()}, c.lockTimeout)
	if err != nil {
		s.close()
		e.errorf("%v", err)
		return nil, false
	}
	s.unlock = unlock
	keys, err := secrets.Load(dir)
	if err != nil {
		s.close()
		e.errorf("%v", err)
		return nil, false
	}
	s.engine = &engine.Engine{Providers: pool.factory(), Store: store, Parallelism: c.parallelism, Keys: keys}
	return s, true
}

func (e *env) diagnostics(s *session, diags hcl.Diagnostics) {
	if len(diags) > 0 {
		ui.WriteDiagnostics(e.stderr, diags, s.cfg.Sources, e.color)
	}
}

func (e *env) plan(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("plan", &c)
	detailed := fs.Bool("detailed-exitcode", false, "exit 2 when the plan has changes")
	destroy := fs.Bool("destroy", false, "plan to destroy everything")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	s, ok := e.open(ctx, &c, "plan")
	if !ok {
		return 1
	}
	defer s.close()
	planned, diags := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{Destroy: *destroy, SkipRefresh: !c.refresh})
	e.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	if err := ui.RenderPlan(e.stdout, planned.Plan, ui.Options{Color: e.color}); err != nil {
		return e.errorf("%v", err)
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
	c.destroying = destroy
	yes := fs.Bool("yes", false, "apply without asking")
	fs.BoolVar(yes, "auto-approve", false, "same as --yes")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	s, ok := e.open(ctx, &c, name)
	if !ok {
		return 1
	}
	defer s.close()
	planned, diags := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{Destroy: destroy, SkipRefresh: !c.refresh})
	e.diagnostics(s, diags)
	if diags.HasErrors() {
		return 1
	}
	if err := ui.RenderPlan(e.stdout, planned.Plan, ui.Options{Color: e.color}); err != nil {
		return e.errorf("%v", err)
	}
	if !planned.Plan.HasChanges() {
		if planned.Plan.UpdatesState() {
			// Nothing to do but record what refresh found deleted.
			if _, diags := s.engine.Apply(ctx, planned); diags.HasErrors() {
				e.diagnostics(s, diags)
				return 1
			}
		}
		return 0
	}
	if !*yes {
		if err := e.confirm(destroy, c.input); err != nil {
			return e.errorf("%v", err)
		}
	}
	progress := ui.NewProgress(e.stdout, e.tty)
	s.engine.Events = progress.Event
	res, diags := s.engine.Apply(ctx, planned)
	// What could not be planned because count, for_each or a dynamic
	// block waited on values known only after apply is planned and
	// applied now, in the same run; each round must make progress.
	for round := 1; !diags.HasErrors() && len(planned.Plan.Deferred) > 0; round++ {
		waiting := planned.Plan.Deferred
		progress.Done("")
		fmt.Fprintf(e.stdout, "\nPlanning what was deferred, now that its inputs are known (round %d)...\n\n", round+1)
		next, d := s.engine.Plan(ctx, s.cfg, engine.PlanOptions{SkipRefresh: !c.refresh})
		diags = append(diags, d...)
		if d.HasErrors() {
			break
		}
		if err := ui.RenderPlan(e.stdout, next.Plan, ui.Options{Color: e.color}); err != nil {
			return e.errorf("%v", err)
		}
		if stuck(waiting, next.Plan) {
			diags = append(diags, stuckDiag(next.Plan))
			break
		}
		progress = ui.NewProgress(e.stdout, e.tty)
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
	summary := ""
	if res != nil {
		if destroy {
			summary = ui.DestroySummary(res.Destroyed)
		} else {
			summary = ui.ImportSummary(res.Imported, res.Added, res.Changed, res.Destroyed)
		}
	}
	if diags.HasErrors() {
		progress.Done("")
		e.diagnostics(s, diags)
		return 1
	}
	progress.Done(summary)
	e.diagnostics(s, diags)
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
	fmt.Fprintf(e.stdout, "\nDo you want to %s?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ", what)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return errors.New("cancelled: the answer was not 'yes'; nothing was changed")
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
