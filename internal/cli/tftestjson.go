package cli

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/tftest"
	"github.com/tetherhq/tether/internal/ui"
)

// tftestJSON is tether test -json: terraform test's machine-readable
// lines (test_abstract, test_file, test_run, diagnostic, test_summary).
type tftestJSON struct{ v *ui.JSONView }

func (j tftestJSON) Abstract(files []*tftest.File) {
	abstract := map[string][]string{}
	runs := 0
	for _, f := range files {
		names := []string{}
		for _, r := range f.Runs {
			names = append(names, r.Name)
		}
		abstract[f.Name] = names
		runs += len(names)
	}
	j.v.Line("info", fmt.Sprintf("Found %d %s and %d %s", len(files), plural(len(files), "file"), runs, plural(runs, "run block")),
		"test_abstract", map[string]any{"test_abstract": abstract})
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func (j tftestJSON) File(name string, p tftest.Progress, st tftest.Status) {
	body := map[string]any{"path": name, "progress": string(p)}
	msg := name + "... in progress"
	switch p {
	case tftest.Teardown:
		msg = name + "... tearing down"
	case tftest.Complete:
		msg = name + "... " + st.String()
		body["status"] = st.Name()
	}
	j.v.Line("info", msg, "test_file", map[string]any{"@testfile": name, "test_file": body})
}

func (j tftestJSON) Run(file, run string, p tftest.Progress, st tftest.Status) {
	body := map[string]any{"path": file, "run": run, "progress": string(p)}
	msg := fmt.Sprintf("  %q... in progress", run)
	switch p {
	case tftest.Teardown:
		msg = fmt.Sprintf("  %q... tearing down", run)
		body["elapsed"] = 0
	case tftest.Complete:
		msg = fmt.Sprintf("  %q... %s", run, st)
		body["status"] = st.Name()
	default:
		body["elapsed"] = 0
	}
	j.v.Line("info", msg, "test_run", map[string]any{"@testfile": file, "@testrun": run, "test_run": body})
}

func (j tftestJSON) Diagnostics(file, run string, diags hcl.Diagnostics, sources map[string][]byte) {
	extra := map[string]any{}
	if file != "" {
		extra["@testfile"] = file
	}
	if run != "" {
		extra["@testrun"] = run
	}
	j.v.DiagnosticsWith(diags, sources, extra)
}

// Verbose writes the run's plan (test_plan) or, after an apply, its
// state (test_state): the executor makes doc the JSON document.
func (j tftestJSON) Verbose(file, run string, applied bool, doc string) {
	kind, what := "test_plan", "plan"
	if applied {
		kind, what = "test_state", "state"
	}
	j.v.Line("info", "-verbose flag enabled, printing "+what, kind,
		map[string]any{"@testfile": file, "@testrun": run, kind: json.RawMessage(doc)})
}

func (j tftestJSON) Summary(st tftest.Status, c tftest.Counts) {
	j.v.Line("info", tftest.SummaryMessage(st, c), "test_summary", map[string]any{"test_summary": map[string]any{
		"status": st.Name(), "passed": c.Passed, "failed": c.Failed, "errored": c.Errored, "skipped": c.Skipped,
	}})
}
