package differential

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestTFTestDifferential runs every case under testdata/tftest with
// `terraform test` and with `tether test` and compares what a user of
// either reads: the exit code, the progress lines (each file's and each
// run's status, the summary), the error summaries reported, the
// assertion messages (each case marks them MSG-...), and the files under
// out/ left behind (none: clean-up destroys them). A case folder may hold
// an args file with extra arguments, one a line, given to both.
func TestTFTestDifferential(t *testing.T) {
	tools := differentialTools(t)
	cases, err := filepath.Glob(filepath.Join("testdata", "tftest", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 15 {
		t.Fatalf("found %d cases under testdata/tftest, want at least 15", len(cases))
	}
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			tf, tt := twoSides(t, tools, dir)
			var extra []string
			if data, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				extra = strings.Fields(string(data))
			}
			// Local modules of run blocks must be installed for terraform;
			// terraform get does it offline. It fails on a test file
			// terraform test refuses, which the comparison below sees.
			tf.Run("get", "-no-color")
			tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
				args := []string{"test", "-no-color"}
				return s.Run(append(args, extra...)...)
			})
			if tfRes.Err != nil || ttRes.Err != nil {
				t.Fatalf("running the tests:\n%s\n%s", tfRes, ttRes)
			}
			report := func(what string, a, b any) {
				t.Errorf("%s differ:\nterraform: %q\ntether:    %q\n\n%s\n\n%s", what, a, b, tfRes, ttRes)
			}
			if tfRes.Code != ttRes.Code {
				report("exit codes", tfRes.Code, ttRes.Code)
			}
			if a, b := progressLines(tfRes.Stdout), progressLines(ttRes.Stdout); strings.Join(a, "\n") != strings.Join(b, "\n") {
				report("progress lines", a, b)
			}
			if a, b := errorSummaries(tfRes.Stderr), errorSummaries(ttRes.Stderr); strings.Join(a, "|") != strings.Join(b, "|") {
				report("error summaries", a, b)
			}
			if a, b := messages(tfRes.Stderr), messages(ttRes.Stderr); strings.Join(a, " ") != strings.Join(b, " ") {
				report("assertion messages", a, b)
			}
			for _, s := range []e2e.Side{tf, tt} {
				files, err := e2e.ReadTree(filepath.Join(s.Dir, "out"))
				if err != nil {
					t.Fatal(err)
				}
				if len(files) > 0 {
					t.Errorf("after %s test, out/ still holds %s", s.Name, strings.Join(e2e.SortedNames(files), ", "))
				}
			}
		})
	}
}

var progressLine = regexp.MustCompile(`^(\S+\.tftest\.(hcl|json)\.\.\. .*|  run ".*"\.\.\. \w+|(Success|Failure)! .*|Executed \d+ tests.*)$`)

