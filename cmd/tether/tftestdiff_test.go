package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
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
			tf.run("get", "-no-color")
			tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
				args := []string{"test", "-no-color"}
				return s.run(append(args, extra...)...)
			})
			if tfRes.err != nil || ttRes.err != nil {
				t.Fatalf("running the tests:\n%s\n%s", tfRes, ttRes)
			}
			report := func(what string, a, b any) {
				t.Errorf("%s differ:\nterraform: %q\ntether:    %q\n\n%s\n\n%s", what, a, b, tfRes, ttRes)
			}
			if tfRes.code != ttRes.code {
				report("exit codes", tfRes.code, ttRes.code)
			}
			if a, b := progressLines(tfRes.stdout), progressLines(ttRes.stdout); strings.Join(a, "\n") != strings.Join(b, "\n") {
				report("progress lines", a, b)
			}
			if a, b := errorSummaries(tfRes.stderr), errorSummaries(ttRes.stderr); strings.Join(a, "|") != strings.Join(b, "|") {
				report("error summaries", a, b)
			}
			if a, b := messages(tfRes.stderr), messages(ttRes.stderr); strings.Join(a, " ") != strings.Join(b, " ") {
				report("assertion messages", a, b)
			}
			for _, s := range []side{tf, tt} {
				files, err := readTree(filepath.Join(s.dir, "out"))
				if err != nil {
					t.Fatal(err)
				}
				if len(files) > 0 {
					t.Errorf("after %s test, out/ still holds %s", s.name, strings.Join(sortedNames(files), ", "))
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
var errorLine = regexp.MustCompile(`(?m)^│?\s*Error: (?:\S+:\d+:\d+: )?(?:[a-z][\w.\["\]-]*: )?(.*)$`)

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
