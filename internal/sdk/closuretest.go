package sdk

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
)

// T is what a test added to a tester receives (builtin.Tester.Test):
// `tether test` runs the test in this program, against the stack it
// deployed, and reports it failed when the test called Error, Fatal or
// Fail, or panicked. What the test logs is shown when it fails.
//
// Like testing.T, whose methods it mirrors, a T is for the goroutine that
// runs the test: FailNow and Fatal stop that goroutine.
type T struct {
	name    string
	out     io.Writer
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	failed  bool
	helpers map[string]bool
	cleanup []func()
}

func newT(name string, out io.Writer) *T {
	ctx, cancel := context.WithCancel(context.Background())
	return &T{name: name, out: out, ctx: ctx, cancel: cancel, helpers: map[string]bool{}}
}

// Name is the test's name.
func (t *T) Name() string { return t.name }

// Context is cancelled when the test ends, before its cleanups run.
func (t *T) Context() context.Context { return t.ctx }

// Log records a line in the test's output, with the file and line that
// called it.
func (t *T) Log(args ...any) { t.log(fmt.Sprintln(args...)) }

// Logf is Log with a format.
func (t *T) Logf(format string, args ...any) { t.log(fmt.Sprintf(format, args...)) }

// Error is Log, then Fail.
func (t *T) Error(args ...any) {
	t.log(fmt.Sprintln(args...))
	t.Fail()
}

// Errorf is Logf, then Fail.
func (t *T) Errorf(format string, args ...any) {
	t.log(fmt.Sprintf(format, args...))
	t.Fail()
}

// Fatal is Log, then FailNow.
func (t *T) Fatal(args ...any) {
	t.log(fmt.Sprintln(args...))
	t.FailNow()
}

// Fatalf is Logf, then FailNow.
func (t *T) Fatalf(format string, args ...any) {
	t.log(fmt.Sprintf(format, args...))
	t.FailNow()
}

// Fail marks the test failed and lets it go on.
func (t *T) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}

// FailNow marks the test failed and ends it, running its deferred calls:
// call it from the goroutine that runs the test.
func (t *T) FailNow() {
	t.Fail()
	runtime.Goexit()
}

// Failed reports whether the test failed.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// Helper marks the calling function as a helper: lines it logs are
// reported at its caller.
func (t *T) Helper() {
	fr := frames(1, 1)
	if len(fr) == 0 {
		return
	}
	t.mu.Lock()
	t.helpers[fr[0].Function] = true
	t.mu.Unlock()
}

// Cleanup registers a function to run when the test ends, last first.
func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanup = append(t.cleanup, f)
	t.mu.Unlock()
}

// log writes a line, prefixed with where the test called.
func (t *T) log(msg string) {
	msg = strings.TrimSuffix(msg, "\n")
	where := t.site()
	t.mu.Lock()
	defer t.mu.Unlock()
	if where != "" {
		msg = where + ": " + msg
	}
	fmt.Fprintln(t.out, strings.ReplaceAll(msg, "\n", "\n    "))
}

// site is the first frame outside the SDK, fmt and the helpers: where
// the test called Log, or formatted an Output whose value it could not
// have.
func (t *T) site() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		f, more := nextFrame(frames)
		internal := inSDK(f.Function) || strings.HasPrefix(f.Function, "fmt.") || strings.HasPrefix(f.Function, "runtime.")
		if !internal && !t.helpers[f.Function] {
			return fmt.Sprintf("%s:%d", relative(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// panicked records a panic of the test.
func (t *T) panicked(v any, stack []byte) {
	t.Fail()
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "panic: %v\n\n%s", v, stack)
}

// finish ends the test: its context, then its cleanups.
func (t *T) finish() {
	t.cancel()
	t.mu.Lock()
	fs := t.cleanup
	t.cleanup = nil
	t.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