func progressLines(stdout string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		if progressLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// errorSummaries are the summaries of the error diagnostics, sorted:
// terraform's "Error: SUMMARY", tether's "Error: FILE:LINE:COL: SUMMARY"
// or "Error: ADDRESS: SUMMARY".
var errorLine = regexp.MustCompile(`(?m)^│?\s*Error: (?:\S+:\d+:\d+: )?(?:[a-z][\w./\["\]-]*: )?(.*)$`)

func errorSummaries(stderr string) []string {
	var out []string
	for _, m := range errorLine.FindAllStringSubmatch(stderr, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	sort.Strings(out)
	return out
}

var messageWord = regexp.MustCompile(`MSG-[A-Za-z0-9-]+`)

func messages(stderr string) []string {
	out := messageWord.FindAllString(stderr, -1)
	sort.Strings(out)
	return out
}

// TestTFTestJSONDifferential compares `terraform test -json` with `tether
// test -json` on a few cases: the same messages of the same kinds, for the
// same files and runs, with the same progress and statuses, in the same
// order (the version line, timings and the repeated "running" progress
// aside). With -verbose, each run's
// plan or state is compared too: its resource changes and their actions,
// its resources, outputs and providers with their types.
func TestTFTestJSONDifferential(t *testing.T) {
	tools := differentialTools(t)
	for _, c := range []struct {
		name    string
		verbose bool
	}{{"asserts", true}, {"plan_only", true}, {"module_run", false}, {"bad_run_reference", false}, {"cleanup_order", false}} {
		name := c.name
		args := []string{"test", "-json"}
		if c.verbose {
			name += "_verbose"
			args = append(args, "-verbose")
		}
		t.Run(name, func(t *testing.T) {
			tf, tt := twoSides(t, tools, filepath.Join("testdata", "tftest", c.name))
			tf.Run("get", "-no-color")
			tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult { return s.Run(args...) })
			a, b := jsonEvents(t, tfRes.Stdout), jsonEvents(t, ttRes.Stdout)
			if len(a) < 3 {
				t.Fatalf("terraform printed too few JSON lines:\n%s", tfRes)
			}
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("-json lines differ:\nterraform:\n%s\n\ntether:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
			if tfRes.Code != ttRes.Code {
				t.Errorf("exit codes differ: terraform %d, tether %d", tfRes.Code, ttRes.Code)
			}
		})
	}
}

// jsonEvents is each JSON line but the version as "type file run message
// progress status", with a diagnostic's summary for its message.
func jsonEvents(t *testing.T, stdout string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m struct {
			Type     string `json:"type"`
			Message  string `json:"@message"`
			File     string `json:"@testfile"`
			Run      string `json:"@testrun"`
			TestFile *struct {
				Progress, Status string
			} `json:"test_file"`
			TestRun *struct {
				Progress, Status string
			} `json:"test_run"`
			Summary map[string]any `json:"test_summary"`
			Plan    *verboseDoc    `json:"test_plan"`
			State   *verboseDoc    `json:"test_state"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if m.Type == "version" {
			continue
		}
		if m.TestRun != nil && m.TestRun.Progress == "running" {
			// terraform test repeats a run's progress on a timer while it
			// runs (every 2 s), so how many there are depends on the
			// machine's load.
			continue
		}
		ev := []string{m.Type, m.File, m.Run, m.Message}
		for _, p := range []*struct{ Progress, Status string }{m.TestFile, m.TestRun} {
			if p != nil {
				ev = append(ev, p.Progress, p.Status)
			}
		}
		if m.Summary != nil {
			ev = append(ev, fmt.Sprint(m.Summary))
		}
		for _, d := range []*verboseDoc{m.Plan, m.State} {
			if d != nil {
				ev = append(ev, d.String())
			}
		}
		out = append(out, strings.Join(ev, " | "))
	}
	return out
}

// verboseDoc is what the differential compares of a test_plan or
// test_state message: the addresses and actions of the resource changes,
// the state's resources, the outputs, and the providers' schemas by their
// resource and data source types.
type verboseDoc struct {
	PlanFormat  string `json:"plan_format_version"`
	StateFormat string `json:"state_format_version"`
	Changes     []struct {
		Address string `json:"address"`
		Change  struct {
			Actions []string `json:"actions"`
		} `json:"change"`
	} `json:"resource_changes"`
	OutputChanges map[string]any `json:"output_changes"`
	RootModule    struct {
		Resources []struct {
			Address string `json:"address"`
		} `json:"resources"`
	} `json:"root_module"`
	Outputs   map[string]any `json:"outputs"`
	Providers map[string]struct {
		Resources   map[string]any `json:"resource_schemas"`
		DataSources map[string]any `json:"data_source_schemas"`
	} `json:"provider_schemas"`
}

func (d *verboseDoc) String() string {
	var parts []string
	for _, c := range d.Changes {
		parts = append(parts, c.Address+":"+strings.Join(c.Change.Actions, ","))
	}
	for _, r := range d.RootModule.Resources {
		parts = append(parts, r.Address)
	}
	parts = append(parts, "outputs "+strings.Join(e2e.SortedNames(d.OutputChanges), ",")+strings.Join(e2e.SortedNames(d.Outputs), ","))
	for _, name := range e2e.SortedNames(d.Providers) {
		p := d.Providers[name]
		parts = append(parts, name+" "+strings.Join(e2e.SortedNames(p.Resources), ",")+" "+strings.Join(e2e.SortedNames(p.DataSources), ","))
	}
	return d.PlanFormat + d.StateFormat + " " + strings.Join(parts, " ")
}
