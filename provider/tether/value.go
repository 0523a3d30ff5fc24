package tether

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/ctysame"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

type valueResource struct{}

func (valueResource) validate(config cty.Value) hcl.Diagnostics {
	dv := attr(config, "delay_ms")
	if n, ok, isInt := knownInt(dv); ok && (!isInt || n < 0 || n > maxDelayMS) {
		return hcl.Diagnostics{attrError("delay_ms", fmt.Sprintf(
			"The delay must be a whole number of milliseconds from 0 to %d; got %s.", maxDelayMS, dv.AsBigFloat().Text('f', -1)))}
	}
	return nil
}

// valueTypes gives tether_value's objects of one type one type (see
// valueObject).
var valueTypes ctysame.Types

// valueObject is a tether_value object: made with the type of one made
// before, since go-cty's ObjectVal makes its type anew (three maps and
// each name normalised twice) for each of a large apply's objects.
func valueObject(input, output, delay, id cty.Value) cty.Value {
	return valueTypes.ObjectVal(valueNames, []cty.Value{input, output, delay, id})
}

// valueNames are tether_value's attributes, in valueObject's order.
var valueNames = []string{"input", "output", "delay_ms", "id"}

func (r valueResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg := req.Config
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	input := attr(cfg, "input")
	// Passing a known input straight through is the point of the resource:
	// whatever depends on output can be planned in full.
	output := cty.DynamicVal
	if input.IsWhollyKnown() {
		output = input
	}
	id := cty.UnknownVal(cty.String)
	delay := attr(cfg, "delay_ms")
	if prior := req.PriorState; !prior.IsNull() {
		id = attr(prior, "id")
		if ctysame.RawEquals(input, attr(prior, "input")) && ctysame.RawEquals(output, attr(prior, "output")) && ctysame.RawEquals(delay, attr(prior, "delay_ms")) {
			// Nothing changes: the prior object is the plan, without a
			// copy of it (most of a large plan is such objects).
			return provider.PlanResponse{PlannedState: prior}
		}
	}
	return provider.PlanResponse{PlannedState: valueObject(input, output, delay, id)}
}

func (r valueResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned := req.PlannedState
	if planned.IsNull() {
		return provider.ApplyResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	failed := req.PriorState
	if failed.IsNull() {
		failed = cty.NullVal(planned.Type())
	}
	input := attr(planned, "input")
	if !input.IsWhollyKnown() {
		return provider.ApplyResponse{NewState: failed, Diagnostics: hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Incomplete planned tether_value",
			Detail:   "input must be wholly known when the value is stored.",
		}}}
	}
	delay := attr(planned, "delay_ms")
	if n, ok, isInt := knownInt(delay); ok && isInt && n > 0 {
		if err := sleep(ctx, time.Duration(n)*time.Millisecond); err != nil {
			return provider.ApplyResponse{NewState: failed, Diagnostics: opError("Interrupted while storing tether_value", "", err)}
		}
	}
	id := attr(planned, "id")
	if !id.IsKnown() || id.IsNull() {
		id = cty.StringVal(newID())
	}
	return provider.ApplyResponse{NewState: valueObject(input, input, delay, id)}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (valueResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (valueResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importUnsupported("tether_value")
}
