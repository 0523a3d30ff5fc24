package tftest

import (
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Status is a run's, a file's or the whole test's result, as terraform
// test names it: pending, skip, pass, fail or error, each worse than the
// one before.
type Status int

const (
	pending Status = iota
	skip
	pass
	fail
	errored
)

// Name is the status's name in terraform test's JSON output.
func (s Status) Name() string {
	return [...]string{"pending", "skip", "pass", "fail", "error"}[s]
}

// String is the status as terraform test prints it for people, where an
// error is a failure too.
func (s Status) String() string {
	return [...]string{"pending", "skip", "pass", "fail", "fail"}[s]
}

// Counts are how many runs ended in each status.
type Counts struct{ Passed, Failed, Errored, Skipped int }

func (c *Counts) add(s Status) {
	switch s {
	case pass:
		c.Passed++
	case fail:
		c.Failed++
	case errored:
		c.Errored++
	case skip:
		c.Skipped++
	}
}

// Progress is where a file or run is: starting, teardown or complete.
type Progress string

const (
	Starting Progress = "starting"
	Teardown Progress = "teardown"
	Complete Progress = "complete"
)

// Reporter shows what the runner does.
type Reporter interface {
	// Abstract lists the files and their runs before anything runs.
	Abstract(files []*File)
	// File and Run report progress; status is set when complete.
	File(name string, p Progress, status Status)
	Run(file, run string, p Progress, status Status)
	Diagnostics(file, run string, diags hcl.Diagnostics, sources map[string][]byte)
	// Verbose shows a run's plan, or its state when it applied
	// (-verbose), as the executor wrote it: text, or a JSON document.
	Verbose(file, run string, applied bool, text string)
	Summary(status Status, counts Counts)
}

// Text is terraform test's output for people: progress on w, diagnostics
// through diags.
type Text struct {
	W     io.Writer
	Diags func(hcl.Diagnostics, map[string][]byte)
}

func (t *Text) Abstract([]*File) {}

func (t *Text) File(name string, p Progress, st Status) {
	switch p {
	case Starting:
		fmt.Fprintf(t.W, "%s... in progress\n", name)
	case Teardown:
		fmt.Fprintf(t.W, "%s... tearing down\n", name)
	case Complete:
		fmt.Fprintf(t.W, "%s... %s\n", name, st)
	}
}

func (t *Text) Run(_, run string, p Progress, st Status) {
	if p == Complete {
		fmt.Fprintf(t.W, "  run %q... %s\n", run, st)
	}
}

func (t *Text) Verbose(_, _ string, _ bool, text string) {
	fmt.Fprintln(t.W)
	fmt.Fprint(t.W, text)
	fmt.Fprintln(t.W)
}

func (t *Text) Diagnostics(_, _ string, diags hcl.Diagnostics, sources map[string][]byte) {
	t.Diags(diags, sources)
}

func (t *Text) Summary(st Status, c Counts) {
	fmt.Fprintln(t.W)
	fmt.Fprint(t.W, SummaryMessage(st, c))
	fmt.Fprintln(t.W)
}

// SummaryMessage is terraform test's last line, without its newline.
func SummaryMessage(st Status, c Counts) string {
	var msg string
	switch {
	case st <= skip:
		msg = "Executed 0 tests"
	case st >= fail:
		msg = fmt.Sprintf("Failure! %d passed, %d failed", c.Passed, c.Failed+c.Errored)
	default:
		msg = fmt.Sprintf("Success! %d passed, %d failed", c.Passed, c.Failed+c.Errored)
	}
	if c.Skipped > 0 {
		return msg + fmt.Sprintf(", %d skipped.", c.Skipped)
	}
	return msg + "."
}

// orderedReport shows what concurrent runs report in the order of their
// file: what run i reports goes straight through while every run before it
// has finished, and is held until then otherwise. Calls to the reporter
// are one at a time.
type orderedReport struct {
	mu   sync.Mutex
	to   Reporter
	head int // the first run not finished
	held [][]func(Reporter)
	done []bool
}

func newOrderedReport(to Reporter, n int) *orderedReport {
	return &orderedReport{to: to, held: make([][]func(Reporter), n), done: make([]bool, n)}
}

// emit shows what run i reports, now or once the runs before it finish.
func (o *orderedReport) emit(i int, f func(Reporter)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i == o.head {
		f(o.to)
		return
	}
	o.held[i] = append(o.held[i], f)
}

// finish marks run i finished, showing what the runs after it held.
func (o *orderedReport) finish(i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done[i] = true
	for o.head < len(o.done) && o.done[o.head] {
		o.head++
		if o.head < len(o.done) {
			for _, f := range o.held[o.head] {
				f(o.to)
			}
			o.held[o.head] = nil
		}
	}
}
