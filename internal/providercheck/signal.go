package providercheck

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// applyingPrefix marks a tether_value's input as asking SignalApplies for
// a signal: the rest of the input is the file to create.
const applyingPrefix = "applying:"

// SignalApplies is p, the built-in provider, telling a test when an apply
// is in its hands: applying a tether_value whose planned input is the
// string "applying:FILE", it creates FILE, then applies as p does. A
// scenario that must interrupt an apply under way waits for the file
// rather than for a while, which a busy machine could outlast; whatever
// carries the call (the protocol server, a plugin process) has delivered
// it by then, so a stop that follows reaches it.
//
// Set Harness.SignalsApplies on a harness whose provider is, or serves,
// such a provider.
func SignalApplies(p provider.Provider) provider.Provider {
	return signalling{p}
}

type signalling struct{ provider.Provider }

func (s signalling) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	if file, ok := signalFile(req); ok {
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			// The scenario waiting for the file would wait forever:
			// fail the apply, which it reports.
			return provider.ApplyResponse{
				NewState: cty.NullVal(req.PlannedState.Type()),
				Diagnostics: hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Cannot signal the apply",
					Detail:   err.Error(),
				}},
			}
		}
	}
	return s.Provider.ApplyResourceChange(ctx, req)
}

// signalFile is the file an apply asks to be created, if any.
func signalFile(req provider.ApplyRequest) (string, bool) {
	v := req.PlannedState
	if req.TypeName != "tether_value" || v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("input") {
		return "", false
	}
	in := v.GetAttr("input")
	if !in.IsKnown() || in.IsNull() || in.Type() != cty.String {
		return "", false
	}
	return strings.CutPrefix(in.AsString(), applyingPrefix)
}

// waitForSignal waits until file exists, which SignalApplies creates once
// the apply it asked for is in the provider's hands, and reports true; or
// until done is closed first, an apply that returned without reaching the
// provider, and reports false.
func waitForSignal(file string, done <-chan struct{}) bool {
	for {
		if _, err := os.Stat(file); err == nil {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}
