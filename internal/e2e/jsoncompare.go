package e2e

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

func Changes(rcs []*tfjson.ResourceChange) []map[string]any {
	var out []map[string]any
	for _, rc := range rcs {
		c := rc.Change
		out = append(out, map[string]any{
			"address": rc.Address, "module_address": rc.ModuleAddress, "mode": rc.Mode, "type": rc.Type, "name": rc.Name,
			"index": rc.Index, "provider_name": rc.ProviderName, "action_reason": rc.ActionReason,
			"actions": c.Actions, "before": WithoutIDs(c.Before), "after": WithoutIDs(c.After), "after_unknown": c.AfterUnknown,
			"before_sensitive": c.BeforeSensitive, "after_sensitive": c.AfterSensitive, "replace_paths": c.ReplacePaths,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["address"].(string) < out[j]["address"].(string) })
	return out
}

// WithoutIDs drops the attributes whose values are random per run.
func WithoutIDs(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, e := range m {
		if k != "id" && k != "result" {
			out[k] = e
		}
	}
	return out
}

func CompareJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	var ga, gb any
	json.Unmarshal(ra, &ga)
	json.Unmarshal(rb, &gb)
	if !reflect.DeepEqual(ga, gb) {
		pa, _ := json.MarshalIndent(ga, "", " ")
		pb, _ := json.MarshalIndent(gb, "", " ")
		t.Errorf("%s differ\nterraform:\n%s\ntether:\n%s", what, pa, pb)
	}
}

// CoveredBy accepts tether marking more as sensitive than terraform: what
// is computed from a secret is secret in Tether (a provider's output of a
// sensitive input), which Terraform does not track. Where tether's
// sensitivity covers terraform's, tether's entry takes terraform's, so
// that the comparison that follows checks everything else.
func CoveredBy(t *testing.T, tf, tt []map[string]any) []map[string]any {
	t.Helper()
	if len(tf) != len(tt) {
		return tt
	}
	for i := range tt {
		for _, k := range []string{"sensitive_values", "before_sensitive", "after_sensitive"} {
			if _, ok := tf[i][k]; !ok {
				continue
			}
			a, b := Generic(tf[i][k]), Generic(tt[i][k])
			if covers(a, b) {
				tt[i][k] = tf[i][k]
			}
		}
	}
	return tt
}

func Generic(v any) any {
	raw, _ := json.Marshal(v)
	var g any
	json.Unmarshal(raw, &g)
	return g
}

// covers reports whether sensitivity b marks everything a does.
func covers(a, b any) bool {
	switch a := a.(type) {
	case bool:
		return !a || b == true
	case map[string]any:
		if b == true {
			return true
		}
		bm, ok := b.(map[string]any)
		if !ok {
			return len(a) == 0 && (b == false || b == nil)
		}
		for k, v := range a {
			if !covers(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		if b == true {
			return true
		}
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return false
		}
		for i := range a {
			if !covers(a[i], bl[i]) {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return false
}

func ConfigurationOf(t *testing.T, planJSON string) any {
	t.Helper()
	var doc struct {
		Configuration json.RawMessage `json:"configuration"`
	}
	if err := json.Unmarshal([]byte(planJSON), &doc); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	return json.RawMessage(doc.Configuration)
}
