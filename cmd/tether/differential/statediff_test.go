package differential

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/tfstate"
)

// compareState compares what every command that shows state shows on the
// two sides after an apply: `state list` (in order), `show -json` and
// `state pull`, data sources' results included.
func compareState(t *testing.T, label string, tf, tt e2e.Side) {
	t.Helper()
	compareStateList(t, label, tf, tt)
	a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run("show", "-json") })
	e2e.MustSucceed(t, label+": show -json", a, b)
	compareStates(t, a.Stdout, b.Stdout)
	a, b = e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run("state", "pull") })
	e2e.MustSucceed(t, label+": state pull", a, b)
	e2e.CompareJSON(t, label+": state pull resources", pulledResources(t, "terraform", a.Stdout), pulledResources(t, "tether", b.Stdout))
}

// compareStateList compares the addresses state records.
func compareStateList(t *testing.T, label string, tf, tt e2e.Side) {
	t.Helper()
	a, b := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run("state", "list") })
	e2e.MustSucceed(t, label+": state list", a, b)
	if strings.TrimSpace(a.Stdout) != strings.TrimSpace(b.Stdout) {
		t.Errorf("%s: state list differs\nterraform:\n%s\ntether:\n%s", label, a.Stdout, b.Stdout)
	}
}

// pulledResources keeps what both tools must write alike in a state file:
// every resource and data source, in order, with its instances' keys,
// status, attributes (less the random ones), sensitive paths and
// dependencies. Lineage, serial and provider-private data are each tool's
// own.
func pulledResources(t *testing.T, who, text string) []map[string]any {
	t.Helper()
	f, err := tfstate.Read(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s state pull: %v\n%s", who, err, text)
	}
	var out []map[string]any
	for _, r := range f.Resources {
		var insts []map[string]any
		for _, in := range r.Instances {
			var attrs map[string]any
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatalf("%s state pull: %s.%s: attributes: %v", who, r.Type, r.Name, err)
			}
			insts = append(insts, map[string]any{
				"index_key": in.IndexKey, "status": in.Status, "schema_version": in.SchemaVersion,
				"attributes": e2e.WithoutIDs(attrs), "sensitive_attributes": in.SensitiveAttributes,
				"dependencies": in.Dependencies, "create_before_destroy": in.CreateBeforeDestroy,
			})
		}
		out = append(out, map[string]any{
			"module": r.Module, "mode": r.Mode, "type": r.Type, "name": r.Name, "provider": r.Provider, "instances": insts,
		})
	}
	return out
}
