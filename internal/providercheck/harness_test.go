package providercheck_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/provider/tether"
)

// recorder is a test that keeps what it is told instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// broken is the built-in provider with one answer spoiled.
type broken struct {
	provider.Provider
	plan  func(*provider.PlanResponse)
	apply func(*provider.ApplyResponse)
}

func (b broken) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	resp := b.Provider.PlanResourceChange(ctx, req)
	if b.plan != nil && !resp.PlannedState.IsNull() {
		b.plan(&resp)
	}
	return resp
}

func (b broken) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	resp := b.Provider.ApplyResourceChange(ctx, req)
	if b.apply != nil && !resp.NewState.IsNull() {
		b.apply(&resp)
	}
	return resp
}

func withAttr(obj cty.Value, name string, v cty.Value) cty.Value {
	m := obj.AsValueMap()
	m[name] = v
	return cty.ObjectVal(m)
}

// The harness fails a test whose provider breaks a promise the engine
// holds it to, as the engine refuses the plan or the result, and lets
// off a provider on the legacy type system, as the engine does.
func TestHarnessHoldsProvidersToTheirPromises(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    broken
		want string
	}{
		{"kept", broken{}, ""},
		{"plan changes a configured value", broken{plan: func(r *provider.PlanResponse) {
			r.PlannedState = withAttr(r.PlannedState, "content", cty.StringVal("other"))
		}}, "invalid plan:\n  .content: planned value does not match the configured value"},
		{"legacy plan changes a configured value", broken{plan: func(r *provider.PlanResponse) {
			r.PlannedState = withAttr(r.PlannedState, "content", cty.StringVal("other"))
			r.LegacyTypeSystem = true
		}, apply: func(r *provider.ApplyResponse) { r.LegacyTypeSystem = true }}, ""},
		{"result differs from the plan", broken{apply: func(r *provider.ApplyResponse) {
			r.NewState = withAttr(r.NewState, "sha256", cty.StringVal("0"))
		}}, "inconsistent result after apply:\n  .sha256: the result differs from the planned value"},
		{"result left unknown", broken{apply: func(r *provider.ApplyResponse) {
			r.NewState = withAttr(r.NewState, "id", cty.UnknownVal(cty.String))
		}}, "apply left unknown values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			tc.p.Provider = tether.New()
			h := providercheck.New(rec, tc.p, map[string]cty.Value{"runtime_dir": cty.StringVal(filepath.Join(t.TempDir(), "runtime"))})
			h.Up("tether_file", nil, map[string]cty.Value{
				"path":    cty.StringVal(filepath.Join(t.TempDir(), "f")),
				"content": cty.StringVal("x"),
			})
			got := strings.Join(rec.errors, "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("the harness reported %q, want %q", got, tc.want)
			}
		})
	}
}
