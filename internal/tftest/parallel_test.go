package tftest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// fakeExec runs no configuration: each step records when it starts and
// ends (by the last part of its state's name, the run's state_key), and
// waits first for what waitFor says it must see.
type fakeExec struct {
	mu      sync.Mutex
	events  []string
	started map[string]chan struct{}
	ended   map[string]chan struct{}
	// waitFor holds, by state key, the keys whose steps must have started
	// (key+" started") or ended (key+" ended") before this one ends.
	waitFor map[string][]string
}

func newFakeExec(keys ...string) *fakeExec {
	x := &fakeExec{started: map[string]chan struct{}{}, ended: map[string]chan struct{}{}, waitFor: map[string][]string{}}
	for _, k := range keys {
		x.started[k], x.ended[k] = make(chan struct{}), make(chan struct{})
	}
	return x
}

func (x *fakeExec) Declared(string) (map[string]bool, hcl.Diagnostics) { return map[string]bool{}, nil }

func (x *fakeExec) Execute(_ context.Context, step Step) Outcome {
	key := step.State[strings.LastIndex(step.State, "-")+1:]
	if step.Destroy {
		return Outcome{}
	}
	x.record(key + " start")
	close(x.started[key])
	var out Outcome
	for _, w := range x.waitFor[key] {
		other, what, _ := strings.Cut(w, " ")
		ch := x.started[other]
		if what == "ended" {
			ch = x.ended[other]
		}
		select {
		case <-ch:
		case <-time.After(20 * time.Second):
			// Not a timing assertion: the runs were kept apart, and
			// would wait for each other for ever.
			out.PlanDiags = append(out.PlanDiags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf("%s never %s while %s ran", other, what, key)})
		}
	}
	x.record(key + " end")
	close(x.ended[key])
	return out
}

func (x *fakeExec) record(e string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.events = append(x.events, e)
}

// recorder is a Reporter that lists what it is told.
type recorder struct{ lines []string }

func (r *recorder) Abstract([]*File) {}
func (r *recorder) File(name string, p Progress, st Status) {
	r.lines = append(r.lines, fmt.Sprintf("file %s %s %s", name, p, st.Name()))
}
func (r *recorder) Run(_, run string, p Progress, st Status) {
	r.lines = append(r.lines, fmt.Sprintf("run %s %s %s", run, p, st.Name()))
}
func (r *recorder) Diagnostics(_, run string, diags hcl.Diagnostics, _ map[string][]byte) {
	for _, d := range diags {
		r.lines = append(r.lines, fmt.Sprintf("diag %s %s", run, d.Summary))
	}
}
func (r *recorder) Verbose(_, run string, _ bool, _ string) {}
func (r *recorder) Summary(st Status, c Counts)             { r.lines = append(r.lines, SummaryMessage(st, c)) }

// runFake runs the test file text (main.tftest.hcl) against x.
func runFake(t *testing.T, x *fakeExec, text string, parallelism int) *recorder {
	t.Helper()
	dir := writeFiles(t, map[string]string{"main.tftest.hcl": text})
	rep := &recorder{}
	code := (&Runner{Dir: dir, Exec: x, Report: rep, Parallelism: parallelism}).Run(context.Background())
	if code != 0 {
		t.Errorf("exit code %d:\n%s", code, strings.Join(rep.lines, "\n"))
	}
	return rep
}

func parallelRun(name string, parallel bool, extra string) string {
	return fmt.Sprintf("run %q {\n  command = plan\n  state_key = %q\n  parallel = %v\n%s}\n", name, name, parallel, extra)
}

