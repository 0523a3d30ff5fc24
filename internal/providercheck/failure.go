package providercheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

// FailureScenarios are the expectations of the built-in provider under
// load and interruption, whatever carries the calls: many calls at once,
// and an apply whose context ends, after which the provider works on. For
// a provider in a process of its own (Harness.Process) they go on with
// the end of that process: killed during an apply or between calls,
// crashing during an apply, and closed, with any process it started. A
// scenario that needs what a transport lacks skips, saying what.
var FailureScenarios = []Scenario{
	{"concurrent calls", concurrentCalls},
	{"cancelled apply", cancelledApply},
	{"killed during apply", killedDuringApply},
	{"killed between calls", killedBetweenCalls},
	{"crash during apply", crashDuringApply},
	{"close", closeEndsProcess},
	{"close takes the processes it started", closeTakesHelpers},
}

// Process is the process a provider plugin runs in, for the scenarios
// only such a provider meets. The harness's provider is its client.
type Process struct {
	// Path is the plugin's executable, which an error about the process
	// names.
	Path string
	Pid  int
	// Exited is done once the process has exited.
	Exited <-chan struct{}
	// Close is the client's Close, which must end the process.
	Close func() error
	// Running reports whether the process pid runs: a zombie, which only
	// waits to be reaped, does not.
	Running func(pid int) bool
	// Hooks says the plugin is the test plugin of internal/plugin
	// (testdata/tether5), which panics applying a tether_value whose
	// input is "panic", and for an input "spawn:FILE" starts a process
	// that sleeps for ten minutes and writes its pid to FILE.
	Hooks bool
}

// kill kills the process at once, as the system's OOM killer would.
func (p *Process) kill() error {
	proc, err := os.FindProcess(p.Pid)
	if err != nil {
		return err
	}
	return proc.Kill()
}

// exitsSoon reports whether the process pid has exited, or does within a
// few seconds: a kill is delivered after it returns. One still running
// then is killed, so that a failed test leaves nothing behind.
func (p *Process) exitsSoon(pid int) bool {
	for deadline := time.Now().Add(5 * time.Second); p.Running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			if proc, err := os.FindProcess(pid); err == nil {
				proc.Kill()
			}
			return false
		}
	}
	return true
}

// process is h's plugin process, skipping the test when the provider has
// none; with hooks, the test plugin's hooks are needed too.
func (h *Harness) process(t *testing.T, hooks bool) *Process {
	t.Helper()
	if h.Process == nil {
		t.Skip("needs a provider in a process of its own")
	}
	if hooks && !h.Process.Hooks {
		t.Skip("needs the hooks of internal/plugin's test plugin (testdata/tether5)")
	}
	return h.Process
}

// WithContext is a copy of h whose calls are made with ctx.
func (h *Harness) WithContext(ctx context.Context) *Harness {
	c := *h
	c.Ctx = ctx
	return &c
}

// Concurrently runs f n times at once, with i from 0 to n-1, and waits for
// them all. Each gets a copy of h on which a fatal failure fails the test
// and ends that call only: the testing package allows FailNow only in the
// test's own goroutine.
func (h *Harness) Concurrently(n int, f func(h *Harness, i int)) {
	var wg sync.WaitGroup
	for i := range n {
		c := *h
		c.T = inGoroutine{h.T}
		wg.Go(func() { f(&c, i) })
	}
	wg.Wait()
}

// inGoroutine is a test seen from a goroutine of its own: its fatal
// failures end that goroutine, not the test's.
type inGoroutine struct{ testing.TB }

func (g inGoroutine) FailNow() {
	g.TB.Fail()
	runtime.Goexit()
}

func (g inGoroutine) Fatal(args ...any) {
	g.TB.Error(args...)
	runtime.Goexit()
}

func (g inGoroutine) Fatalf(format string, args ...any) {
	g.TB.Errorf(format, args...)
	runtime.Goexit()
}

