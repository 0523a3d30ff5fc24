package jsonplan

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
)

// Plan is Terraform's JSON plan representation with the fields
// terraform-json has no place for.
type Plan struct {
	*tfjson.Plan
	// Configuration takes the place of tfjson.Plan's Config, which
	// cannot hold all that Terraform writes there.
	Configuration *Configuration `json:"configuration,omitempty"`
	Applyable     bool           `json:"applyable"`
	Errored       bool           `json:"errored"`
}

// Prior is what a plan was made from: state's objects and outputs, and the
// root module's variables.
type Prior struct {
	Objects   []Object
	Outputs   []Output
	Variables map[string]cty.Value // marked
}

// FromPlan builds the JSON plan representation of p.
func FromPlan(p *plan.Plan, prior Prior, made time.Time) (*Plan, error) {
	out := &tfjson.Plan{
		FormatVersion: PlanFormatVersion, TerraformVersion: TerraformVersion,
		Timestamp: made.UTC().Format(time.RFC3339),
	}
	if len(prior.Variables) > 0 {
		out.Variables = map[string]*tfjson.PlanVariable{}
		for name, v := range prior.Variables {
			j, err := jsonValue(unmark(v), true)
			if err != nil {
				return nil, fmt.Errorf("variable %s: %w", name, err)
			}
			out.Variables[name] = &tfjson.PlanVariable{Value: j}
		}
	}
	var err error
	if out.ResourceDrift, err = resourceChanges(p.Drift, false); err != nil {
		return nil, err
	}
	if out.ResourceChanges, err = resourceChanges(p.Changes, true); err != nil {
		return nil, err
	}
	for _, d := range p.Deferred {
		out.DeferredChanges = append(out.DeferredChanges, &tfjson.DeferredResourceChange{
			Reason:         d.Reason(),
			ResourceChange: &tfjson.ResourceChange{Address: d.Addr, Change: &tfjson.Change{Actions: tfjson.Actions{tfjson.ActionCreate}}},
		})
	}
	if len(p.Outputs) > 0 {
		out.OutputChanges = map[string]*tfjson.Change{}
	}
	var planned []Object
	var plannedOutputs []Output
	for _, c := range p.Changes {
		if c.Action == plan.Delete || c.Action == plan.Forget {
			continue
		}
		planned = append(planned, Object{Addr: c.Addr, Data: c.Mode == plan.Data, Type: c.Type, Provider: c.Provider, Value: c.After})
	}
	for _, o := range p.Outputs {
		ch, err := change(o.Action, mark(o.Before, o.Sensitive), mark(o.After, o.Sensitive), false)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", o.Name, err)
		}
		out.OutputChanges[o.Name] = ch
		if o.Action != plan.Delete {
			v := o.After
			if u := unmark(v); u != cty.NilVal && u.IsNull() {
				// A saved plan keeps no type for a null: Terraform shows
				// the type of a null output as dynamic.
				v = cty.NullVal(cty.DynamicPseudoType)
			}
			plannedOutputs = append(plannedOutputs, Output{Name: o.Name, Value: v, Sensitive: o.Sensitive})
		}
	}
	if out.PlannedValues, err = stateValues(planned, plannedOutputs); err != nil {
		return nil, err
	}
	// Resources planned at an older schema version keep theirs.
	versions := map[string]uint64{}
	for _, o := range prior.Objects {
		versions[o.Addr] = o.SchemaVersion
	}
	setVersions(out.PlannedValues.RootModule, versions)
	if objects := refreshed(p, prior.Objects); len(objects) > 0 || len(prior.Outputs) > 0 {
		if out.PriorState, err = State(objects, prior.Outputs); err != nil {
			return nil, err
		}
	}
	if out.Checks, err = Checks(p.Checks); err != nil {
		return nil, err
	}
	complete := len(p.Deferred) == 0 && !p.Targeted
	out.Complete = &complete
	return &Plan{Plan: out, Applyable: p.HasChanges() || p.UpdatesState()}, nil
}

// refreshed is state as the plan found it, Terraform's prior_state: the
// recorded objects, with each data source's result read during the plan
// in place of the recorded one, and without the results the plan forgets
// or reads again during apply.
func refreshed(p *plan.Plan, recorded []Object) []Object {
	replaced := map[string]bool{}
	var out []Object
	for _, d := range p.Data {
		replaced[d.Addr] = true
		if d.Action != plan.Delete {
			out = append(out, Object{Addr: d.Addr, Data: true, Type: d.Type, Provider: d.Provider, Value: d.After})
		}
	}
	for _, c := range p.Changes {
		if c.Mode == plan.Data && c.Action == plan.Read {
			replaced[c.Addr] = true
		}
	}
	for _, o := range recorded {
		if !o.Data || !replaced[o.Addr] {
			out = append(out, o)
		}
	}
	return out
}

func setVersions(m *tfjson.StateModule, versions map[string]uint64) {
	for _, r := range m.Resources {
		r.SchemaVersion = versions[r.Address]
	}
	for _, c := range m.ChildModules {
		setVersions(c, versions)
	}
}

func mark(v cty.Value, sensitive bool) cty.Value {
	if sensitive && v != cty.NilVal {
		return v.Mark(marks.Sensitive)
	}
	return v
}

