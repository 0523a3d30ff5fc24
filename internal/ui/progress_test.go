package ui

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/plan"
)

func TestProgressPlain(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false)
	for _, e := range []plan.Event{
		{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Started},
		{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Succeeded, Elapsed: 1500 * time.Millisecond, ID: "f-1"},
		{Addr: "tether_file.b", Action: plan.Update, Phase: plan.Started, ID: "f-2"},
		{Addr: "tether_file.b", Action: plan.Update, Phase: plan.Succeeded, Elapsed: 90 * time.Second, ID: "f-2"},
		{Addr: "tether_file.c", Action: plan.Delete, Phase: plan.Started, ID: "f-3"},
		{Addr: "tether_file.c", Action: plan.Delete, Phase: plan.Succeeded, ID: "f-3"},
		{Addr: "data.tether_file.d", Action: plan.Read, Phase: plan.Started},
		{Addr: "data.tether_file.d", Action: plan.Read, Phase: plan.Succeeded, ID: "d"},
		{Addr: "tether_file.e", Action: plan.DeleteThenCreate, Phase: plan.Started, ID: "f-5"},
		{Addr: "tether_file.e", Action: plan.DeleteThenCreate, Phase: plan.Succeeded, Elapsed: 2 * time.Second, ID: "f-6"},
		{Addr: "tether_file.r", Action: plan.NoOp, Phase: plan.Started, ID: "f-7"},
		{Addr: "tether_file.r", Action: plan.NoOp, Phase: plan.Succeeded, ID: "f-7"},
		{Addr: "tether_file.f", Action: plan.Create, Phase: plan.Started},
		{Addr: "tether_file.f", Action: plan.Create, Phase: plan.Failed, Elapsed: 300 * time.Millisecond, Err: errors.New("open /x: permission denied")},
		{Addr: "tether_file.g", Action: plan.Delete, Phase: plan.Failed, Elapsed: time.Second},
	} {
		p.Event(e)
	}
	p.Done(ApplySummary(2, 1, 1))
	p.Done("ignored")
	checkText(t, b.String(), `tether_file.a: Creating...
tether_file.a: Creation complete after 1s [id=f-1]
tether_file.b: Modifying... [id=f-2]
tether_file.b: Modifications complete after 1m30s [id=f-2]
tether_file.c: Destroying... [id=f-3]
tether_file.c: Destruction complete after 0s
data.tether_file.d: Reading...
data.tether_file.d: Read complete after 0s [id=d]
tether_file.e: Replacing... [id=f-5]
tether_file.e: Replacement complete after 2s [id=f-6]
tether_file.r: Refreshing state... [id=f-7]
tether_file.f: Creating...
tether_file.f: Creation failed after 0s: open /x: permission denied
tether_file.g: Destruction failed after 1s

Apply complete! Resources: 2 added, 1 changed, 1 destroyed.
`)
}

func TestSummaries(t *testing.T) {
	checkText(t, ApplySummary(2, 1, 0), "Apply complete! Resources: 2 added, 1 changed, 0 destroyed.")
	checkText(t, DestroySummary(3), "Destroy complete! Resources: 3 destroyed.")
}

func TestProgressPlainConcurrent(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			addr := fmt.Sprintf("tether_file.f[%d]", i)
			p.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Started})
			p.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Succeeded, ID: "x"})
		})
	}
	wg.Wait()
	p.Done("")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("got %d lines, want 100", len(lines))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, ": Creating...") && !strings.HasSuffix(l, ": Creation complete after 0s [id=x]") {
			t.Errorf("mangled line %q", l)
		}
	}
}

func TestProgressLive(t *testing.T) {
	defer func(d time.Duration) { redrawEvery = d }(redrawEvery)
	redrawEvery = time.Hour // the test redraws by hand

	var b bytes.Buffer
	p := NewProgress(&b, true)
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	redraw := func() {
		p.mu.Lock()
		p.redraw(false)
		p.mu.Unlock()
	}

	p.Event(plan.Event{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Started})
	p.Event(plan.Event{Addr: "tether_file.b", Action: plan.Delete, Phase: plan.Started, ID: "f-2"})
	redraw()
	now = now.Add(3 * time.Second)
	redraw()
	redraw() // nothing changed: nothing written
	p.Event(plan.Event{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Succeeded, Elapsed: 3 * time.Second, ID: "f-1"})
	redraw()
	p.Done(ApplySummary(1, 0, 1))

	// Each redraw goes back up and overwrites the old view line by line,
	// erasing each line's rest ("\x1b[K") and the old view's lines left
	// over ("\x1b[2K"): never "erase to the end of the screen", which
	// tmux takes for clearing the screen when the view fills it.
	checkText(t, b.String(), ""+
		"tether_file.a: Creating...\x1b[K\n"+
		"tether_file.b: Destroying... [id=f-2]\x1b[K\n"+
		"\r\x1b[2A"+
		"tether_file.a: Creating... [3s elapsed]\x1b[K\n"+
		"tether_file.b: Destroying... [id=f-2] [3s elapsed]\x1b[K\n"+
		"\r\x1b[2A"+
		"tether_file.a: Creation complete after 3s [id=f-1]\x1b[K\n"+
		"tether_file.b: Destroying... [id=f-2] [3s elapsed]\x1b[K\n"+
		"\r\x1b[1A"+
		"\x1b[2K"+
		"\nApply complete! Resources: 1 added, 0 changed, 1 destroyed.\n")
}