// concurrentCalls makes fifty lifecycles at once, of a tether_value with
// a delay and of a real file each, so that the provider's answers and its
// writes interleave: every one must come back whole and right.
func concurrentCalls(t *testing.T, h *Harness) {
	dir := t.TempDir()
	const n = 50
	h.Concurrently(n, func(h *Harness, i int) {
		if _, diags := h.Provider.GetSchema(); diags.HasErrors() {
			h.T.Fatalf("schema: %v", diags)
		}
		input := cty.ObjectVal(map[string]cty.Value{
			"i":    cty.NumberIntVal(int64(i)),
			"tags": cty.ListVal([]cty.Value{cty.StringVal(fmt.Sprint("t", i))}),
		})
		o := h.Up("tether_value", nil, map[string]cty.Value{"input": input, "delay_ms": cty.NumberIntVal(int64(i % 5))})
		if got := o.State.GetAttr("output"); !got.RawEquals(input) {
			h.T.Errorf("output %#v, want %#v", got, input)
		}
		again, diags := h.Refresh(o)
		NoErrors(h.T, "read", diags)
		if again == nil || !again.State.RawEquals(o.State) {
			h.T.Errorf("read %#v, want %#v", again, o.State)
		}
		h.Up("tether_file", nil, fileAttrs(filepath.Join(dir, fmt.Sprint(i)), fmt.Sprint(i)))
	})
	for i := range n {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil || string(b) != fmt.Sprint(i) {
			t.Errorf("file %d holds %q (%v)", i, b, err)
		}
	}
}

// slowValue is a tether_value whose apply takes ten minutes, unless
// something interrupts it.
var slowValue = map[string]cty.Value{"input": cty.StringVal("slow"), "delay_ms": cty.NumberIntVal(600_000)}

// wantOnly checks that diags are one error with the summary want, and
// returns it.
func wantOnly(t *testing.T, what string, diags hcl.Diagnostics, want string) *hcl.Diagnostic {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity != hcl.DiagError || diags[0].Summary != want {
		t.Fatalf("%s: want one error %q, got %v", what, want, diags)
	}
	return diags[0]
}

// cancelledApply ends the context of an apply under way: the apply is not
// abandoned, but the provider is asked to stop (the plugin protocol's
// StopProvider), and its own answer, that it was interrupted, comes back,
// with no object. An apply whose context has ended already makes nothing
// (a plugin's client does not even send it), and the provider works on.
func cancelledApply(t *testing.T, h *Harness) {
	ctx, cancel := context.WithCancel(h.Ctx)
	defer cancel()
	result := applyUnderWay(t, h, ctx)
	cancel()
	ar := result()
	wantOnly(t, "cancelled apply", ar.Diagnostics, "Interrupted while storing tether_value")
	if !ar.NewState.IsNull() {
		t.Errorf("an interrupted create left %#v", ar.NewState)
	}

	pr := h.Plan("tether_value", nil, slowValue)
	NoErrors(t, "plan", pr.Diagnostics)
	ended, cancel := context.WithCancel(h.Ctx)
	cancel()
	ar = h.WithContext(ended).Apply("tether_value", nil, pr, slowValue)
	if !ar.Diagnostics.HasErrors() || !ar.NewState.IsNull() {
		t.Errorf("an apply after its context ended: %#v %v", ar.NewState, ar.Diagnostics)
	}
	if h.Process != nil {
		wantOnly(t, "apply after cancel", ar.Diagnostics, "Provider call cancelled")
	}

	h.Up("tether_value", nil, map[string]cty.Value{"input": cty.StringVal("quick")})
}

// applyUnderWay starts to create a tether_value that takes ten minutes to
// apply, with ctx, and returns once the provider has the apply in hand,
// which it signals (see SignalApplies): a stop or a kill that came before
// would find no apply to interrupt. result waits for the apply's response.
// The test skips when the provider does not signal.
func applyUnderWay(t *testing.T, h *Harness, ctx context.Context) (result func() provider.ApplyResponse) {
	t.Helper()
	if !h.SignalsApplies {
		t.Skip("needs a provider that signals its applies (providercheck.SignalApplies)")
	}
	signal := filepath.Join(t.TempDir(), "applying")
	attrs := map[string]cty.Value{"input": cty.StringVal(applyingPrefix + signal), "delay_ms": slowValue["delay_ms"]}
	pr := h.Plan("tether_value", nil, attrs)
	NoErrors(t, "plan", pr.Diagnostics)
	var ar provider.ApplyResponse
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := h.WithContext(ctx)
		c.T = inGoroutine{h.T}
		ar = c.Apply("tether_value", nil, pr, attrs)
	}()
	if !waitForSignal(signal, done) {
		t.Fatalf("the apply returned before the provider had it: %v", ar.Diagnostics)
	}
	return func() provider.ApplyResponse {
		<-done
		return ar
	}
}