// TestParallelRunsOverlap: parallel runs on different states run at the
// same time: each of a and b ends only once the other has started, which
// kept apart they never would. What they report comes in the file's
// order, though b ends first here (a waits for b to end).
func TestParallelRunsOverlap(t *testing.T) {
	x := newFakeExec("a", "b")
	x.waitFor["a"] = []string{"b started", "b ended"}
	x.waitFor["b"] = []string{"a started"}
	rep := runFake(t, x, parallelRun("a", true, "")+parallelRun("b", true, ""), 10)
	want := []string{
		"file main.tftest.hcl starting pending",
		"run a starting pending", "run a complete pass",
		"run b starting pending", "run b complete pass",
		"file main.tftest.hcl teardown pending", "file main.tftest.hcl complete pass",
		"Success! 2 passed, 0 failed.",
	}
	if !slices.Equal(rep.lines, want) {
		t.Errorf("reported\n%s\nwant\n%s", strings.Join(rep.lines, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(x.events[2:], []string{"b end", "a end"}) {
		t.Errorf("events %q: b should end before a", x.events)
	}
}

// TestParallelRunsWaitAndBarriers: a run that is not parallel waits for
// every run before it, and every run after it waits for it; so does a
// run on the same state, and one that refers to another's outputs.
// -parallelism 1 keeps parallel runs apart.
func TestParallelRunsWaitAndBarriers(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		par  int
		// before pairs: the first event happens before the second.
		before [][2]string
	}{
		{"barrier", parallelRun("a", true, "") + parallelRun("b", true, "") + parallelRun("c", false, "") +
			parallelRun("d", true, "") + parallelRun("e", true, ""), 10,
			[][2]string{{"a end", "c start"}, {"b end", "c start"}, {"c end", "d start"}, {"c end", "e start"}}},
		{"reference", parallelRun("a", true, "") + parallelRun("b", true, "  variables {\n    x = run.a\n  }\n"), 10,
			[][2]string{{"a end", "b start"}}},
		{"file default", "test {\n  parallel = true\n}\n" + strings.ReplaceAll(parallelRun("a", true, "")+parallelRun("b", false, "")+parallelRun("c", true, ""), "  parallel = true\n", ""), 10,
			[][2]string{{"b end", "c start"}, {"a end", "b start"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := newFakeExec("a", "b", "c", "d", "e")
			runFake(t, x, c.text, c.par)
			for _, p := range c.before {
				i, j := slices.Index(x.events, p[0]), slices.Index(x.events, p[1])
				if i < 0 || j < 0 || i > j {
					t.Errorf("events %q: want %q before %q", x.events, p[0], p[1])
				}
			}
		})
	}
}

// TestParallelism1: -parallelism 1 runs parallel runs one at a time.
func TestParallelism1(t *testing.T) {
	x := newFakeExec("a", "b")
	runFake(t, x, parallelRun("a", true, "")+parallelRun("b", true, ""), 1)
	if e := x.events; len(e) != 4 || strings.Fields(e[0])[0] != strings.Fields(e[1])[0] {
		t.Errorf("events %q: the runs overlapped", e)
	}
}

// TestDependencies: which earlier runs each run waits for.
func TestDependencies(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       [][]int
	}{
		{"sequential", "run \"a\" {}\nrun \"b\" {}\nrun \"c\" {}\n", [][]int{nil, {0}, {0, 1}}},
		{"same state", parallelRun("a", true, "") + "run \"b\" {\n  state_key = \"a\"\n  parallel = true\n}\n" + parallelRun("c", true, ""),
			[][]int{nil, {0}, nil}},
		{"reference in assert", parallelRun("a", true, "") + parallelRun("b", true, "") +
			parallelRun("c", true, "  assert {\n    condition = run.b == {}\n    error_message = \"${run.a}\"\n  }\n"),
			[][]int{nil, nil, {0, 1}}},
		{"same module", "run \"a\" {\n  parallel = true\n  module {\n    source = \"./m\"\n  }\n}\nrun \"b\" {\n  parallel = true\n  module {\n    source = \"./m\"\n  }\n}\nrun \"c\" {\n  parallel = true\n}\n",
			[][]int{nil, {0}, nil}},
		{"provider block", "provider \"tether\" {\n  runtime_dir = run.a.dir\n}\n" + parallelRun("a", true, "") + parallelRun("b", true, ""),
			[][]int{nil, {0}}},
		{"run says false over the file's true", "test {\n  parallel = true\n}\nrun \"a\" {\n  state_key = \"a\"\n}\nrun \"b\" {\n  state_key = \"b\"\n  parallel = false\n}\n",
			[][]int{nil, {0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.tftest.hcl": c.text})
			f, diags := Parse(hclparse.NewParser(), dir, "main.tftest.hcl")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got := Dependencies(f)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("dependencies %v, want %v", got, c.want)
			}
		})
	}
}

// TestParallelBadInput: a parallel argument that is not a bool, and a
// second test block, are errors where they are written.
func TestParallelBadInput(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"run", "run \"a\" {\n  parallel = \"yes\"\n}\n", "main.tftest.hcl:2:14: Invalid parallel"},
		{"file", "test {\n  parallel = [true]\n}\n", "main.tftest.hcl:2:14: Invalid parallel"},
		{"two test blocks", "test {}\ntest {}\n", "main.tftest.hcl:2:1: Multiple \"test\" blocks"},
		{"unknown argument", "test {\n  sequential = true\n}\n", "main.tftest.hcl:2:3: Unsupported argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.tftest.hcl": c.text})
			_, diags := Parse(hclparse.NewParser(), dir, "main.tftest.hcl")
			var got []string
			for _, d := range diags {
				got = append(got, fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("diagnostics %q, want just %q", got, c.want)
			}
		})
	}
}
