package tether

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/provider"
)

const (
	// DefaultTestTimeout bounds a test that gives no timeout.
	DefaultTestTimeout = time.Minute
	maxTestTimeout     = time.Hour
	// maxTestOutput is how much of a test's output is kept, from its end,
	// which is where failures are reported.
	maxTestOutput = 64 << 10
)

// testerResource records a set of named end-to-end tests. It starts
// nothing: `tether test` deploys the configuration, reads the tests from
// state (where every value they use is known) and runs them.
type testerResource struct{}

func testerResourceSchema() *provider.ResourceSchema {
	return &provider.ResourceSchema{Closures: provider.ClosureTests, Block: &provider.Block{
		Description: "A set of named end-to-end tests, each a command that passes when it exits 0. `tether test` deploys the configuration to a state of its own, runs every tester's tests in name order, and destroys what it deployed. up and destroy only record them.",
		Attributes: map[string]*provider.Attribute{
			"env": {
				Type:        cty.Map(cty.String),
				Optional:    true,
				Description: "Environment variables set for every test, such as the captured properties they read: env = { TETHER_ROUTER_MAIN_URL = tether_router.main.url }.",
			},
			"id": {
				Type:        cty.String,
				Computed:    true,
				Description: "Random identifier assigned at creation.",
			},
		},
		BlockTypes: map[string]*provider.NestedBlock{
			"test": {
				Nesting: provider.NestingMap,
				Block: provider.Block{
					Description: "One test; the block label is its name.",
					Attributes: map[string]*provider.Attribute{
						"command": {
							Type:        cty.List(cty.String),
							Required:    true,
							Description: "The executable and its arguments, run in the configuration folder. It passes by exiting 0.",
						},
						"env": {
							Type:        cty.Map(cty.String),
							Optional:    true,
							Description: "Environment variables for this test, on top of the tester's env.",
						},
						"timeout": {
							Type:        cty.String,
							Optional:    true,
							Description: "How long the test may run, as a Go duration such as \"30s\"; it fails when it runs longer. Defaults to \"1m\".",
						},
					},
				},
			},
		},
	}}
}

func (testerResource) validate(config cty.Value) hcl.Diagnostics {
	var diags hcl.Diagnostics
	diags = append(diags, validateEnv("env", attr(config, "env"))...)
	tests := attr(config, "test")
	if tests.IsNull() || !tests.IsKnown() {
		return diags
	}
	for it := tests.ElementIterator(); it.Next(); {
		k, t := it.Element()
		name := k.AsString()
		for _, d := range validateCommand("command", attr(t, "command")) {
			d.Summary, d.Detail = "Invalid test", fmt.Sprintf("In the test %q: %s", name, d.Detail)
			d.Extra = pathExtra{cty.GetAttrPath("test").Index(k).GetAttr("command")}
			diags = append(diags, d)
		}
		for _, d := range validateEnv("env", attr(t, "env")) {
			d.Summary, d.Detail = "Invalid test", fmt.Sprintf("In the test %q: %s", name, d.Detail)
			d.Extra = pathExtra{cty.GetAttrPath("test").Index(k).GetAttr("env")}
			diags = append(diags, d)
		}
		if s, ok := knownString(attr(t, "timeout")); ok {
			if _, err := parseTimeout(s, maxTestTimeout); err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid test",
					Detail:   fmt.Sprintf("In the test %q: the timeout is not valid: %s.", name, strings.TrimSuffix(err.Error(), ".")),
					Extra:    pathExtra{cty.GetAttrPath("test").Index(k).GetAttr("timeout")},
				})
			}
		}
	}
	return diags
}

func (r testerResource) plan(ctx context.Context, req provider.PlanRequest) provider.PlanResponse {
	cfg := req.Config
	if diags := r.validate(cfg); diags.HasErrors() {
		return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: diags}
	}
	// A test whose executable is missing would only fail at `tether
	// test`, after a whole deployment; say so now.
	if tests := attr(cfg, "test"); !tests.IsNull() && tests.IsKnown() {
		for it := tests.ElementIterator(); it.Next(); {
			k, t := it.Element()
			if d := checkCommand("command", attr(t, "command"), cty.NullVal(cty.String)); d != nil {
				d.Summary, d.Detail = "Invalid test", fmt.Sprintf("In the test %q: %s", k.AsString(), d.Detail)
				d.Extra = pathExtra{cty.GetAttrPath("test").Index(k).GetAttr("command")}
				return provider.PlanResponse{PlannedState: req.ProposedNewState, Diagnostics: hcl.Diagnostics{d}}
			}
		}
	}
	id := cty.UnknownVal(cty.String)
	if !req.PriorState.IsNull() {
		id = attr(req.PriorState, "id")
	}
	return provider.PlanResponse{PlannedState: testerObject(cfg, id)}
}