func TestProgressLiveManyInFlight(t *testing.T) {
	p := &Progress{now: time.Now}
	for i := range 30 {
		p.inflight = append(p.inflight, &operation{addr: fmt.Sprintf("tether_file.a[%d]", i), action: plan.Create, start: time.Now()})
	}
	live := p.liveView(30, 10)
	lines := strings.Split(strings.TrimSuffix(live, "\n"), "\n")
	if len(lines) != 9 {
		t.Fatalf("live view has %d lines for a 10-line terminal:\n%s", len(lines), live)
	}
	if lines[8] != "... and 22 more in progress" {
		t.Errorf("last line %q", lines[8])
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 29 {
			t.Errorf("line of %d columns on a 30-column terminal: %q", n, l)
		}
	}
}

func TestProgressLiveTicksAndStops(t *testing.T) {
	before := runtime.NumGoroutine()
	var b syncBuffer
	p := NewProgress(&b, true)
	p.Event(plan.Event{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Started})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(b.String(), "tether_file.a: Creating...") {
		if time.Now().After(deadline) {
			t.Fatal("live view never drawn")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Event(plan.Event{Addr: "tether_file.a", Action: plan.Create, Phase: plan.Succeeded})
	p.Done("done")
	if !strings.HasSuffix(b.String(), "tether_file.a: Creation complete after 0s\x1b[K\n\ndone\n") {
		t.Errorf("output ends %q", b.String())
	}
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Done, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// After Done, events still reach the user, as plain lines.
	p.Event(plan.Event{Addr: "tether_file.z", Action: plan.Create, Phase: plan.Started})
	if !strings.HasSuffix(b.String(), "done\ntether_file.z: Creating...\n") {
		t.Errorf("output ends %q", b.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Off a terminal, an operation still running is reported every ten
// seconds of its own time, as Terraform does; the clock is the test's.
func TestProgressHeartbeat(t *testing.T) {
	check := heartbeatCheck
	heartbeatCheck = time.Hour // only the test's calls check
	defer func() { heartbeatCheck = check }()
	var b bytes.Buffer
	p := NewProgress(&b, false)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.heart.now = func() time.Time { return now }
	p.Event(plan.Event{Addr: "tether_value.slow", Action: plan.Create, Phase: plan.Started})
	p.Event(plan.Event{Addr: "tether_value.gone", Action: plan.Delete, Phase: plan.Started, ID: "g"})
	p.Event(plan.Event{Addr: "tether_value.quick", Action: plan.Update, Phase: plan.Started, ID: "q"})
	now = now.Add(5 * time.Second)
	p.heart.check()
	p.Event(plan.Event{Addr: "tether_value.quick", Action: plan.Update, Phase: plan.Succeeded, Elapsed: 5 * time.Second, ID: "q"})
	now = now.Add(6 * time.Second) // 11s
	p.heart.check()
	p.heart.check()                 // nothing new is due
	now = now.Add(14 * time.Second) // 25s: one beat, at 20s, not two
	p.heart.check()
	p.Event(plan.Event{Addr: "tether_value.gone", Action: plan.Delete, Phase: plan.Succeeded, Elapsed: 25 * time.Second})
	now = now.Add(5 * time.Second) // 30s
	p.heart.check()
	p.Done("")
	checkText(t, b.String(), `tether_value.slow: Creating...
tether_value.gone: Destroying... [id=g]
tether_value.quick: Modifying... [id=q]
tether_value.quick: Modifications complete after 5s [id=q]
tether_value.slow: Still creating... [10s elapsed]
tether_value.gone: Still destroying... [10s elapsed]
tether_value.slow: Still creating... [20s elapsed]
tether_value.gone: Still destroying... [20s elapsed]
tether_value.gone: Destruction complete after 25s
tether_value.slow: Still creating... [30s elapsed]
`)
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	syncBuffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.syncBuffer.Write(p)
}

func (c *countingWriter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// Off a terminal, the lines of a wide run are gathered into few writes
// (one write a line cost a third of a 100,000-wide apply's report), and
// what Done writes comes after every line, in order.
func TestProgressPlainGathersWrites(t *testing.T) {
	defer func(d time.Duration) { flushEvery = d }(flushEvery)
	flushEvery = time.Hour // only Done and the size limit write
	var w countingWriter
	p := NewProgress(&w, false)
	var want strings.Builder
	for i := range 1000 {
		addr := fmt.Sprintf("tether_value.r%d", i)
		p.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Started})
		p.Event(plan.Event{Addr: addr, Action: plan.Create, Phase: plan.Succeeded, ID: "x"})
		fmt.Fprintf(&want, "%s: Creating...\n%s: Creation complete after 0s [id=x]\n", addr, addr)
	}
	p.Done(ApplySummary(1000, 0, 0))
	want.WriteString("\n" + ApplySummary(1000, 0, 0) + "\n")
	checkText(t, w.String(), want.String())
	// 60 KiB of lines: one write at Done, one more if the limit was
	// reached on the way.
	if n := w.count(); n > 2 {
		t.Errorf("%d writes for %d bytes of progress, want at most 2", n, len(w.String()))
	}
}

// A line waiting to be written reaches the writer without Done, within
// flushEvery: a long operation's "Creating..." is not held back by it.
func TestProgressPlainFlushesWhileRunning(t *testing.T) {
	defer func(d time.Duration) { flushEvery = d }(flushEvery)
	flushEvery = time.Millisecond
	var w syncBuffer
	p := NewProgress(&w, false)
	defer p.Done("")
	p.Event(plan.Event{Addr: "tether_value.slow", Action: plan.Create, Phase: plan.Started})
	deadline := time.Now().Add(10 * time.Second)
	for w.String() != "tether_value.slow: Creating...\n" {
		if time.Now().After(deadline) {
			t.Fatalf("line not written without Done: %q", w.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A second line later arms the timer again.
	p.Event(plan.Event{Addr: "tether_value.slow", Action: plan.Create, Phase: plan.Succeeded, Elapsed: 2 * time.Second})
	for !strings.HasSuffix(w.String(), "tether_value.slow: Creation complete after 2s\n") {
		if time.Now().After(deadline) {
			t.Fatalf("second line not written without Done: %q", w.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The heartbeat writes a beat holding its own lock, and a beat takes the
// progress report's lock: an event must therefore not hold the report's
// lock while it tells the heartbeat, or a beat due at that moment
// deadlocks the apply.
func TestProgressHeartbeatLockOrder(t *testing.T) {
	check := heartbeatCheck
	heartbeatCheck = time.Hour
	defer func() { heartbeatCheck = check }()
	var b bytes.Buffer
	p := NewProgress(&b, false)
	defer p.Done("")
	p.heart.now = func() time.Time {
		// Called by the heartbeat with its own lock held.
		if !p.mu.TryLock() {
			t.Error("the heartbeat's lock is taken with the progress report's held")
		} else {
			p.mu.Unlock()
		}
		return time.Now()
	}
	p.Event(plan.Event{Addr: "tether_value.a", Action: plan.Create, Phase: plan.Started})
}

// With hundreds of operations in flight, ending in any order, the beats
// due are those of the operations still running, in the order they
// started.
func TestHeartbeatManyInFlight(t *testing.T) {
	check := heartbeatCheck
	heartbeatCheck = time.Hour
	defer func() { heartbeatCheck = check }()
	var got []string
	h := NewHeartbeat(func(address string, _ plan.Action, elapsed time.Duration) {
		got = append(got, fmt.Sprintf("%s %s", address, elapsed))
	})
	defer h.Stop()
	now := time.Unix(0, 0)
	h.now = func() time.Time { return now }
	addr := func(i int) string { return fmt.Sprintf("tether_value.r[%d]", i) }
	for i := range 300 {
		h.Event(plan.Event{Addr: addr(i), Action: plan.Create, Phase: plan.Started})
	}
	for i := 299; i >= 0; i -= 3 {
		h.Event(plan.Event{Addr: addr(i), Action: plan.Create, Phase: plan.Succeeded})
	}
	h.Event(plan.Event{Addr: addr(1), Action: plan.Delete, Phase: plan.Succeeded}) // not running: ignored
	now = now.Add(10 * time.Second)
	h.check()
	var want []string
	for i := range 300 {
		if i%3 != 2 {
			want = append(want, addr(i)+" 10s")
		}
	}
	checkText(t, strings.Join(got, "\n"), strings.Join(want, "\n"))
}
