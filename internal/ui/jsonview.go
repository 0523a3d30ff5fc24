package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/tetherhq/tether/internal/marks"
	"github.com/tetherhq/tether/internal/plan"
)

// JSONView writes Terraform's machine-readable UI, the JSON lines `terraform
// plan -json` and `apply -json` print (UI format 1.2): one object per line
// with @level, @message, @module, @timestamp and a type (version,
// diagnostic, planned_change, resource_drift, change_summary,
// apply_start, apply_progress, apply_complete, apply_errored, outputs).
// It is safe for concurrent use.
type JSONView struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	// out gathers the lines of operations (Event), one or two a
	// resource, until Flush or any other line.
	out batch
	// msg is where an operation's message is made, under mu.
	msg []byte
}

// NewJSONView returns a view writing to w.
func NewJSONView(w io.Writer) *JSONView {
	v := &JSONView{w: w, now: time.Now}
	v.out = batch{w: w, mu: &v.mu}
	return v
}

// Flush writes the lines of operations still gathered; any other line
// writes them first.
func (v *JSONView) Flush() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.out.stop()
}

// UIVersion is the version of the machine-readable UI format written.
const UIVersion = "1.2"

func (v *JSONView) write(level, message, typ string, fields map[string]any) {
	v.writeLine(level, message, typ, fields, false)
}

