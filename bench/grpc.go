package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// The gRPC cases run a shape's first apply with the built-in provider in
// process and served out of process (`tether provider serve` as a plugin,
// through internal/plugin), to show what the plugin protocol costs.
//
// `tether up` would be the natural thing to time, with a CLI
// configuration whose dev_overrides sends tetherhq/tether to the plugin;
// the harness checks whether tether honours that override and, as long as
// it does not, times the engine directly instead, as the latency cases do.

const defaultGRPCCases = "wide:10000"

type grpcCase struct {
	shape string
	n     int
}

func (c grpcCase) String() string { return fmt.Sprintf("%s:%d", c.shape, c.n) }

func parseGRPCCases(s string) ([]grpcCase, error) {
	var out []grpcCase
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		shape, ns, ok := strings.Cut(part, ":")
		n, err := strconv.Atoi(ns)
		if !ok || err != nil || n < 1 || !slices.Contains(allShapes, shape) {
			return nil, fmt.Errorf("gRPC case %q: want SHAPE:N with SHAPE one of %s", part, strings.Join(allShapes, ", "))
		}
		out = append(out, grpcCase{shape: shape, n: n})
	}
	return out, nil
}

// engineRun is one first apply through the engine, in phases.
type engineRun struct {
	start, load, plan, apply time.Duration // start: the provider's, with its schema
	engineCPU                time.Duration // this process's CPU over the run
	providerCPU              time.Duration // the plugin process's, from its rusage (reaped)
	providerPeak             int64         // the plugin process's high-water mark
	calls                    *callCounts   // the provider calls the engine made
	loadAvg                  float64       // the machine's one-minute load average at the end
	err                      string
}

// callCounts are the resource calls an engine made to its provider, by
// kind: over gRPC, each is one request.
type callCounts struct {
	validate, plan, apply, read, upgrade atomic.Int64
}

// perResource says how many calls of each kind a resource cost, for n
// resources: "validate 1, plan 2, apply 1".
func (c *callCounts) perResource(n int) string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, k := range []struct {
		name string
		v    *atomic.Int64
	}{{"validate", &c.validate}, {"plan", &c.plan}, {"apply", &c.apply}, {"read", &c.read}, {"upgrade", &c.upgrade}} {
		if v := k.v.Load(); v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.3g", k.name, float64(v)/float64(n)))
		}
	}
	return strings.Join(parts, ", ")
}

// counting is a provider that counts the resource calls it passes on.
type counting struct {
	provider.Provider
	c *callCounts
}

func (p counting) ValidateResourceConfig(t string, v cty.Value) hcl.Diagnostics {
	p.c.validate.Add(1)
	return p.Provider.ValidateResourceConfig(t, v)
}

func (p counting) PlanResourceChange(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	p.c.plan.Add(1)
	return p.Provider.PlanResourceChange(ctx, req)
}

func (p counting) ApplyResourceChange(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	p.c.apply.Add(1)
	return p.Provider.ApplyResourceChange(ctx, req)
}

func (p counting) ReadResource(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	p.c.read.Add(1)
	return p.Provider.ReadResource(ctx, req)
}

func (p counting) UpgradeResourceState(ctx context.Context, req provider.UpgradeRequest) provider.UpgradeResponse {
	p.c.upgrade.Add(1)
	return p.Provider.UpgradeResourceState(ctx, req)
}

func (r engineRun) total() time.Duration { return r.start + r.load + r.plan + r.apply }

// grpcResult compares the two ways of running the built-in provider.
type grpcResult struct {
	c                 grpcCase
	inProcess, plugin engineRun
	// quiet is the plugin with its logging off (quietProvider).
	quiet engineRun
	// override says whether `tether up` used the plugin that a CLI
	// configuration's dev_overrides named for tetherhq/tether.
	override overrideCheck
	// up is `tether up --yes` with that plugin, when override was
	// honoured (upRun): its CPU is tether's and the plugin's. upLoads are
	// the machine's load averages as each run ended.
	up      measurement
	upRun   bool
	upLoads []float64
}

type overrideCheck struct {
	checked, honoured bool
	detail            string
}

// grpcPluginDir writes DIR/terraform-provider-tether, a script that runs
// `tether provider serve` and notes each start in DIR/started, and
// DIR/quiet/terraform-provider-tether, which runs it with its logging off.
func grpcPluginDir(tmp, tetherBin string) (string, error) {
	dir := filepath.Join(tmp, "grpc-plugin")
	if err := os.MkdirAll(filepath.Join(dir, "quiet"), 0o755); err != nil {
		return "", err
	}
	script := fmt.Sprintf("#!/bin/sh\necho $$ >> %q\nexec %q provider serve \"$@\"\n", filepath.Join(dir, "started"), tetherBin)
	if err := os.WriteFile(filepath.Join(dir, "terraform-provider-tether"), []byte(script), 0o755); err != nil {
		return "", err
	}
	quiet := fmt.Sprintf("#!/bin/sh\nexport %s\nexec %q provider serve \"$@\"\n", strings.Join(quietProvider, " "), tetherBin)
	return dir, os.WriteFile(filepath.Join(dir, "quiet", "terraform-provider-tether"), []byte(quiet), 0o755)
}