func resourceChanges(changes []*plan.ResourceChange, skipDataNoOp bool) ([]*tfjson.ResourceChange, error) {
	var out []*tfjson.ResourceChange
	for _, c := range changes {
		if skipDataNoOp && c.Mode == plan.Data && c.Action == plan.NoOp {
			continue // read during the plan: it is in the prior state
		}
		id, err := identify(c.Addr)
		if err != nil {
			return nil, err
		}
		ch, err := change(c.Action, c.Before, c.After, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Addr, err)
		}
		for _, p := range c.RequiresReplace {
			ch.ReplacePaths = append(ch.ReplacePaths, pathSteps(p))
		}
		if c.Importing != "" {
			ch.Importing = &tfjson.Importing{ID: c.Importing}
		}
		rc := &tfjson.ResourceChange{
			Address: c.Addr, Mode: id.mode, Type: c.Type, Name: id.name, Index: id.index,
			ProviderName: providerName(c.Provider), Change: ch, ActionReason: reason(c),
		}
		if len(id.module) > 0 {
			rc.ModuleAddress = strings.TrimSuffix(c.Addr, "."+lastResource(c.Addr, id))
		}
		out = append(out, rc)
	}
	return out, nil
}

// lastResource is the resource part of an instance address.
func lastResource(a string, id identity) string {
	i := strings.LastIndex(a, "."+id.name)
	j := strings.LastIndex(a[:i], ".")
	if id.mode == tfjson.DataResourceMode {
		j = strings.LastIndex(a[:j], ".")
	}
	return a[j+1:]
}

func change(action plan.Action, before, after cty.Value, resource bool) (*tfjson.Change, error) {
	ch := &tfjson.Change{Actions: actions(action)}
	var err error
	if ch.Before, err = jsonValue(unmark(before), true); err != nil {
		return nil, err
	}
	if ch.After, err = jsonValue(unmark(after), false); err != nil {
		return nil, err
	}
	if u := unmark(after); u != cty.NilVal && u.IsKnown() && u.IsNull() {
		// A known null is written, as Terraform writes it (a deletion's
		// after, a null output's); only a wholly unknown one is left out.
		ch.After = json.RawMessage("null")
	}
	ch.AfterUnknown = unknownShape(after)
	if resource && unmark(after).IsWhollyKnown() {
		// As Terraform: a wholly known object is an empty object.
		ch.AfterUnknown = map[string]any{}
	}
	ch.BeforeSensitive = sensitiveShape(before)
	ch.AfterSensitive = sensitiveShape(after)
	return ch, nil
}

func actions(a plan.Action) tfjson.Actions {
	switch a {
	case plan.Create:
		return tfjson.Actions{tfjson.ActionCreate}
	case plan.Read:
		return tfjson.Actions{tfjson.ActionRead}
	case plan.Update:
		return tfjson.Actions{tfjson.ActionUpdate}
	case plan.DeleteThenCreate:
		return tfjson.Actions{tfjson.ActionDelete, tfjson.ActionCreate}
	case plan.CreateThenDelete:
		return tfjson.Actions{tfjson.ActionCreate, tfjson.ActionDelete}
	case plan.Delete:
		return tfjson.Actions{tfjson.ActionDelete}
	case plan.Forget:
		return tfjson.Actions{tfjson.ActionForget}
	}
	return tfjson.Actions{tfjson.ActionNoop}
}

func reason(c *plan.ResourceChange) tfjson.ActionReason {
	switch {
	case c.Tainted:
		return tfjson.ActionReasonReplaceBecauseTainted
	case c.Requested:
		return tfjson.ActionReasonReplaceByRequest
	case c.Action.IsReplace() && len(c.RequiresReplace) > 0:
		return tfjson.ActionReasonReplaceBecauseCannotUpdate
	case c.Action.IsReplace():
		return tfjson.ActionReasonReplaceByTriggers
	case c.Action == plan.Delete && c.Reason == plan.ReasonEnabledFalse:
		return "delete_because_enabled_false" // OpenTofu's
	case c.Action == plan.Delete && strings.Contains(c.Reason, "key"):
		if strings.HasSuffix(c.Addr, "]") && !strings.HasSuffix(c.Addr, "\"]") {
			return tfjson.ActionReasonDeleteBecauseCountIndex
		}
		return tfjson.ActionReasonDeleteBecauseEachKey
	case c.Action == plan.Delete && c.Reason != "":
		return tfjson.ActionReasonDeleteBecauseNoResourceConfig
	case c.Action == plan.Read && c.Reason == plan.ReasonCheck:
		return tfjson.ActionReasonReadBecauseCheckNested
	case c.Action == plan.Read && c.Reason == plan.ReasonConfigUnknown:
		return tfjson.ActionReasonReadBecauseConfigUnknown
	case c.Action == plan.Read:
		return tfjson.ActionReasonReadBecauseDependencyPending
	}
	return tfjson.ActionReasonNone
}

// pathSteps is an attribute path as the JSON plan writes it: names and
// keys in order.
func pathSteps(p cty.Path) []any {
	out := []any{}
	for _, s := range p {
		switch s := s.(type) {
		case cty.GetAttrStep:
			out = append(out, s.Name)
		case cty.IndexStep:
			if s.Key.Type() == cty.Number {
				i, _ := s.Key.AsBigFloat().Int64()
				out = append(out, i)
			} else if s.Key.Type() == cty.String {
				out = append(out, s.Key.AsString())
			}
		}
	}
	return out
}
