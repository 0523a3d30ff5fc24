package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/plan"
)

// The apply_start and apply_complete lines of a wide run are gathered into
// few writes; any other line, and Flush, writes them first, so the
// stream's order is the order of the calls.
func TestJSONViewGathersEvents(t *testing.T) {
	defer func(d time.Duration) { flushEvery = d }(flushEvery)
	flushEvery = time.Hour // only Flush, other lines and the size limit write
	var w countingWriter
	v := NewJSONView(&w)
	v.now = func() time.Time { return time.Unix(0, 0) }
	const n = 50 // under flushAt
	for i := range n {
		addr := fmt.Sprintf("tether_value.r%d", i)
		v.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Started})
		v.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Succeeded, ID: "x"})
	}
	if got := w.count(); got != 0 {
		t.Errorf("%d writes before anything but events, want 0", got)
	}
	v.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Something"}}, nil)
	v.Event(plan.Event{Addr: "tether_value.last", Action: plan.Create, Phase: plan.Started})
	v.Flush()
	if got := w.count(); got != 2 {
		t.Errorf("%d writes, want 2: the events with the diagnostic, and the last event at Flush", got)
	}
	var types []string
	for line := range strings.Lines(w.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		types = append(types, fmt.Sprintf("%s %s", m["type"], m["@message"]))
	}
	if len(types) != 2*n+2 {
		t.Fatalf("%d lines, want %d", len(types), 2*n+2)
	}
	for i, want := range map[int]string{
		0:       "apply_start tether_value.r0: Creating...",
		1:       "apply_complete tether_value.r0: Creation complete after 0s [id=x]",
		2*n - 1: fmt.Sprintf("apply_complete tether_value.r%d: Creation complete after 0s [id=x]", n-1),
		2 * n:   "diagnostic Warning: Something",
		2*n + 1: "apply_start tether_value.last: Creating...",
	} {
		if types[i] != want {
			t.Errorf("line %d is %q, want %q", i, types[i], want)
		}
	}
}
