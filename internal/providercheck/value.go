package providercheck

import (
	"regexp"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// ValueScenarios are the expectations of the built-in provider's
// tether_value, whatever carries the calls: any value comes back as it
// went in, structure and every digit of numbers a float64 would round
// (IDs, mostly), through plan, apply, read and a state upgrade from JSON;
// a new input updates in place; an input not known yet leaves the output
// unknown.
var ValueScenarios = []Scenario{
	{"structure", func(t *testing.T, h *Harness) { valueRoundTrip(t, h, valueStructure) }},
	{"numbers", func(t *testing.T, h *Harness) { valueRoundTrip(t, h, valueNumbers) }},
	{"update", valueUpdate},
}

var (
	valueStructure = cty.ObjectVal(map[string]cty.Value{
		"name": cty.StringVal("app"),
		"servers": cty.ListVal([]cty.Value{
			cty.ObjectVal(map[string]cty.Value{"host": cty.StringVal("a"), "ports": cty.ListVal([]cty.Value{cty.NumberIntVal(80), cty.NumberIntVal(443)})}),
			cty.ObjectVal(map[string]cty.Value{"host": cty.StringVal("b"), "ports": cty.ListValEmpty(cty.Number)}),
		}),
		"extra": cty.TupleVal([]cty.Value{cty.True, cty.NullVal(cty.String), cty.NumberFloatVal(1.5)}),
	})
	valueNumbers = cty.TupleVal([]cty.Value{
		cty.NumberIntVal(7227701560655103598),
		cty.NumberIntVal(-7227701560655103598),
		cty.NumberUIntVal(18446744073709551615),
		cty.MustParseNumberVal("123456789012345678901234567890.0000000001"),
	})
)

var valueID = regexp.MustCompile(`^[0-9a-f]{16}$`)

func valueRoundTrip(t *testing.T, h *Harness, input cty.Value) {
	attrs := map[string]cty.Value{"input": input}
	pr := h.Plan("tether_value", nil, attrs)
	NoErrors(t, "plan", pr.Diagnostics)
	if got := pr.PlannedState.GetAttr("output"); !got.RawEquals(input) {
		t.Errorf("planned output %#v, want %#v", got, input)
	}
	if id := pr.PlannedState.GetAttr("id"); id.IsKnown() {
		t.Errorf("planned id %#v, want unknown", id)
	}
	ar := h.Apply("tether_value", nil, pr, attrs)
	NoErrors(t, "apply", ar.Diagnostics)
	if got := ar.NewState.GetAttr("output"); !got.RawEquals(input) {
		t.Errorf("output %#v, want %#v", got, input)
	}
	if id := String(t, ar.NewState, "id"); !valueID.MatchString(id) {
		t.Errorf("id %q is not 16 hex digits", id)
	}
	o := &Object{Type: "tether_value", State: ar.NewState, Private: ar.Private}
	again, diags := h.Refresh(o)
	NoErrors(t, "read", diags)
	if again == nil || !again.State.RawEquals(o.State) {
		t.Errorf("read %#v, want %#v", again, o.State)
	}
	raw, err := ctyjson.Marshal(o.State, h.Resource("tether_value").Block.ImpliedType())
	if err != nil {
		t.Fatal(err)
	}
	up := h.Upgrade("tether_value", 0, raw)
	NoErrors(t, "upgrade", up.Diagnostics)
	if !up.UpgradedState.RawEquals(o.State) {
		t.Errorf("upgraded %#v, want %#v", up.UpgradedState, o.State)
	}
}

func valueUpdate(t *testing.T, h *Harness) {
	o := h.Up("tether_value", nil, map[string]cty.Value{"input": valueStructure})
	id := String(t, o.State, "id")

	// A new input, of another type, updates in place and keeps the id.
	attrs := map[string]cty.Value{"input": cty.StringVal("now a string")}
	if pr := h.Plan("tether_value", o, attrs); len(pr.RequiresReplace) != 0 {
		t.Fatalf("an input change forces replacement: %#v", pr.RequiresReplace)
	}
	o = h.Up("tether_value", o, attrs)
	if String(t, o.State, "id") != id || String(t, o.State, "output") != "now a string" {
		t.Fatalf("after update: %#v", o.State)
	}

	// Partly unknown input: nothing about the output is known yet.
	pr := h.Plan("tether_value", o, map[string]cty.Value{"input": cty.ObjectVal(map[string]cty.Value{
		"a": cty.StringVal("known"),
		"b": cty.UnknownVal(cty.String),
	})})
	NoErrors(t, "plan", pr.Diagnostics)
	if pr.PlannedState.GetAttr("output").IsKnown() {
		t.Errorf("planned output %#v is known although the input is not", pr.PlannedState.GetAttr("output"))
	}
	if String(t, pr.PlannedState, "id") != id {
		t.Error("the id is not kept across updates")
	}
	h.Down(o)
}