// writeLine writes one message, or with gathered set adds it to the lines
// of operations that batch writes in time.
func (v *JSONView) writeLine(level, message, typ string, fields map[string]any, gathered bool) {
	line := map[string]any{
		"@level": level, "@message": message, "@module": "tether.ui",
		"@timestamp": v.now().UTC().Format(timestampLayout), "type": typ,
	}
	for k, f := range fields {
		line[k] = f
	}
	raw, err := json.Marshal(line)
	if err != nil {
		raw, _ = json.Marshal(map[string]any{"@level": "error", "@message": "cannot encode a message: " + err.Error(), "type": "log"})
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.out.pending = append(v.out.pending, raw...)
	if gathered {
		v.out.ended()
		return
	}
	v.out.pending = append(v.out.pending, '\n')
	v.out.stop()
}

// Version writes the first line: which tool and UI format.
func (v *JSONView) Version(tool, terraform string) {
	v.write("info", "Tether "+tool, "version", map[string]any{"tether": tool, "terraform": terraform, "ui": UIVersion})
}

// Line writes a message of another kind than this view's own (terraform
// test's test_file, test_run, test_summary), with its fields.
func (v *JSONView) Line(level, message, typ string, fields map[string]any) {
	v.write(level, message, typ, fields)
}

// Diagnostics writes one line per diagnostic.
func (v *JSONView) Diagnostics(diags hcl.Diagnostics, sources map[string][]byte) {
	v.DiagnosticsWith(diags, sources, nil)
}

// DiagnosticsWith is Diagnostics with more fields on each line (terraform
// test's @testfile and @testrun).
func (v *JSONView) DiagnosticsWith(diags hcl.Diagnostics, sources map[string][]byte, extra map[string]any) {
	for _, d := range diags {
		level, sev, prefix := "error", "error", "Error: "
		if d.Severity == hcl.DiagWarning {
			level, sev, prefix = "warn", "warning", "Warning: "
		}
		diag := map[string]any{"severity": sev, "summary": d.Summary, "detail": d.Detail}
		if a := address(d); a != "" {
			diag["address"] = a
		}
		if d.Subject != nil {
			r := d.Subject
			diag["range"] = map[string]any{
				"filename": r.Filename,
				"start":    map[string]int{"line": r.Start.Line, "column": r.Start.Column, "byte": r.Start.Byte},
				"end":      map[string]int{"line": r.End.Line, "column": r.End.Column, "byte": r.End.Byte},
			}
			if src, ok := sources[r.Filename]; ok && r.Start.Byte <= len(src) {
				start := strings.LastIndexByte(string(src[:r.Start.Byte]), '\n') + 1
				end := strings.IndexByte(string(src[r.Start.Byte:]), '\n')
				if end < 0 {
					end = len(src)
				} else {
					end += r.Start.Byte
				}
				diag["snippet"] = map[string]any{
					"context": nil, "code": string(src[start:end]), "start_line": r.Start.Line,
					"highlight_start_offset": r.Start.Byte - start, "highlight_end_offset": min(r.End.Byte, end) - start,
					"values": []any{},
				}
			}
		}
		fields := map[string]any{"diagnostic": diag}
		for k, x := range extra {
			fields[k] = x
		}
		v.write(level, prefix+d.Summary, "diagnostic", fields)
	}
}

// resource is the resource object of a change or hook.
func resource(address, typ string) map[string]any { return resourceOf(address, typ).object() }

func changeAction(a plan.Action) string {
	switch {
	case a == plan.NoOp:
		return "noop"
	case a.IsReplace():
		return "replace"
	}
	return a.String()
}

// Plan writes a plan: drift, each change, the summary and the outputs.
func (v *JSONView) Plan(p *plan.Plan) {
	// A change's or drift's line, one a resource, is gathered with the
	// others, all written by the summary's line at the latest.
	v.mu.Lock()
	for _, d := range p.Drift {
		action := changeAction(d.Action)
		msg := append(append(append(append(v.msg[:0], d.Addr...), ": Drift detected ("...), action...), ')')
		v.gather(msg, opLine{level: "info", typ: "resource_drift", object: "change", address: d.Addr, rtype: d.Type, action: action})
	}
	v.mu.Unlock()
	if p.RefreshOnly {
		v.summary("plan", 0, 0, 0, 0, "refresh-only plan")
		return
	}
	v.mu.Lock()
	for _, c := range p.Changes {
		if c.Action == plan.NoOp && c.Importing == "" {
			continue
		}
		l := opLine{level: "info", typ: "planned_change", object: "change", address: c.Addr, rtype: c.Type,
			action: changeAction(c.Action), reason: hookReason(c), importing: c.Importing, imports: c.Importing != ""}
		if c.Action == plan.NoOp {
			l.action = "import"
		}
		v.gather(append(append(append(v.msg[:0], c.Addr...), ": Plan to "...), plannedVerb(l.action)...), l)
	}
	v.mu.Unlock()
	for _, d := range p.Deferred {
		v.write("info", fmt.Sprintf("%s: Deferred until %s is known", d.Addr, d.WaitingOn), "log",
			map[string]any{"deferred": map[string]any{"addr": d.Addr, "reason": d.Reason(), "waiting_on": d.WaitingOn}})
	}
	add, change, destroy := p.Summary()
	op := "plan"
	if p.Destroy {
		op = "destroy"
	}
	v.summary(op, add, change, destroy, p.Imports(), "")
	if len(p.Outputs) > 0 {
		outs := map[string]any{}
		for _, o := range p.Outputs {
			outs[o.Name] = map[string]any{"sensitive": o.Sensitive, "action": changeAction(o.Action)}
		}
		v.write("info", fmt.Sprintf("Outputs: %d", len(outs)), "outputs", map[string]any{"outputs": outs})
	}
}

// Round opens a round of up that plans and applies what the plan before
// deferred: Terraform's format has no such round, so it is a log message
// with the round's number; its planned_change, change_summary, outputs
// and apply lines follow as for the first.
func (v *JSONView) Round(n int) {
	v.write("info", fmt.Sprintf("Planning what was deferred, now that its inputs are known (round %d)", n), "log",
		map[string]any{"round": n})
}

// plannedVerb is the verb of a planned change's message, for its action.
func plannedVerb(action string) string {
	switch action {
	case "create", "update", "replace", "delete", "read", "forget", "import":
		return action
	}
	return ""
}

func hookReason(c *plan.ResourceChange) string {
	switch {
	case c.Tainted:
		return "tainted"
	case c.Requested:
		return "requested"
	case c.Action.IsReplace() && len(c.RequiresReplace) > 0:
		return "cannot_update"
	case c.Action.IsReplace():
		return "replace_by_triggers"
	case c.Action == plan.Delete && c.Reason == plan.ReasonEnabledFalse:
		return "delete_because_enabled_false" // OpenTofu's
	case c.Action == plan.Delete && strings.Contains(c.Reason, "key"):
		return "delete_because_each_key"
	case c.Action == plan.Delete && c.Reason != "":
		return "delete_because_no_resource_config"
	}
	return ""
}

func (v *JSONView) summary(op string, add, change, destroy, imported int, special string) {
	var msg string
	switch op {
	case "plan":
		msg = fmt.Sprintf("Plan: %d to add, %d to change, %d to destroy.", add, change, destroy)
		if imported > 0 {
			msg = fmt.Sprintf("Plan: %d to import, %d to add, %d to change, %d to destroy.", imported, add, change, destroy)
		}
		if special != "" {
			msg = "Plan: refresh-only, nothing to add, change or destroy."
		}
	case "destroy":
		msg = fmt.Sprintf("Plan: %d to add, %d to change, %d to destroy.", add, change, destroy)
	case "apply":
		msg = ImportSummary(imported, add, change, destroy)
	case "destroyed":
		op, msg = "destroy", DestroySummary(destroy)
	}
	v.write("info", msg, "change_summary", map[string]any{"changes": map[string]any{
		"add": add, "change": change, "import": imported, "remove": destroy, "operation": op}})
}

// Applied writes the summary of an apply (or a destroy) and its outputs.
func (v *JSONView) Applied(destroy bool, imported, added, changed, destroyed int, outputs map[string]cty.Value) {
	if destroy {
		v.summary("destroyed", 0, 0, destroyed, 0, "")
		return
	}
	v.summary("apply", added, changed, destroyed, imported, "")
	outs := map[string]any{}
	for name, val := range outputs {
		u, _ := val.UnmarkDeep()
		o := map[string]any{"sensitive": marks.ContainsSensitive(val)}
		if ty, err := ctyjson.MarshalType(u.Type()); err == nil {
			o["type"] = json.RawMessage(ty)
		}
		if !marks.ContainsSensitive(val) && u.IsWhollyKnown() {
			if raw, err := ctyjson.Marshal(u, u.Type()); err == nil {
				o["value"] = json.RawMessage(raw)
			}
		}
		outs[name] = o
	}
	v.write("info", fmt.Sprintf("Outputs: %d", len(outs)), "outputs", map[string]any{"outputs": outs})
}

// Event writes one step of an operation: apply_start, apply_complete or
// apply_errored.
func (v *JSONView) Event(e plan.Event) {
	if e.Action.IsReplace() {
		// Terraform reports a replacement as its delete and its create.
		if e.Step == plan.NoOp {
			return
		}
		e.Action = e.Step
	}
	if e.Action == plan.NoOp {
		v.refreshEvent(e)
		return
	}
	if e.Phase == plan.Failed {
		hook := map[string]any{"resource": resource(e.Addr, ""), "action": changeAction(e.Action), "elapsed_seconds": int(e.Elapsed.Seconds())}
		kind := "apply"
		if e.Action == plan.Open || e.Action == plan.Close {
			kind = "ephemeral_op"
		}
		v.write("error", strings.SplitN(finishLine(e), ":", 3)[0]+": "+failedWord(e.Action)+" errored after "+e.Elapsed.Truncate(time.Second).String(), kind+"_errored", map[string]any{"hook": hook})
		return
	}
	// Terraform's messages for ephemeral resources are ephemeral_op_*.
	l := opLine{level: "info", object: "hook", address: e.Addr, action: changeAction(e.Action), typ: eventType(e.Action == plan.Open || e.Action == plan.Close, e.Phase)}
	v.mu.Lock()
	defer v.mu.Unlock()
	msg := v.msg[:0]
	switch {
	case e.Phase == plan.Started && e.Action == plan.Read:
		// Terraform's JSON words for a data source read are a refresh's.
		msg = append(append(msg, e.Addr...), ": Refreshing..."...)
	case e.Phase == plan.Started:
		msg = appendStartLine(msg, e)
	case e.Action == plan.Read:
		msg = appendID(appendAfter(append(append(msg, e.Addr...), ": Refresh complete"...), e.Elapsed), e.ID)
	default:
		msg = appendFinishLine(msg, e)
	}
	if e.Phase == plan.Succeeded {
		l.elapsed, l.timed = int(e.Elapsed.Seconds()), true
	}
	if e.Phase == plan.Started || e.Action != plan.Delete {
		l.id = e.ID
	}
	v.gather(msg, l)
}

// gather adds an operation's line, its message in msg, to those written
// in time. It must be called with mu held.
func (v *JSONView) gather(msg []byte, l opLine) {
	v.msg = msg
	if len(msg) == 0 {
		return
	}
	l.message = msg
	v.out.pending = appendOpLine(v.out.pending, v.now(), l)
	v.out.ended()
}

// refreshEvent writes refresh_start and refresh_complete, Terraform's
// messages for reading a recorded object back during a plan. A failed
// refresh has no message of its own: its diagnostic says it.
func (v *JSONView) refreshEvent(e plan.Event) {
	l := opLine{level: "info", object: "hook", address: e.Addr, id: e.ID}
	v.mu.Lock()
	defer v.mu.Unlock()
	msg := v.msg[:0]
	switch e.Phase {
	case plan.Started:
		l.typ, msg = "refresh_start", appendStartLine(msg, e)
	case plan.Succeeded:
		l.typ, msg = "refresh_complete", appendID(append(append(msg, e.Addr...), ": Refresh complete"...), e.ID)
	}
	v.gather(msg, l)
}

// Heartbeat writes apply_progress for an operation still running.
func (v *JSONView) Heartbeat(address string, action plan.Action, elapsed time.Duration) {
	hook := map[string]any{"resource": resource(address, ""), "action": changeAction(action), "elapsed_seconds": int(elapsed.Seconds())}
	line := stillLine(address, action, elapsed)
	if action == plan.Read {
		line = fmt.Sprintf("%s: Still refreshing... [%s elapsed]", address, elapsed.Truncate(time.Second))
	}
	v.write("info", line, "apply_progress", map[string]any{"hook": hook})
}

func failedWord(a plan.Action) string {
	switch {
	case a == plan.Create:
		return "Creation"
	case a == plan.Update:
		return "Modifications"
	case a == plan.Delete:
		return "Destruction"
	case a == plan.Open:
		return "Opening"
	case a == plan.Close:
		return "Closing"
	case a.IsReplace():
		return "Replacement"
	}
	return "Refresh"
}

// stillLine is the heartbeat of a long operation, as Terraform prints it.
func stillLine(address string, a plan.Action, elapsed time.Duration) string {
	verb := "creating"
	switch {
	case a == plan.Update:
		verb = "modifying"
	case a == plan.Delete:
		verb = "destroying"
	case a == plan.Read:
		verb = "reading"
	case a.IsReplace():
		verb = "replacing"
	}
	return fmt.Sprintf("%s: Still %s... [%s elapsed]", address, verb, elapsed.Truncate(time.Second))
}
