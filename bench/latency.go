package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/engine"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/state"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// latencyCase is one latency-bound measurement: every resource's apply
// takes delay, so the apply can finish no sooner than its lower bound.
type latencyCase struct {
	shape       string
	n           int
	parallelism int // 0: tether's default
}

func (c latencyCase) String() string {
	s := fmt.Sprintf("%s:%d", c.shape, c.n)
	if c.parallelism > 0 {
		s += fmt.Sprintf(":%d", c.parallelism)
	}
	return s
}

// parseLatencyCases reads SHAPE:N[:P],... .
func parseLatencyCases(s string) ([]latencyCase, error) {
	var out []latencyCase
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, ":")
		if len(f) < 2 || len(f) > 3 || !validShape(f[0]) {
			return nil, fmt.Errorf("latency case %q: want SHAPE:N or SHAPE:N:PARALLELISM", part)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("latency case %q: bad size", part)
		}
		c := latencyCase{shape: f[0], n: n}
		if len(f) == 3 {
			if c.parallelism, err = strconv.Atoi(f[2]); err != nil || c.parallelism < 1 {
				return nil, fmt.Errorf("latency case %q: bad parallelism", part)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// latencyResult compares an apply's makespan with its lower bound.
type latencyResult struct {
	c           latencyCase
	delay       time.Duration
	parallelism int // in effect
	depth       int
	bound       time.Duration
	// makespan is Engine.Apply alone, in process: from the first
	// operation's start to the last one's commit, plus the engine's own
	// overhead around them.
	makespan time.Duration
	// endToEnd is `tether up --yes` as a process: loading, planning,
	// rendering and applying.
	endToEnd measurement
	err      string
	na       bool
}

func (r latencyResult) ratio() float64 { return r.makespan.Seconds() / r.bound.Seconds() }

// lowerBound is the longest chain's total delay, and with P operations at
// once, ceil(N/P) rounds of delay.
func lowerBound(depth, n, parallelism int, delay time.Duration) time.Duration {
	rounds := max(depth, (n+parallelism-1)/parallelism)
	return time.Duration(rounds) * delay
}

func (h *harness) runLatency(ctx context.Context, c latencyCase) latencyResult {
	r := latencyResult{c: c, delay: time.Duration(h.delayMS) * time.Millisecond, parallelism: c.parallelism}
	if r.parallelism == 0 {
		r.parallelism = h.parallelism
	}
	if r.parallelism == 0 {
		r.parallelism = engine.DefaultParallelism
	}
	r.depth = depth(c.shape, c.n, h.layers)
	if c.shape == shapeModules {
		r.depth = 1
	}
	r.bound = lowerBound(r.depth, c.n, r.parallelism, r.delay)
	sp := spec{shape: c.shape, n: c.n, layers: h.layers, perFile: h.perFile, resType: "tether_value", delayMS: h.delayMS, changed: -1}

	dir, err := h.caseDir("latency-" + c.String())
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	if err := generate(dir, sp); err != nil {
		r.err = err.Error()
		return r
	}
	r.makespan, r.na, err = inProcessApply(ctx, dir, c.n, r.parallelism)
	if r.na {
		return r
	}
	if err != nil {
		r.err = err.Error()
		return r
	}

	// The same apply as a process, from a fresh state.
	if err := os.RemoveAll(filepath.Join(dir, ".tether")); err != nil {
		r.err = err.Error()
		return r
	}
	t := newTether(h.tetherBin, r.parallelism)
	r.endToEnd = t.run(ctx, dir, stepApply, c.n, h.timeout)
	return r
}

// inProcessApply plans the configuration in dir against a fresh state and
// times Engine.Apply.
func inProcessApply(ctx context.Context, dir string, n, parallelism int) (time.Duration, bool, error) {
	prov := tetherprovider.New()
	defer prov.Close()
	schema, diags := prov.GetSchema()
	if diags.HasErrors() {
		return 0, false, diags
	}
	cfg, diags := hclconfig.Load(dir, hclconfig.Options{Schemas: map[string]*provider.Schema{config.BuiltinSource.String(): schema}})
	if diags.HasErrors() {
		return 0, unsupported(diags), firstError(diags)
	}
	store, err := state.OpenSQLite(filepath.Join(dir, ".tether", "state.db"))
	if err != nil {
		return 0, false, err
	}
	defer store.Close()
	eng := &engine.Engine{
		Providers:   provider.Only(config.BuiltinSource.String(), func() provider.Provider { return prov }),
		Store:       store,
		Parallelism: parallelism,
	}
	planned, diags := eng.Plan(ctx, cfg, engine.PlanOptions{})
	if diags.HasErrors() {
		return 0, false, firstError(diags)
	}
	start := time.Now()
	res, diags := eng.Apply(ctx, planned)
	makespan := time.Since(start)
	if diags.HasErrors() {
		return 0, false, firstError(diags)
	}
	if res.Added != n {
		return 0, false, fmt.Errorf("apply added %d resources, want %d", res.Added, n)
	}
	return makespan, false, nil
}

func unsupported(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if strings.Contains(d.Summary, "not supported yet") {
			return true
		}
	}
	return false
}

func firstError(diags hcl.Diagnostics) error {
	errs := diags.Errs()
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 1 {
		return fmt.Errorf("%v (and %d more)", errs[0], len(errs)-1)
	}
	return errs[0]
}
