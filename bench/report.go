package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type report struct {
	when       time.Time
	args       []string
	machine    string
	tfVersion  string
	tetherRev  string
	tools      []*tool
	cases      []*caseResult
	latency    []latencyResult
	sdk        *sdkResult // nil when not asked for
	aws        *awsSetup  // nil when aws-plan did not run
	awsCases   []*awsCase
	awsMissing string // why aws-plan was skipped
	grpc       []grpcResult
	pg         []pgResult
	delayMS    int
	layers     int
	perFile    int
	runs       int
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func secs(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 10:
		return fmt.Sprintf("%.2f", s)
	case s < 100:
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprintf("%.0f", s)
}

func ratio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

func (r *report) has(tool string) bool {
	for _, t := range r.tools {
		if t.name == tool {
			return true
		}
	}
	return false
}

func (r *report) markdown() string {
	var b strings.Builder
	cmd := "go run ./bench"
	for _, a := range r.args {
		if a == "" || strings.ContainsAny(a, " \t;|&$\"'") {
			a = strconv.Quote(a)
		}
		cmd += " " + a
	}
	fmt.Fprintf(&b, "# Benchmark results\n\n")
	fmt.Fprintf(&b, "Measured by `%s` on %s.\n\n", cmd, r.when.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Machine: %s\n", r.machine)
	fmt.Fprintf(&b, "- Go %s", strings.TrimPrefix(runtime.Version(), "go"))
	if r.tetherRev != "" {
		fmt.Fprintf(&b, "; tether at %s", r.tetherRev)
	}
	if r.tfVersion != "" {
		fmt.Fprintf(&b, "; %s", r.tfVersion)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- Each step is one process (`tether up/plan/destroy`, `terraform apply/plan/destroy`, plan with refresh); "+
		"CPU is user+system; peak is the process's maximum resident set. Ratios are Terraform ÷ Tether. "+
		"Tether uses `tether_value`, Terraform `terraform_data`. Layered: %d layers, each resource depending on %d in the layer above. "+
		"Modules: region (for_each) → service (for_each) → %d resources (for_each).", r.layers, fanIn, leafSize)
	if r.perFile > 0 {
		fmt.Fprintf(&b, " Wide, chain and layered configurations hold %d resources a file.", r.perFile)
	} else {
		b.WriteString(" Each configuration is one main.tf.")
	}
	if r.runs > 1 {
		fmt.Fprintf(&b, " Median of %d runs.", r.runs)
	}
	b.WriteString("\n\n")

	r.stepsTable(&b)
	r.floorTable(&b)
	r.scalingTable(&b)
	r.latencyTable(&b)
	r.grpcTable(&b)
	r.pgTable(&b)
	r.remoteTable(&b)
	r.awsTable(&b)
	r.targetsTable(&b)
	return b.String()
}

func (r *report) stepsTable(b *strings.Builder) {
	if len(r.cases) == 0 {
		return
	}
	b.WriteString("## Steps\n\n")
	b.WriteString("| shape | N | step | tether wall s | tether CPU s | tether peak MiB | terraform wall s | terraform CPU s | terraform peak MiB | TF/tether wall | TF/tether CPU |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range r.cases {
		for _, step := range allSteps {
			row := []string{c.shape, strconv.Itoa(c.n), step}
			tm, tok := c.get("tether", step)
			fm, fok := c.get("terraform", step)
			row = append(row, cells(c, "tether", tm, tok, r.has("tether"))...)
			row = append(row, cells(c, "terraform", fm, fok, r.has("terraform"))...)
			if tok && fok && tm.ok() && fm.ok() {
				row = append(row, ratio(fm.Wall.Seconds()/tm.Wall.Seconds()), ratio(fm.CPU.Seconds()/tm.CPU.Seconds()))
			} else {
				row = append(row, "", "")
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
	var notes []string
	for _, c := range r.cases {
		for _, tool := range []string{"tether", "terraform"} {
			for _, step := range allSteps {
				if m, ok := c.get(tool, step); ok && m.Err != "" && !m.NA {
					notes = append(notes, fmt.Sprintf("- %s %d, %s, %s: %s", c.shape, c.n, tool, step, m.Err))
				}
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("Failures:\n\n" + strings.Join(notes, "\n") + "\n\n")
	}
}

// cells are the wall, CPU and peak cells of one tool for one step.
func cells(c *caseResult, tool string, m measurement, ok, measured bool) []string {
	switch {
	case !measured:
		return []string{"", "", ""}
	case !ok:
		if why, skipped := c.notRun[tool]; skipped {
			return []string{"—", "—", "— " + shortNote(why)}
		}
		return []string{"—", "—", "—"}
	case m.NA:
		return []string{"n/a (unsupported)", "", ""}
	case m.Err != "":
		return []string{"failed", "", ""}
	}
	return []string{secs(m.Wall), secs(m.CPU), fmt.Sprintf("%.0f", mib(m.MaxRSS))}
}

func shortNote(why string) string {
	if strings.HasPrefix(why, "not run above") {
		return "(" + why + ")"
	}
	return ""
}

// scalingTable shows how tether's time grows with size: for each shape and
// step, the ratio of times between consecutive sizes next to the ratio of
// sizes. Linear growth has the two equal.
func (r *report) scalingTable(b *strings.Builder) {
	var rows []string
	for i, c := range r.cases {
		for _, prev := range r.cases[:i] {
			if prev.shape != c.shape || prev.n >= c.n || !consecutive(r.cases, prev, c) {
				continue
			}
			for _, step := range []string{stepApply, stepPlan} {
				a, aok := prev.get("tether", step)
				z, zok := c.get("tether", step)
				if !aok || !zok || !a.ok() || !z.ok() {
					continue
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | %d → %d | %.0f× | %.1f× | %.1f× | %.1f× |", c.shape, step, prev.n, c.n,
					float64(c.n)/float64(prev.n), z.Wall.Seconds()/a.Wall.Seconds(), z.CPU.Seconds()/a.CPU.Seconds(),
					float64(z.MaxRSS)/float64(max(1, a.MaxRSS))))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Tether scaling\n\nGrowth between consecutive sizes: linear cost has the time ratio equal to the size ratio.\n\n")
	b.WriteString("| shape | step | sizes | size ratio | wall ratio | CPU ratio | peak memory ratio |\n|---|---|---|---:|---:|---:|---:|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}

// consecutive reports whether no case of the same shape lies between a
// and z in size.
func consecutive(cases []*caseResult, a, z *caseResult) bool {
	for _, c := range cases {
		if c.shape == a.shape && c.n > a.n && c.n < z.n {
			return false
		}
	}
	return true
}

func (r *report) latencyTable(b *strings.Builder) {
	if len(r.latency) == 0 {
		return
	}
	fmt.Fprintf(b, "## Latency-bound apply\n\nEvery `tether_value` has `delay_ms = %d`. The lower bound is the longest chain's total delay, "+
		"and with parallelism P at least ceil(N/P) rounds of delay. Makespan is `Engine.Apply` in process (every operation, commit and the "+
		"engine's own work); end-to-end is `tether up --yes` as a process, including start-up, load, plan and output.\n\n", r.delayMS)
	b.WriteString("| shape | N | parallelism | longest chain | lower bound s | makespan s | makespan / bound | end-to-end s | end-to-end / bound |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range r.latency {
		row := []string{l.c.shape, strconv.Itoa(l.c.n), strconv.Itoa(l.parallelism), strconv.Itoa(l.depth), secs(l.bound)}
		switch {
		case l.na:
			row = append(row, "n/a (unsupported)", "", "", "")
		case l.err != "":
			row = append(row, "failed: "+l.err, "", "", "")
		default:
			row = append(row, fmt.Sprintf("%.3f", l.makespan.Seconds()), fmt.Sprintf("%.3f", l.ratio()))
			if l.endToEnd.ok() {
				row = append(row, fmt.Sprintf("%.3f", l.endToEnd.Wall.Seconds()), fmt.Sprintf("%.3f", l.endToEnd.Wall.Seconds()/l.bound.Seconds()))
			} else {
				row = append(row, "failed", "")
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func (r *report) find(shape string, n int) *caseResult {
	for _, c := range r.cases {
		if c.shape == shape && c.n == n {
			return c
		}
	}
	return nil
}

// targetsTable checks the targets against what this run measured.
func (r *report) targetsTable(b *strings.Builder) {
	b.WriteString("## Targets\n\n| target | measured | status |\n|---|---|---|\n")
	row := func(target, measured, status string) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", target, measured, status)
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	notMeasured := func(how string) string { return "not measured in this run (" + how + ")" }
	if len(r.cases) > 0 || len(r.latency) > 0 || r.sdk != nil {
		r.resourceTargets(row, verdict, notMeasured)
	}
	if len(r.grpc) > 0 {
		r.grpcTargets(row, verdict)
	}
	if len(r.pg) > 0 {
		r.pgTargets(row, verdict)
		r.remoteTargets(row, verdict)
	}
	if len(r.awsCases) > 0 || r.awsMissing != "" {
		r.awsTargets(row, verdict)
	}
	b.WriteString("\n")
}

// resourceTargets are the targets of the resource-count shapes, the
// latency cases and the Go SDK program.
func (r *report) resourceTargets(row func(target, measured, status string), verdict func(bool) string, notMeasured func(string) string) {

	speedup := func(shape string, n int, target string) {
		c := r.find(shape, n)
		if c == nil {
			row(target, "", notMeasured(fmt.Sprintf("--shapes %s --sizes %d", shape, n)))
			return
		}
		t, tok := c.get("tether", stepApply)
		f, fok := c.get("terraform", stepApply)
		if !tok || !fok || !t.ok() || !f.ok() {
			row(target, "", notMeasured("needs both tools at this size"))
			return
		}
		x := f.Wall.Seconds() / t.Wall.Seconds()
		row(target, fmt.Sprintf("terraform %ss, tether %ss: %s (CPU: %ss, %ss: %s)", secs(f.Wall), secs(t.Wall), ratio(x),
			secs(f.CPU), secs(t.CPU), ratio(f.CPU.Seconds()/t.CPU.Seconds())), verdict(x >= 100))
	}
	speedup(shapeWide, 1000, "1,000 wide, first apply ≥ 100× faster than Terraform")
	speedup(shapeChain, 500, "500 in a chain, first apply ≥ 100× faster than Terraform")

	big := r.find(shapeWide, 100000)
	limit := func(step string, max time.Duration, target string) {
		if big == nil {
			row(target, "", notMeasured("--tools tether --sizes wide=10000,100000"))
			return
		}
		m, ok := big.get("tether", step)
		if !ok || !m.ok() {
			row(target, "", "failed")
			return
		}
		row(target, fmt.Sprintf("%s s (CPU %s s)", secs(m.Wall), secs(m.CPU)), verdict(m.Wall < max))
	}
	limit(stepApply, 20*time.Second, "100,000 wide, first apply < 20 s")
	limit(stepPlan, 10*time.Second, "100,000 wide, no-op plan < 10 s")
	if big != nil {
		var peak int64
		var parts []string
		for _, step := range allSteps {
			if m, ok := big.get("tether", step); ok && m.ok() {
				peak = max(peak, m.MaxRSS)
				parts = append(parts, fmt.Sprintf("%s %.0f", step, mib(m.MaxRSS)))
			}
		}
		if peak > 0 {
			row("100,000 wide, peak memory < 1 GB", fmt.Sprintf("%.0f MiB (%s)", mib(peak), strings.Join(parts, ", ")), verdict(peak < 1e9))
		} else {
			row("100,000 wide, peak memory < 1 GB", "", "failed")
		}
	} else {
		row("100,000 wide, peak memory < 1 GB", "", notMeasured("--tools tether --sizes wide=10000,100000"))
	}
	small := r.find(shapeWide, 10000)
	for _, step := range []string{stepApply, stepPlan} {
		target := fmt.Sprintf("wide, %s: time(100,000) / time(10,000) ≤ 12", step)
		if big == nil || small == nil {
			row(target, "", notMeasured("--tools tether --sizes wide=10000,100000"))
			continue
		}
		a, aok := small.get("tether", step)
		z, zok := big.get("tether", step)
		if !aok || !zok || !a.ok() || !z.ok() {
			row(target, "", "failed")
			continue
		}
		x := z.Wall.Seconds() / a.Wall.Seconds()
		row(target, fmt.Sprintf("%ss / %ss = %.1f (CPU: %.1f)", secs(z.Wall), secs(a.Wall), x, z.CPU.Seconds()/a.CPU.Seconds()), verdict(x <= 12))
	}
	if len(r.latency) == 0 {
		row("makespan with delays within 10% of its lower bound", "", notMeasured("--delay-ms 100"))
	}
	for _, l := range r.latency {
		target := fmt.Sprintf("makespan within 10%% of lower bound: %s, delay %d ms", l.c, r.delayMS)
		switch {
		case l.na:
			row(target, "n/a (unsupported)", "not measured")
		case l.err != "":
			row(target, "", "failed")
		default:
			row(target, fmt.Sprintf("%.3fs / %.3fs = %.3f", l.makespan.Seconds(), l.bound.Seconds(), l.ratio()), verdict(l.ratio() <= 1.10))
		}
	}
	const sdkTarget = "A Go SDK program declaring 10,000 resources builds its graph in < 1 s"
	switch s := r.sdk; {
	case s == nil:
		row(sdkTarget, "", notMeasured("--sdk 10000"))
	case s.missing != "":
		row(sdkTarget, "", "TODO: "+s.missing)
	case !s.build.ok():
		row(sdkTarget, "", "failed: the program did not build: "+oneLine(s.build.Err))
	case !s.graph.ok():
		row(sdkTarget, "", "failed: "+oneLine(s.graph.Err))
	default:
		target := sdkTarget
		if s.n != 10000 {
			target = fmt.Sprintf("A Go SDK program declaring %d resources builds its graph in < 1 s", s.n)
		}
		row(target, fmt.Sprintf("`PROGRAM graph`: %.2f s wall, %.2f s CPU, %.0f MiB peak (go build: %.1f s)",
			s.graph.Wall.Seconds(), s.graph.CPU.Seconds(), mib(s.graph.MaxRSS), s.build.Wall.Seconds()), verdict(s.graph.Wall.Seconds() < 1))
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// describeMachine names the OS, CPU, core count and memory.
func describeMachine() string {
	s := fmt.Sprintf("%s/%s, %d cores", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if model := procField("/proc/cpuinfo", "model name"); model != "" {
		s += " (" + model + ")"
	}
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		if f := strings.Fields(mem); len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
				s += fmt.Sprintf(", %.1f GiB memory", kb/(1<<20))
			}
		}
	}
	return s
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
