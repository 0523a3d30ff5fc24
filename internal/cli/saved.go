package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/jsonplan"
	"github.com/tetherhq/tether/internal/planfile"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
)

// planArgs are the options of plan and up that choose what is planned.
type planArgs struct {
	targets, excludes, replace listArg
	refreshOnly                bool
	json                       bool
}

type listArg struct{ list *[]string }

func (l listArg) String() string { return "" }
func (l listArg) Set(s string) error {
	if _, err := addr.ParseInstance(s); err != nil && !addr.IsModule(s) {
		return fmt.Errorf("%q is not a resource or module address, such as tether_file.a, tether_file.b[0] or module.net", s)
	}
	*l.list = append(*l.list, s)
	return nil
}

func (e *env) planFlags(fs *flag.FlagSet) *planArgs {
	a := newPlanArgs()
	fs.Var(a.targets, "target", "plan only this resource or module and what it depends on (repeatable)")
	fs.Var(a.excludes, "exclude", "plan all but this resource or module and what depends on it (repeatable)")
	fs.Var(a.replace, "replace", "replace this resource instance even if nothing requires it (repeatable)")
	fs.BoolVar(&a.refreshOnly, "refresh-only", false, "record what refresh finds, change nothing else")
	fs.BoolVar(&a.json, "json", false, "print machine-readable JSON lines")
	return a
}

// options checks the plan options against each other and makes the
// engine's. It prints the error and returns false when they conflict.
func (e *env) options(a *planArgs, c *common, destroy bool) (engine.PlanOptions, bool) {
	o := engine.PlanOptions{
		Destroy: destroy, SkipRefresh: !c.refresh, RefreshOnly: a.refreshOnly,
		Targets: *a.targets.list, Excludes: *a.excludes.list, Replace: *a.replace.list,
	}
	switch {
	case len(o.Targets) > 0 && len(o.Excludes) > 0:
		// OpenTofu's rule: the two cannot be combined, whatever the
		// addresses.
		e.errorf("-target and -exclude cannot be used together: a plan either keeps only what -target names or leaves out what -exclude names")
		return o, false
	case a.refreshOnly && destroy:
		e.errorf("-refresh-only and -destroy cannot be used together: a refresh-only plan changes nothing")
		return o, false
	case a.refreshOnly && !c.refresh:
		e.errorf("-refresh-only and -refresh=false cannot be used together: a refresh-only plan is made of what refresh finds")
		return o, false
	case a.refreshOnly && len(o.Replace) > 0:
		e.errorf("-refresh-only and -replace cannot be used together: a refresh-only plan replaces nothing")
		return o, false
	case destroy && len(o.Replace) > 0:
		e.errorf("-replace cannot be used with destroy: everything selected is destroyed")
		return o, false
	}
	return o, true
}

func (a *planArgs) given() bool {
	return a.refreshOnly || len(*a.targets.list) > 0 || len(*a.excludes.list) > 0 || len(*a.replace.list) > 0
}

func newPlanArgs() *planArgs {
	return &planArgs{targets: listArg{new([]string)}, excludes: listArg{new([]string)}, replace: listArg{new([]string)}}
}

// savePlan writes a saved plan: what it was made from, sealed.
func (e *env) savePlan(ctx context.Context, s *session, c *common, path string, digest string, opts engine.PlanOptions, planned *engine.Planned, made time.Time, text string) error {
	doc, err := e.planJSON(ctx, s, planned, made)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	pd, err := planDigest(s.engine.Keys, doc)
	if err != nil {
		return err
	}
	f := &planfile.File{
		Created: made, State: digest, Config: planfile.ConfigDigests(s.engine.Keys, s.cfg.Sources), Plan: pd,
		Options: planfile.Options{Destroy: opts.Destroy, SkipRefresh: opts.SkipRefresh, RefreshOnly: opts.RefreshOnly, Targets: opts.Targets, Excludes: opts.Excludes, Replace: opts.Replace},
		JSON:    raw, Text: text,
	}
	for _, v := range *c.vars.list {
		f.Vars = append(f.Vars, planfile.Var{Name: v.name, Value: v.value, File: v.file})
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_VAR_") {
			f.Environ = append(f.Environ, kv)
		}
	}
	return planfile.Write(path, f, s.engine.Keys, Version)
}

// planDigest is the keyed digest of what a plan would do, leaving out
// when it was made and what it was made from (those are checked apart).
func planDigest(keys *secrets.Keys, doc *jsonplan.Plan) (string, error) {
	raw, err := jsonplan.Canonical(struct {
		Drift    any `json:"resource_drift"`
		Changes  any `json:"resource_changes"`
		Outputs  any `json:"output_changes"`
		Deferred any `json:"deferred_changes"`
		Planned  any `json:"planned_values"`
	}{doc.ResourceDrift, doc.ResourceChanges, doc.OutputChanges, doc.DeferredChanges, doc.PlannedValues})
	if err != nil {
		return "", err
	}
	return keys.Hash(raw), nil
}

// stateDigest loads state and digests it.
func stateDigest(ctx context.Context, s *session) (string, *state.Snapshot, error) {
	snap, err := s.store.Load(ctx)
	if err != nil {
		return "", nil, err
	}
	d, err := planfile.StateDigest(s.engine.Keys, snap)
	return d, snap, err
}

// loadSavedPlan reads the plan file an up was given, in the
// configuration folder, and sets the variables it was made with.
func (e *env) loadSavedPlan(ctx context.Context, c *common, path string) (*planfile.File, bool) {
	if err := c.chdir(); err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	c.dir = "."
	keys, ok := e.backendKeys(ctx)
	if !ok {
		return nil, false
	}
	f, err := planfile.Read(path, keys)
	if err != nil {
		e.errorf("cannot apply the saved plan: %v", err)
		return nil, false
	}
	list := make([]varArg, 0, len(f.Vars))
	for _, v := range f.Vars {
		list = append(list, varArg{name: v.Name, value: v.Value, file: v.File})
	}
	*c.vars.list = list
	environ := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_VAR_") {
			environ = append(environ, kv)
		}
	}
	c.environ = append(environ, f.Environ...)
	return f, true
}

// checkSaved refuses a saved plan when state, the configuration or what
// a plan made now would do differ from when it was made.
func checkSaved(f *planfile.File, stateNow string, configNow map[string]string) *hcl.Diagnostic {
	if f.State != stateNow {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Saved plan is stale",
			Detail: "State changed after the plan was made (by an up, import, taint, untaint, state rm or state mv), so the plan no longer " +
				"describes what applying it would do. Nothing was changed. Make a new plan with tether plan -out and apply that.",
		}
	}
	if changed := planfile.ConfigChanges(f.Config, configNow); len(changed) > 0 {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Saved plan is stale",
			Detail: fmt.Sprintf("The configuration changed after the plan was made (%s), so the plan no longer describes it. Nothing was changed. "+
				"Make a new plan with tether plan -out and apply that.", strings.Join(changed, ", ")),
		}
	}
	return nil
}

func planMoved() *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Saved plan is stale",
		Detail: "State and configuration are as they were, but planning again now gives a different plan: objects changed outside " +
			"Tether since (refresh read them differently), or a provider plans differently. Nothing was changed. Make a new plan " +
			"with tether plan -out, review it and apply that.",
	}
}
