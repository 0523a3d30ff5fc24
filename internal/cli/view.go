package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/jsonplan"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/ui"
)

// view is where plan and up report: for people, or as Terraform's
// machine-readable JSON lines (-json).
type view struct {
	e    *env
	json *ui.JSONView
}

func (e *env) newView(asJSON bool) *view {
	v := &view{e: e}
	if asJSON {
		v.json = ui.NewJSONView(e.stdout)
		v.json.Version(Version, jsonplan.TerraformVersion)
	}
	return v
}

// openView opens a session, reporting the configuration's diagnostics
// through the view.
func (e *env) openView(ctx context.Context, c *common, op string, v *view) (*session, bool) {
	if v.json != nil {
		e.diagSink = v.json.Diagnostics
		defer func() { e.diagSink = nil }()
	}
	return e.open(ctx, c, op)
}

func (v *view) diagnostics(s *session, diags hcl.Diagnostics) {
	if v.json != nil {
		v.json.Diagnostics(diags, s.cfg.Sources)
		return
	}
	v.e.diagnostics(s, diags)
}

func (v *view) plan(p *plan.Plan) error {
	logPlan(p)
	if v.json != nil {
		v.json.Plan(p)
		return nil
	}
	return ui.RenderPlan(v.e.stdout, p, ui.Options{Color: v.e.color})
}

// say writes a line for people; the JSON view has no message for it.
func (v *view) say(text string) {
	if v.json == nil {
		fmt.Fprintln(v.e.stdout, text)
	}
}

// round says that a round of deferred planning starts.
func (v *view) round(n int) {
	if v.json != nil {
		v.json.Round(n)
		return
	}
	fmt.Fprintf(v.e.stdout, "\nPlanning what was deferred, now that its inputs are known (round %d)...\n\n", n)
}

func (v *view) fail(s *session, err error) int {
	v.diagnostics(s, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Error", Detail: err.Error()}})
	return 1
}

// progressSink reports an apply as it runs.
type progressSink interface {
	Event(plan.Event)
	Done(summary string)
}

func (v *view) progress() progressSink {
	if v.json != nil {
		return logged{jsonProgress{v.json, ui.NewHeartbeat(v.json.Heartbeat)}}
	}
	return logged{ui.NewProgress(v.e.stdout, v.e.tty)}
}

// logged writes each operation to the debug log: its address, action,
// outcome and duration, never a value.
type logged struct{ progressSink }

func (l logged) Event(ev plan.Event) {
	log := logging.Core()
	switch {
	case ev.Phase == plan.Failed:
		// The error is already scrubbed of the instance's secrets.
		log.Error("operation failed", "address", ev.Addr, "action", ev.Action.String(), "step", stepName(ev.Step), "elapsed", ev.Elapsed, "error", fmt.Sprint(ev.Err))
	case !log.IsDebug():
		// Most runs log nothing at debug level; a wide one would still
		// box every argument of two lines a resource for the logger to
		// drop.
	case ev.Phase == plan.Started:
		log.Debug("operation started", "address", ev.Addr, "action", ev.Action.String(), "step", stepName(ev.Step))
	case ev.Phase == plan.Succeeded:
		log.Debug("operation complete", "address", ev.Addr, "action", ev.Action.String(), "step", stepName(ev.Step), "elapsed", ev.Elapsed)
	}
	l.progressSink.Event(ev)
}

func stepName(a plan.Action) string {
	if a == plan.NoOp {
		return "whole"
	}
	return a.String()
}

// logPlan writes a plan's counts to the debug log.
func logPlan(p *plan.Plan) {
	add, change, destroy := p.Summary()
	logging.Core().Info("plan made", "add", add, "change", change, "destroy", destroy, "import", p.Imports(),
		"deferred", len(p.Deferred), "drift", len(p.Drift), "targeted", p.Targeted, "refresh_only", p.RefreshOnly)
}

type jsonProgress struct {
	*ui.JSONView
	heart *ui.Heartbeat
}

func (j jsonProgress) Event(e plan.Event) {
	j.heart.Event(e)
	j.JSONView.Event(e)
}

func (j jsonProgress) Done(string) {
	j.heart.Stop()
	j.JSONView.Flush()
}

// narrowWarnings are the warnings of a plan that -target or -exclude
// narrowed (OpenTofu gives -exclude -target's warning).
func narrowWarnings(o engine.PlanOptions) hcl.Diagnostics {
	held := "only the targeted resources and what they depend on"
	switch {
	case len(o.Excludes) > 0:
		held = "everything but the excluded resources and what depends on them"
	case len(o.Targets) == 0:
		return nil
	}
	flag := narrowFlag(o)
	return hcl.Diagnostics{{
		Severity: hcl.DiagWarning,
		Summary:  "Resource targeting is in effect",
		Detail: "This plan was made with " + flag + ", so it holds " + held + ": other changes " +
			"the configuration asks for are not in it.\n\n" + flag + " is for exceptional cases, such as recovering from a mistake; " +
			"it is not for routine use.",
	}}
}

// narrowFlag is the option that narrowed a plan.
func narrowFlag(o engine.PlanOptions) string {
	if len(o.Excludes) > 0 {
		return "-exclude"
	}
	return "-target"
}

func targetedApplyWarning(o engine.PlanOptions) *hcl.Diagnostic {
	left := "changes the configuration asks for outside the targets were not applied"
	if len(o.Excludes) > 0 {
		left = "the changes the configuration asks for of the excluded resources, and of what depends on them, were not applied"
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Applied changes may be incomplete",
		Detail: "The plan was made with " + narrowFlag(o) + ", so " + left + ", and " +
			"outputs may not be up to date. Run tether plan to see what is still pending.",
	}
}

// destroysAny reports whether a plan destroys or replaces anything.
func destroysAny(p *plan.Plan) bool {
	for _, c := range p.Changes {
		if c.Action == plan.Delete || c.Action.IsReplace() {
			return true
		}
	}
	return false
}

// shellQuote quotes a file name for a command line shown to copy.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
