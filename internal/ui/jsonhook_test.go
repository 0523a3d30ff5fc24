package ui

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
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

// A plan's drift and change lines, one a resource, are written without
// maps too, byte for byte as json.Marshal writes the maps.
func TestJSONViewPlanLinesAsMarshal(t *testing.T) {
	at := time.Date(2026, 12, 7, 21, 0, 0, 5000, time.UTC)
	p := &plan.Plan{
		Drift: []*plan.ResourceChange{{Addr: "aws_s3_bucket.b", Type: "aws_s3_bucket", Action: plan.Update}},
		Changes: []*plan.ResourceChange{
			{Addr: "tether_value.same", Type: "tether_value", Action: plan.NoOp},
			{Addr: `module.m.tether_value.c["<k>"]`, Type: "tether_value", Action: plan.Create},
			{Addr: "tether_value.t", Type: "tether_value", Action: plan.DeleteThenCreate, Tainted: true},
			{Addr: "tether_value.gone[1]", Type: "tether_value", Action: plan.Delete, Reason: "no key"},
			{Addr: "tether_value.i", Type: "tether_value", Action: plan.NoOp, Importing: "id-1"},
			{Addr: "tether_value.iu", Type: "tether_value", Action: plan.Update, Importing: "id\"2"},
			{Addr: "tether_value.f", Type: "tether_value", Action: plan.Forget},
		},
	}
	change := func(address, typ string, kv ...any) map[string]any {
		c := map[string]any{"resource": resource(address, typ)}
		for i := 0; i < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return map[string]any{"change": c}
	}
	var got, want bytes.Buffer
	v := NewJSONView(&got)
	v.now = func() time.Time { return at }
	v.Plan(p)
	ref := NewJSONView(&want)
	ref.now = v.now
	ref.Line("info", "aws_s3_bucket.b: Drift detected (update)", "resource_drift", change("aws_s3_bucket.b", "aws_s3_bucket", "action", "update"))
	ref.Line("info", `module.m.tether_value.c["<k>"]: Plan to create`, "planned_change", change(`module.m.tether_value.c["<k>"]`, "tether_value", "action", "create"))
	ref.Line("info", "tether_value.t: Plan to replace", "planned_change", change("tether_value.t", "tether_value", "action", "replace", "reason", "tainted"))
	ref.Line("info", "tether_value.gone[1]: Plan to delete", "planned_change", change("tether_value.gone[1]", "tether_value", "action", "delete", "reason", "delete_because_each_key"))
	ref.Line("info", "tether_value.i: Plan to import", "planned_change", change("tether_value.i", "tether_value", "action", "import", "importing", map[string]any{"id": "id-1"}))
	ref.Line("info", "tether_value.iu: Plan to update", "planned_change", change("tether_value.iu", "tether_value", "action", "update", "importing", map[string]any{"id": "id\"2"}))
	ref.Line("info", "tether_value.f: Plan to forget", "planned_change", change("tether_value.f", "tether_value", "action", "forget"))
	if !bytes.HasPrefix(got.Bytes(), want.Bytes()) {
		t.Errorf("lines\n%s\nwant first\n%s", got.String(), want.String())
	}
	if rest := got.String()[min(want.Len(), got.Len()):]; !strings.Contains(rest, `"type":"change_summary"`) || strings.Count(rest, "\n") != 1 {
		t.Errorf("after the changes\n%s\nwant the summary alone", rest)
	}
}

// A plan's change lines allocate nothing once the view's buffers have
// grown: what Plan allocates does not grow with the changes (but for the
// summary's counts, which fmt boxes without allocating only under 256).
func TestJSONViewPlanAllocationsDoNotGrowWithChanges(t *testing.T) {
	allocs := func(n int) float64 {
		p := &plan.Plan{}
		for i := range n {
			p.Changes = append(p.Changes, &plan.ResourceChange{Addr: "tether_value.r" + strconv.Itoa(i), Type: "tether_value", Action: plan.Create})
		}
		v := NewJSONView(io.Discard)
		v.Plan(p)
		return testing.AllocsPerRun(20, func() { v.Plan(p) })
	}
	if few, many := allocs(10), allocs(1000); many > few+4 {
		t.Errorf("Plan of 1,000 changes: %v allocations, of 10: %v; want about as many", many, few)
	}
}

// A resource address's type and name, with or without the list of its
// parts, are addr.Split's last two.
func TestTypeAndName(t *testing.T) {
	for _, c := range []struct{ resource, typ, name string }{
		{"tether_value.r", "tether_value", "r"},
		{"data.aws_s3_bucket.b", "aws_s3_bucket", "b"},
		{"ephemeral.tether_value.e", "tether_value", "e"},
		{"lonely", "", "lonely"},
	} {
		if typ, name := typeAndName(c.resource); typ != c.typ || name != c.name {
			t.Errorf("typeAndName(%q) = %q, %q; want %q, %q", c.resource, typ, name, c.typ, c.name)
		}
	}
}

// With -json a refresh that takes long has no apply_progress line, as in
// Terraform, whose JSON hook beats only applies and ephemeral operations:
// a refresh is not "Still creating...".
func TestJSONHeartbeatSkipsRefresh(t *testing.T) {
	check := heartbeatCheck
	heartbeatCheck = time.Hour // only the test's calls check
	defer func() { heartbeatCheck = check }()
	var b bytes.Buffer
	v := NewJSONView(&b)
	h := NewHeartbeat(v.Heartbeat)
	defer h.Stop()
	now := time.Unix(0, 0)
	h.now = func() time.Time { return now }
	for _, e := range []plan.Event{
		{Addr: "tether_value.slow", Action: plan.NoOp, Phase: plan.Started, ID: "s"},
		{Addr: "tether_value.new", Action: plan.Create, Phase: plan.Started},
	} {
		h.Event(e)
		v.Event(e)
	}
	now = now.Add(15 * time.Second)
	h.check()
	v.Flush()
	var got []string
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, m["type"].(string)+" "+m["@message"].(string))
	}
	want := []string{
		"refresh_start tether_value.slow: Refreshing state... [id=s]",
		"apply_start tether_value.new: Creating...",
		"apply_progress tether_value.new: Still creating... [10s elapsed]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