// wantCrash checks that an apply reports the plugin crashed during call,
// naming the plugin, and that nothing was made.
func wantCrash(t *testing.T, p *Process, ar provider.ApplyResponse, call string) *hcl.Diagnostic {
	t.Helper()
	d := wantOnly(t, "apply", ar.Diagnostics, "Provider plugin crashed")
	if !strings.Contains(d.Detail, p.Path) || !strings.Contains(d.Detail, call) {
		t.Errorf("the crash does not name the plugin %s and the call %s:\n%s", p.Path, call, d.Detail)
	}
	if !ar.NewState.IsNull() {
		t.Errorf("a create cut short left %#v", ar.NewState)
	}
	return d
}

// killedDuringApply kills the plugin while it applies: the apply fails at
// once, naming the plugin and the call, with no object.
func killedDuringApply(t *testing.T, h *Harness) {
	p := h.process(t, false)
	result := applyUnderWay(t, h, h.Ctx)
	if err := p.kill(); err != nil {
		t.Errorf("killing the plugin %d: %v", p.Pid, err)
	}
	wantCrash(t, p, result(), "ApplyResourceChange")
}

// killedBetweenCalls kills the plugin while it is idle: the next call
// says it crashed.
func killedBetweenCalls(t *testing.T, h *Harness) {
	p := h.process(t, false)
	if err := p.kill(); err != nil {
		t.Fatalf("killing the plugin %d: %v", p.Pid, err)
	}
	<-p.Exited
	diags := h.Provider.ValidateResourceConfig("tether_file", h.Config("tether_file", fileAttrs("x", "x")))
	wantOnly(t, "a call to a killed plugin", diags, "Provider plugin crashed")
}

// crashDuringApply makes the plugin panic in an apply: the apply fails,
// naming the plugin and quoting what it printed, with no object, and the
// process is gone.
func crashDuringApply(t *testing.T, h *Harness) {
	p := h.process(t, true)
	attrs := map[string]cty.Value{"input": cty.StringVal("panic")}
	pr := h.Plan("tether_value", nil, attrs)
	NoErrors(t, "plan", pr.Diagnostics)
	ar := h.Apply("tether_value", nil, pr, attrs)
	d := wantCrash(t, p, ar, "ApplyResourceChange")
	if !strings.Contains(d.Detail, "panic: tether5: asked to panic") {
		t.Errorf("the crash does not quote the panic:\n%s", d.Detail)
	}
	if !p.exitsSoon(p.Pid) {
		t.Errorf("the crashed plugin %d still runs", p.Pid)
	}
}

// closeEndsProcess closes the plugin: its process is gone, a second Close
// is harmless, and every later call says the plugin was closed.
func closeEndsProcess(t *testing.T, h *Harness) {
	p := h.process(t, false)
	o := h.Up("tether_value", nil, map[string]cty.Value{"input": cty.StringVal("x")})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !p.exitsSoon(p.Pid) {
		t.Fatalf("plugin %d still runs after Close", p.Pid)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	diags := h.Provider.ValidateResourceConfig("tether_file", h.Config("tether_file", fileAttrs("x", "x")))
	wantOnly(t, "validate after Close", diags, "Provider plugin closed")
	_, diags = h.Refresh(o)
	wantOnly(t, "read after Close", diags, "Provider plugin closed")
}

// closeTakesHelpers has the plugin start a process of its own, as a
// provider running helper programs does: Close ends it with the plugin.
func closeTakesHelpers(t *testing.T, h *Harness) {
	p := h.process(t, true)
	pidFile := filepath.Join(t.TempDir(), "pid")
	h.Up("tether_value", nil, map[string]cty.Value{"input": cty.StringVal("spawn:" + pidFile)})
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var helper int
	if _, err := fmt.Sscan(string(b), &helper); err != nil {
		t.Fatalf("pid file holds %q: %v", b, err)
	}
	if !p.Running(helper) {
		t.Fatalf("the helper %d is not running", helper)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !p.exitsSoon(helper) {
		t.Errorf("the helper %d outlived Close", helper)
	}
}
