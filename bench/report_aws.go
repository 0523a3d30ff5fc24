package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// awsTable reports the aws-plan shape: each tool's init and plan, then,
// for each size, the comparison and the floor.
func (r *report) awsTable(b *strings.Builder) {
	if len(r.awsCases) == 0 && r.awsMissing == "" {
		return
	}
	b.WriteString("## Real provider: aws-plan\n\n")
	if r.awsMissing != "" {
		fmt.Fprintf(b, "Skipped: %s.\n\n", r.awsMissing)
		return
	}
	cores := runtime.NumCPU()
	fmt.Fprintf(b, "N pairs of `aws_s3_bucket` and `aws_iam_policy` (the policy's `jsonencode`d document refers to the bucket's `arn`), "+
		"planned from scratch through hashicorp/aws %s from the filesystem mirror %s: in a fresh folder, `init`, then "+
		"`terraform plan -input=false -refresh=false` or `tether plan`. ", r.aws.prov.version, r.aws.prov.mirror)
	b.WriteString("Wall and CPU are the tool's, CPU including the provider processes it reaped. " +
		"Peak is the largest sum of the resident sets of the tool and its provider processes, sampled from /proc every 20 ms; " +
		"provider peak is the largest of one provider process. ")
	if r.aws.wrapped {
		b.WriteString("Provider CPU is the user+system time of every provider process the step ran, from each one's rusage " +
			"(the harness stands in for the provider's executable in a mirror of the same layout, runs the real one, and records its rusage when it exits). ")
	}
	fmt.Fprintf(b, "The floor is the provider's CPU for the calls of a plan divided by the %d cores: no engine can plan faster than the provider answers them. "+
		"After its plan, tether plans again in the same folder (\"plan again\"), with the provider's schema kept by the first plan "+
		"(the AWS provider declares GetProviderSchemaOptional, so a client may skip that call), then once more with the provider's logging off (%s): "+
		"left on, as both tools leave it, the provider writes every step at trace level as JSON to stderr, for the tool to parse and drop. "+
		"The floor is the provider's CPU in that last plan, which makes only the calls a plan needs and does nothing else; "+
		"without that run, it is the least provider CPU of the two tools' plans. "+
		"Every HTTP(S) proxy variable points at a local trap that counts and refuses connections; \"net\" is that count. "+
		"Load is the machine's one-minute load average as the plan ended (the machine is shared; at a load above its %d cores, wall times stretch).\n\n",
		cores, "`"+strings.Join(quietProvider, " ")+"`", cores)

	b.WriteString("| pairs | resources | tool | init s | plan wall s | plan CPU s | provider CPU s | provider processes | tool's own CPU s | peak MiB | tool peak MiB | provider peak MiB | net | load |\n")
	b.WriteString("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, c := range r.awsCases {
		if c.missing != "" {
			notes = append(notes, fmt.Sprintf("- %d pairs: %s", c.pairs, c.missing))
			continue
		}
		for _, x := range []struct{ tool, step, label string }{
			{"terraform", awsPlan, "terraform"}, {"tether", awsPlan, "tether"},
			{"tether", awsAgain, "tether, plan again"}, {"tether", awsQuiet, "tether, plan again, provider logging off"},
		} {
			tool := x.tool
			init, iok := c.get(tool, awsInit)
			plan, pok := c.get(tool, x.step)
			if !iok || (x.step != awsPlan && !pok) {
				continue
			}
			initCell := secs(init.Wall)
			if x.step != awsPlan {
				initCell = ""
			}
			row := []string{strconv.Itoa(c.pairs), strconv.Itoa(2 * c.pairs), x.label, initCell}
			switch {
			case !init.ok():
				row = append(row, "init failed", "", "", "", "", "", "", "", "", "")
				notes = append(notes, fmt.Sprintf("- %d pairs, %s init: %s", c.pairs, tool, oneLine(init.Err)))
			case !pok || !plan.ok():
				row = append(row, "failed", "", "", "", "", "", "", "", "", "")
				if pok {
					notes = append(notes, fmt.Sprintf("- %d pairs, %s %s: %s", c.pairs, tool, x.step, oneLine(plan.Err)))
				}
			default:
				pcpu := plan.providerCPU()
				row = append(row, secs(plan.Wall), secs(plan.CPU), cpuCell(pcpu, r.aws.wrapped), strconv.Itoa(len(plan.Providers)),
					cpuCell(plan.CPU-pcpu, r.aws.wrapped), mibCell(plan.MaxRSS), mibCell(plan.ToolPeak), mibCell(plan.ProviderPeak), strconv.FormatInt(init.Net+plan.Net, 10), fmt.Sprintf("%.1f", plan.Load))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
	if len(notes) > 0 {
		b.WriteString("Failures:\n\n" + strings.Join(notes, "\n") + "\n\n")
	}

	// The tools' own processes apart from the providers: the provider's
	// share of a total is the same for any engine.
	b.WriteString("| pairs | TF/tether plan wall | each round | tether ÷ TF peak memory | tether ÷ TF own process peak | floor s | tether wall / floor | TF wall / floor | tether again: wall / floor | tether again, logging off: wall / floor |\n")
	b.WriteString("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range r.awsCases {
		tf, tt, ok := c.plans()
		if !ok {
			continue
		}
		floor := c.floor(cores)
		row := []string{strconv.Itoa(c.pairs), ratio(tf.Wall.Seconds() / tt.Wall.Seconds()), roundsCell(c.roundRatios()), "", ""}
		if tf.MaxRSS > 0 && tt.MaxRSS > 0 {
			row[3] = fmt.Sprintf("%.2f", float64(tt.MaxRSS)/float64(tf.MaxRSS))
		}
		if tf.ToolPeak > 0 && tt.ToolPeak > 0 {
			row[4] = fmt.Sprintf("%.2f", float64(tt.ToolPeak)/float64(tf.ToolPeak))
		}
		if floor > 0 {
			row = append(row, secs(floor), fmt.Sprintf("%.2f", tt.Wall.Seconds()/floor.Seconds()), fmt.Sprintf("%.2f", tf.Wall.Seconds()/floor.Seconds()))
			for _, step := range []string{awsAgain, awsQuiet} {
				cell := ""
				if q, ok := c.get("tether", step); ok && q.ok() {
					cell = fmt.Sprintf("%.2f", q.Wall.Seconds()/floor.Seconds())
				}
				row = append(row, cell)
			}
		} else {
			row = append(row, "—", "", "", "", "")
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func cpuCell(d time.Duration, known bool) string {
	if !known {
		return "—"
	}
	return secs(d)
}

func mibCell(b int64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", mib(b))
}

// plans are both tools' successful plans.
func (c *awsCase) plans() (tf, tt awsStep, ok bool) {
	tf, fok := c.get("terraform", awsPlan)
	tt, tok := c.get("tether", awsPlan)
	return tf, tt, fok && tok && tf.ok() && tt.ok()
}

// floor is the provider's CPU in tether's plan with the provider's logging
// off, or else the least provider CPU of the tools' plans, over the cores;
// 0 when not known.
func (c *awsCase) floor(cores int) time.Duration {
	if m, ok := c.get("tether", awsQuiet); ok && m.ok() && len(m.Providers) > 0 {
		return m.providerCPU() / time.Duration(max(1, cores))
	}
	var least time.Duration
	for _, tool := range []string{"terraform", "tether"} {
		m, ok := c.get(tool, awsPlan)
		if !ok || !m.ok() || len(m.Providers) == 0 {
			continue
		}
		if p := m.providerCPU(); least == 0 || p < least {
			least = p
		}
	}
	return least / time.Duration(max(1, cores))
}

// roundRatios are Terraform's plan wall over Tether's in each round, the
// two plans having run one after the other: on a shared machine whose
// speed drifts from minute to minute, each pair meets the same conditions,
// which the medians of the two tools, taken apart, do not.
func (c *awsCase) roundRatios() []float64 {
	tf, tt := c.byTool["terraform"][awsPlan], c.byTool["tether"][awsPlan]
	var out []float64
	for i := range min(len(tf), len(tt)) {
		if tf[i].ok() && tt[i].ok() && tt[i].Wall > 0 {
			out = append(out, tf[i].Wall.Seconds()/tt[i].Wall.Seconds())
		}
	}
	return out
}

// roundsCell lists ratios in the order of the rounds.
func roundsCell(xs []float64) string {
	cells := make([]string, len(xs))
	for i, x := range xs {
		cells[i] = ratio(x)
	}
	return strings.Join(cells, ", ")
}

func (r *report) findAWS(pairs int) *awsCase {
	for _, c := range r.awsCases {
		if c.pairs == pairs {
			return c
		}
	}
	return nil
}

// awsTargets are the targets for aws-plan at 1,000 pairs.
func (r *report) awsTargets(row func(target, measured, status string), verdict func(bool) string) {
	const pairs = 1000
	how := "not measured in this run (--sizes aws-plan=1000)"
	targets := []string{
		"aws-plan, 1,000 pairs: Tether ≥ 3× faster than Terraform",
		"aws-plan, 1,000 pairs: Tether's peak memory < ⅓ of Terraform's (providers included)",
		"aws-plan, 1,000 pairs: Tether's wall within 1.5× of the floor",
	}
	c := r.findAWS(pairs)
	if r.awsMissing != "" {
		how = "skipped: " + r.awsMissing
	}
	if c == nil {
		for _, t := range targets {
			row(t, "", how)
		}
		return
	}
	tf, tt, ok := c.plans()
	if !ok {
		for _, t := range targets {
			row(t, "", "failed")
		}
		return
	}
	x := tf.Wall.Seconds() / tt.Wall.Seconds()
	row(targets[0], fmt.Sprintf("terraform %s s, tether %s s: %s (each round: %s)", secs(tf.Wall), secs(tt.Wall), ratio(x), roundsCell(c.roundRatios())), verdict(x >= 3))
	if tf.MaxRSS > 0 && tt.MaxRSS > 0 {
		m := float64(tt.MaxRSS) / float64(tf.MaxRSS)
		row(targets[1], fmt.Sprintf("tether %.0f MiB, terraform %.0f MiB: %.2f", mib(tt.MaxRSS), mib(tf.MaxRSS), m), verdict(m < 1.0/3))
	} else {
		row(targets[1], "", "not measured (no /proc)")
	}
	if floor := c.floor(runtime.NumCPU()); floor > 0 {
		f := tt.Wall.Seconds() / floor.Seconds()
		row(targets[2], fmt.Sprintf("tether %s s, floor %s s: %.2f", secs(tt.Wall), secs(floor), f), verdict(f <= 1.5))
	} else {
		row(targets[2], "", "not measured (providers' rusage unknown)")
	}
}

// grpcTable compares the built-in provider in process and as a plugin.
func (r *report) grpcTable(b *strings.Builder) {
	if len(r.grpc) == 0 {
		return
	}
	b.WriteString("## Built-in provider out of process (gRPC)\n\n")
	o := r.grpc[0].override
	if o.checked {
		fmt.Fprintf(b, "`tether up` with a CLI configuration whose `dev_overrides` names a folder holding `terraform-provider-tether` "+
			"(a script running `tether provider serve`) for tetherhq/tether: %s. ", o.detail)
	}
	b.WriteString("Each row is a first apply through `internal/engine` in the harness's process, as `tether up` does it without its output: " +
		"start (the provider, with its schema), load (`hclconfig.Load` and the state), plan and apply. " +
		"Plugin: `internal/plugin.Start` on the plugin, one process for the run; its CPU is from its rusage once reaped, its peak its high-water mark. " +
		"Logging off: the same with the plugin's terraform-plugin-go logging off (`" + strings.Join(quietProvider, " ") + "`); " +
		"left on, the server writes several lines of JSON a call at trace level to stderr, which go-plugin on the client side reads and parses before dropping them.\n\n")
	b.WriteString("Calls: the provider calls of each kind the engine made, per resource. Machine load: the one-minute load average as the run ended " +
		"(the machine has " + strconv.Itoa(runtime.NumCPU()) + " cores; above that, wall times stretch)")
	if r.runs > 1 {
		fmt.Fprintf(b, ". Each row is the median by total time of %d runs, the modes taking turns", r.runs)
	}
	b.WriteString(".\n\n")
	b.WriteString("| shape | N | provider | start s | load s | plan s | apply s | total s | engine CPU s | plugin CPU s | plugin peak MiB | plugin ÷ in process | calls per resource | machine load |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, g := range r.grpc {
		for _, x := range []struct {
			mode string
			run  engineRun
		}{{"in process", g.inProcess}, {"plugin", g.plugin}, {"plugin, logging off", g.quiet}} {
			row := []string{g.c.shape, strconv.Itoa(g.c.n), x.mode}
			if x.run.err != "" {
				row = append(row, "failed: "+oneLine(x.run.err), "", "", "", "", "", "", "", "", "", "")
			} else {
				row = append(row, fmt.Sprintf("%.3f", x.run.start.Seconds()), fmt.Sprintf("%.3f", x.run.load.Seconds()),
					fmt.Sprintf("%.3f", x.run.plan.Seconds()), fmt.Sprintf("%.3f", x.run.apply.Seconds()), fmt.Sprintf("%.2f", x.run.total().Seconds()),
					secs(x.run.engineCPU))
				if x.mode != "in process" {
					row = append(row, secs(x.run.providerCPU), mibCell(x.run.providerPeak))
					if g.inProcess.err == "" {
						row = append(row, ratio(x.run.total().Seconds()/g.inProcess.total().Seconds()))
					} else {
						row = append(row, "")
					}
				} else {
					row = append(row, "", "", "")
				}
				row = append(row, x.run.calls.perResource(g.c.n), fmt.Sprintf("%.1f", x.run.loadAvg))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
	for _, g := range r.grpc {
		if !g.upRun {
			continue
		}
		if !g.up.ok() {
			fmt.Fprintf(b, "`tether up --yes` of %s:%d with the plugin through dev_overrides: failed: %s\n\n", g.c.shape, g.c.n, oneLine(g.up.Err))
			continue
		}
		loads := make([]string, len(g.upLoads))
		for i, l := range g.upLoads {
			loads[i] = fmt.Sprintf("%.1f", l)
		}
		fmt.Fprintf(b, "`tether up --yes` of %s:%d with the plugin through dev_overrides (the command as a user runs it, output included): "+
			"%s s of wall, %s s of CPU (tether and the plugin), peak %s MiB (tether alone), at loads of %s.\n\n",
			g.c.shape, g.c.n, secs(g.up.Wall), secs(g.up.CPU), mibCell(g.up.MaxRSS), strings.Join(loads, ", "))
	}
}

func (r *report) grpcTargets(row func(target, measured, status string), verdict func(bool) string) {
	const target = "10,000 wide, first apply through the plugin (gRPC) < 5 s"
	for _, g := range r.grpc {
		if g.c.shape != shapeWide || g.c.n != 10000 {
			continue
		}
		if g.plugin.err != "" {
			row(target, "", "failed")
			return
		}
		measured := fmt.Sprintf("%.2f s (in process %.2f s", g.plugin.total().Seconds(), g.inProcess.total().Seconds())
		if g.quiet.err == "" {
			measured += fmt.Sprintf("; plugin with its logging off %.2f s", g.quiet.total().Seconds())
		}
		row(target, measured+")", verdict(g.plugin.total() < 5*time.Second))
		return
	}
	row(target, "", "not measured in this run (--grpc wide:10000)")
}