func testerObject(cfg, id cty.Value) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"env":  attr(cfg, "env"),
		"test": attr(cfg, "test"),
		"id":   id,
	})
}

func (r testerResource) apply(ctx context.Context, req provider.ApplyRequest) provider.ApplyResponse {
	planned := req.PlannedState
	if planned.IsNull() {
		return provider.ApplyResponse{NewState: cty.NullVal(req.PriorState.Type())}
	}
	id := attr(planned, "id")
	if !id.IsKnown() || id.IsNull() {
		id = cty.StringVal(newID())
	}
	return provider.ApplyResponse{NewState: testerObject(planned, id)}
}

func (testerResource) read(ctx context.Context, req provider.ReadRequest) provider.ReadResponse {
	return provider.ReadResponse{NewState: req.PriorState, Private: req.Private}
}

func (testerResource) importState(ctx context.Context, id string) provider.ImportResponse {
	return importUnsupported("tether_tester")
}

// TestCase is one test of a tether_tester, as recorded in state.
type TestCase struct {
	Name    string
	Command []string
	// Env is set on top of the environment of the process that runs the
	// test: the tester's env, then the test's own.
	Env     map[string]string
	Timeout time.Duration
}

// TesterTests reads the tests of a recorded tether_tester object, in name
// order. Sensitive marks are dropped: the tests need the values.
func TesterTests(obj cty.Value) ([]TestCase, error) {
	obj, _ = obj.UnmarkDeep()
	if obj.IsNull() || !obj.IsWhollyKnown() || !obj.Type().IsObjectType() {
		return nil, errors.New("the tether_tester object is null or not wholly known")
	}
	common, ok := knownStringMap(attr(obj, "env"))
	if !ok {
		return nil, errors.New("the tester's env is not a map of strings")
	}
	tests := attr(obj, "test")
	if tests.IsNull() {
		return nil, nil
	}
	var out []TestCase
	for it := tests.ElementIterator(); it.Next(); {
		k, t := it.Element()
		name := k.AsString()
		argv, ok := knownStrings(attr(t, "command"))
		if !ok || len(argv) == 0 {
			return nil, fmt.Errorf("test %q has no command", name)
		}
		own, ok := knownStringMap(attr(t, "env"))
		if !ok {
			return nil, fmt.Errorf("the env of test %q is not a map of strings", name)
		}
		env := make(map[string]string, len(common)+len(own))
		for k, v := range common {
			env[k] = v
		}
		for k, v := range own {
			env[k] = v
		}
		timeout := DefaultTestTimeout
		if s, ok := knownString(attr(t, "timeout")); ok {
			d, err := parseTimeout(s, maxTestTimeout)
			if err != nil {
				return nil, fmt.Errorf("test %q: %v", name, err)
			}
			timeout = d
		}
		out = append(out, TestCase{Name: name, Command: argv, Env: env, Timeout: timeout})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// TestResult is how a test went.
type TestResult struct {
	Passed   bool
	Duration time.Duration
	// Output is the test's standard output and error, interleaved, at
	// most the last 64 KiB of it.
	Output []byte
	// Err says why a test failed beyond its own output: it could not
	// start, exited non-zero, or ran past its timeout.
	Err error
}

// RunTest runs one test in the working directory and waits for it, its
// timeout, or ctx. The test runs in a process group of its own, which is
// killed once the test ends, so that nothing a test starts outlives it.
func RunTest(ctx context.Context, tc TestCase) TestResult {
	start := time.Now()
	if !runtimeSupported {
		return TestResult{Err: errNoRuntime}
	}
	if len(tc.Command) == 0 {
		return TestResult{Err: errors.New("the test has no command")}
	}
	if err := lookCommand(tc.Command[0], ""); err != nil {
		return TestResult{Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, tc.Timeout)
	defer cancel()
	out := &tailBuffer{max: maxTestOutput}
	cmd, err := startRetrying(func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, tc.Command[0], tc.Command[1:]...)
		cmd.Env = childEnv(tc.Env)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = grouped()
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
		// A grandchild holding the output pipe must not keep the test alive.
		cmd.WaitDelay = 2 * time.Second
		return cmd
	})
	if err == nil {
		err = cmd.Wait()
		killGroup(cmd.Process.Pid)
	}
	res := TestResult{Duration: time.Since(start), Output: out.bytes()}
	switch {
	case err == nil:
		res.Passed = true
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Err = fmt.Errorf("timed out after %s", tc.Timeout)
	case ctx.Err() != nil:
		res.Err = fmt.Errorf("interrupted: %v", ctx.Err())
	default:
		res.Err = err
	}
	return res
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

func (b *tailBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return append([]byte("[... earlier output dropped ...]\n"), b.buf...)
	}
	return append([]byte(nil), b.buf...)
}