// checkDevOverride runs `tether up --yes` on one tether_value with a CLI
// configuration that overrides tetherhq/tether with the plugin, and looks
// for the plugin's start.
func (h *harness) checkDevOverride(ctx context.Context, pluginDir string) overrideCheck {
	dir, err := h.caseDir("grpc-override")
	if err != nil {
		return overrideCheck{detail: err.Error()}
	}
	defer os.RemoveAll(dir)
	main := "resource \"tether_value\" \"a\" {\n  input = \"x\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o644); err != nil {
		return overrideCheck{detail: err.Error()}
	}
	t, err := overridden(h.tetherBin, 0, dir, pluginDir)
	if err != nil {
		return overrideCheck{detail: err.Error()}
	}
	started := filepath.Join(pluginDir, "started")
	os.Remove(started)
	m := t.run(ctx, dir, stepApply, 1, h.timeout)
	if !m.ok() {
		return overrideCheck{checked: true, detail: "tether up failed: " + m.Err}
	}
	if _, err := os.Stat(started); err == nil {
		return overrideCheck{checked: true, honoured: true, detail: "tether up started the plugin"}
	}
	return overrideCheck{checked: true, detail: "tether up ran the built-in provider in process: the plugin was never started, and no warning about dev_overrides was printed"}
}

// overridden is tether run in dir, which it prepares, with a CLI
// configuration whose dev_overrides sends tetherhq/tether to the plugin
// script in pluginDir: dir gets the CLI configuration and a
// required_providers naming tetherhq/tether.
func overridden(bin string, parallelism int, dir, pluginDir string) (*tool, error) {
	rc := filepath.Join(dir, "tetherrc")
	text := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"tetherhq/tether\" = %q\n  }\n  direct {}\n}\n", pluginDir)
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		return nil, err
	}
	req := "terraform {\n  required_providers {\n    tether = { source = \"tetherhq/tether\" }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "versions.tf"), []byte(req), 0o644); err != nil {
		return nil, err
	}
	t := newTether(bin, parallelism)
	t.env = append(t.env, "TF_CLI_CONFIG_FILE="+rc)
	return t, nil
}

// runGRPC runs the case --runs times in each mode, the modes taking turns
// so that a change in the machine's load falls on all of them, and keeps
// each mode's run of median total time (or its first failure). Where
// tether honours the dev override (override), each turn also times `tether
// up --yes` with the plugin.
func (h *harness) runGRPC(ctx context.Context, c grpcCase, pluginDir string, override overrideCheck) grpcResult {
	r := grpcResult{c: c, override: override}
	modes := []string{"in process", "plugin", "quiet"}
	runs := map[string][]*engineRun{}
	var ups []measurement
	for i := range h.runs {
		for _, mode := range modes {
			if ctx.Err() != nil {
				break
			}
			runs[mode] = append(runs[mode], h.grpcRun(ctx, c, pluginDir, mode, i))
		}
		if override.honoured && ctx.Err() == nil {
			m, load := h.grpcUp(ctx, c, pluginDir, i)
			ups = append(ups, m)
			r.upLoads = append(r.upLoads, load)
		}
	}
	if m, ok := median(ups, func(m measurement) measurement { return m }); ok {
		r.up, r.upRun = m, true
	}
	for _, mode := range modes {
		run := &r.inProcess
		switch mode {
		case "plugin":
			run = &r.plugin
		case "quiet":
			run = &r.quiet
		}
		if m := medianRun(runs[mode]); m != nil {
			*run = *m
		} else {
			run.err = "not run"
		}
	}
	return r
}

// grpcUp times `tether up --yes` of the case, the provider served by the
// plugin through dev_overrides, and returns the machine's load as it ended.
func (h *harness) grpcUp(ctx context.Context, c grpcCase, pluginDir string, i int) (measurement, float64) {
	dir, err := h.caseDir(fmt.Sprintf("grpc-%s-%d-up-%d", c.shape, c.n, i))
	if err == nil {
		err = generate(dir, spec{shape: c.shape, n: c.n, layers: h.layers, perFile: h.perFile, resType: "tether_value", changed: -1})
	}
	var t *tool
	if err == nil {
		t, err = overridden(h.tetherBin, h.parallelism, dir, pluginDir)
	}
	if err != nil {
		return measurement{Err: err.Error()}, 0
	}
	m := t.run(ctx, dir, stepApply, c.n, h.timeout)
	load := loadAverage()
	if !h.keep {
		os.RemoveAll(dir)
	}
	return m, load
}

