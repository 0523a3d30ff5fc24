package ui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/plan"
)

// An operation's line is written without maps; it must be byte for byte
// the line json.Marshal makes of Terraform's message as a map.
func TestJSONViewEventLinesAsMarshal(t *testing.T) {
	at := time.Date(2026, 12, 7, 21, 0, 0, 123456000, time.FixedZone("x", 3600))
	hook := func(address string, kv ...any) map[string]any {
		h := map[string]any{"resource": resource(address, "")}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i].(string)] = kv[i+1]
		}
		return h
	}
	for _, c := range []struct {
		name     string
		ev       plan.Event
		msg, typ string
		hook     map[string]any
	}{
		{"refresh start", plan.Event{Addr: "tether_value.r1", Action: plan.NoOp, Phase: plan.Started, ID: "abc"},
			"tether_value.r1: Refreshing state... [id=abc]", "refresh_start", hook("tether_value.r1", "id_key", "id", "id_value", "abc")},
		{"refresh complete", plan.Event{Addr: "tether_value.r1", Action: plan.NoOp, Phase: plan.Succeeded, ID: "abc", Elapsed: 3 * time.Second},
			"tether_value.r1: Refresh complete [id=abc]", "refresh_complete", hook("tether_value.r1", "id_key", "id", "id_value", "abc")},
		{"refresh without id", plan.Event{Addr: "module.m[2].tether_value.r[\"a<b>&\\\"\"]", Action: plan.NoOp, Phase: plan.Started},
			"module.m[2].tether_value.r[\"a<b>&\\\"\"]: Refreshing state...", "refresh_start", hook("module.m[2].tether_value.r[\"a<b>&\\\"\"]")},
		{"create start", plan.Event{Addr: "tether_value.r[3]", Action: plan.Create, Phase: plan.Started},
			"tether_value.r[3]: Creating...", "apply_start", hook("tether_value.r[3]", "action", "create")},
		{"create complete", plan.Event{Addr: "tether_value.r[3]", Action: plan.Create, Phase: plan.Succeeded, ID: "i\u2028d", Elapsed: 61500 * time.Millisecond},
			"tether_value.r[3]: Creation complete after 1m1s [id=i\u2028d]", "apply_complete", hook("tether_value.r[3]", "action", "create", "elapsed_seconds", 61, "id_key", "id", "id_value", "i\u2028d")},
		{"update start", plan.Event{Addr: "tether_value.u", Action: plan.Update, Phase: plan.Started, ID: "x"},
			"tether_value.u: Modifying... [id=x]", "apply_start", hook("tether_value.u", "action", "update", "id_key", "id", "id_value", "x")},
		{"delete complete", plan.Event{Addr: "tether_value.d", Action: plan.Delete, Phase: plan.Succeeded, ID: "x"},
			"tether_value.d: Destruction complete after 0s", "apply_complete", hook("tether_value.d", "action", "delete", "elapsed_seconds", 0)},
		{"replace's create", plan.Event{Addr: "tether_value.p", Action: plan.CreateThenDelete, Step: plan.Create, Phase: plan.Started},
			"tether_value.p: Creating...", "apply_start", hook("tether_value.p", "action", "create")},
		{"read start", plan.Event{Addr: "data.tether_value.q", Action: plan.Read, Phase: plan.Started},
			"data.tether_value.q: Refreshing...", "apply_start", hook("data.tether_value.q", "action", "read")},
		{"read complete", plan.Event{Addr: "data.tether_value.q", Action: plan.Read, Phase: plan.Succeeded, ID: "z", Elapsed: 2 * time.Second},
			"data.tether_value.q: Refresh complete after 2s [id=z]", "apply_complete", hook("data.tether_value.q", "action", "read", "elapsed_seconds", 2, "id_key", "id", "id_value", "z")},
		{"open complete", plan.Event{Addr: "ephemeral.tether_value.e", Action: plan.Open, Phase: plan.Succeeded},
			"ephemeral.tether_value.e: Opening complete after 0s", "ephemeral_op_complete", hook("ephemeral.tether_value.e", "action", "open", "elapsed_seconds", 0)},
		{"close start", plan.Event{Addr: "ephemeral.tether_value.e", Action: plan.Close, Phase: plan.Started},
			"ephemeral.tether_value.e: Closing...", "ephemeral_op_start", hook("ephemeral.tether_value.e", "action", "close")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got, want bytes.Buffer
			v := NewJSONView(&got)
			v.now = func() time.Time { return at }
			v.Event(c.ev)
			v.Flush()
			ref := NewJSONView(&want)
			ref.now = v.now
			ref.Line("info", c.msg, c.typ, map[string]any{"hook": c.hook})
			if got.String() != want.String() {
				t.Errorf("line\n%s\nwant\n%s", got.String(), want.String())
			}
		})
	}
}

// The resource object of a hook, read from its address.
func TestResourceObject(t *testing.T) {
	for address, want := range map[string]string{
		"tether_value.r":             `{"addr":"tether_value.r","implied_provider":"tether","module":"","resource":"tether_value.r","resource_key":null,"resource_name":"r","resource_type":"tether_value"}`,
		`module.a["k"].aws_s3.b[4]`:  `{"addr":"module.a[\"k\"].aws_s3.b[4]","implied_provider":"aws","module":"module.a[\"k\"]","resource":"aws_s3.b[4]","resource_key":4,"resource_name":"b","resource_type":"aws_s3"}`,
		`data.tether_value.q["x.y"]`: `{"addr":"data.tether_value.q[\"x.y\"]","implied_provider":"tether","module":"","resource":"data.tether_value.q[\"x.y\"]","resource_key":"x.y","resource_name":"q","resource_type":"tether_value"}`,
		"not an address":             `{"addr":"not an address","implied_provider":"","module":"","resource":"not an address","resource_key":null,"resource_name":"","resource_type":""}`,
	} {
		r := resourceOf(address, "")
		if got := string(r.appendJSON(nil)); got != want {
			t.Errorf("%s: appended\n%s\nwant\n%s", address, got, want)
		}
		if raw, _ := json.Marshal(r.object()); string(raw) != want {
			t.Errorf("%s: marshalled\n%s\nwant\n%s", address, raw, want)
		}
	}
}

// A wide run writes one or two of these lines a resource: they allocate
// nothing once the view's buffers have grown.
func TestJSONViewEventAllocations(t *testing.T) {
	defer func(d time.Duration) { flushEvery = d }(flushEvery)
	flushEvery = time.Hour
	for _, ev := range []plan.Event{
		{Addr: "tether_value.r1", Action: plan.NoOp, Phase: plan.Started, ID: "abc"},
		{Addr: "tether_value.r1", Action: plan.NoOp, Phase: plan.Succeeded, ID: "abc"},
		{Addr: "tether_value.r1", Action: plan.Create, Phase: plan.Started},
		{Addr: "tether_value.r1", Action: plan.Create, Phase: plan.Succeeded, ID: "abc"},
	} {
		var w bytes.Buffer
		v := NewJSONView(&w)
		v.Event(ev)
		if n := testing.AllocsPerRun(100, func() { v.Event(ev); v.out.pending = v.out.pending[:0] }); n != 0 {
			t.Errorf("%s %d: %v allocations an event, want 0", ev.Action, ev.Phase, n)
		}
	}
}