// grpcRun is one first apply of the case in one mode.
func (h *harness) grpcRun(ctx context.Context, c grpcCase, pluginDir, mode string, i int) *engineRun {
	dir, err := h.caseDir(fmt.Sprintf("grpc-%s-%d-%s-%d", c.shape, c.n, strings.ReplaceAll(mode, " ", "-"), i))
	exe := ""
	switch mode {
	case "plugin":
		exe = filepath.Join(pluginDir, "terraform-provider-tether")
	case "quiet":
		exe = filepath.Join(pluginDir, "quiet", "terraform-provider-tether")
	}
	if err == nil {
		err = generate(dir, spec{shape: c.shape, n: c.n, layers: h.layers, perFile: h.perFile, resType: "tether_value", changed: -1})
	}
	if err != nil {
		return &engineRun{err: err.Error()}
	}
	run := engineApply(ctx, dir, c.n, h.parallelism, exe)
	if !h.keep {
		os.RemoveAll(dir)
	}
	return run
}

// medianRun is the run of median total time, or the first failed one.
func medianRun(runs []*engineRun) *engineRun {
	if len(runs) == 0 {
		return nil
	}
	for _, r := range runs {
		if r.err != "" {
			return r
		}
	}
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b *engineRun) int { return cmp.Compare(a.total(), b.total()) })
	return s[len(s)/2]
}

// engineApply plans and applies the configuration in dir against a fresh
// state, as `tether up` does without its output: the provider in process
// when pluginExe is "", else that plugin, one process for the whole run.
func engineApply(ctx context.Context, dir string, n, parallelism int, pluginExe string) *engineRun {
	r := &engineRun{calls: &callCounts{}}
	cpu0, child0 := selfCPU(), childrenCPU()
	source := config.BuiltinSource.String()

	t := time.Now()
	var prov provider.Provider
	var sampler *treeSampler
	if pluginExe == "" {
		prov = tetherprovider.New()
	} else {
		before := childPids()
		p, err := plugin.Start(ctx, pluginExe)
		if err != nil {
			r.err = err.Error()
			return r
		}
		prov = p
		for pid := range childPids() {
			if !before[pid] {
				sampler = sampleTree(pid, "")
			}
		}
	}
	var closeOnce sync.Once
	closeProv := func() {
		closeOnce.Do(func() {
			if sampler != nil {
				sampler.finish()
				r.providerPeak = sampler.ownPeak()
			}
			prov.Close()
		})
	}
	defer closeProv()
	schema, diags := prov.GetSchema()
	if diags.HasErrors() {
		r.err = firstError(diags).Error()
		return r
	}
	r.start = time.Since(t)

	t = time.Now()
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{source: schema}})
	if diags.HasErrors() {
		r.err = firstError(diags).Error()
		return r
	}
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer store.Close()
	r.load = time.Since(t)

	eng := &engine.Engine{
		Providers: provider.Factory{
			Schema: func(s string) (*provider.Schema, error) {
				if s != source {
					return nil, fmt.Errorf("provider %s is not available; only %s is", s, source)
				}
				return schema, nil
			},
			Start: func(s string) (provider.Provider, error) {
				if s != source {
					return nil, fmt.Errorf("provider %s is not available; only %s is", s, source)
				}
				return counting{Provider: prov, c: r.calls}, nil
			},
		},
		Store:       store,
		Parallelism: parallelism,
	}
	t = time.Now()
	planned, diags := eng.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		r.err = firstError(diags).Error()
		return r
	}
	r.plan = time.Since(t)
	t = time.Now()
	res, diags := eng.Apply(ctx, planned)
	r.apply = time.Since(t)
	if diags.HasErrors() {
		r.err = firstError(diags).Error()
		return r
	}
	if res.Added != n {
		r.err = fmt.Sprintf("apply added %d resources, want %d", res.Added, n)
	}
	closeProv()
	r.engineCPU = selfCPU() - cpu0
	r.providerCPU = childrenCPU() - child0
	r.loadAvg = loadAverage()
	return r
}

// childPids are this process's children now.
func childPids() map[int]bool {
	out := map[int]bool{}
	for _, pid := range descendantsOf(os.Getpid()) {
		out[pid] = true
	}
	return out
}

// descendantsOf is every process below pid (not pid itself).
func descendantsOf(pid int) []int {
	if !treeSampling {
		return nil
	}
	return descendants(pid)[1:]
}
