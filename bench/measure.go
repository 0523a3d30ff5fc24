package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Steps measured for each shape, size and tool, in the order they run.
const (
	stepApply   = "first apply"
	stepPlan    = "no-op plan"
	stepChange  = "change one"
	stepDestroy = "destroy"
)

var allSteps = []string{stepApply, stepPlan, stepChange, stepDestroy}

// measurement is one command's cost.
type measurement struct {
	Wall   time.Duration
	CPU    time.Duration // user + system, the process and its children
	MaxRSS int64         // bytes; peak resident set of the process
	// Err says why the step has no figures; NA marks a configuration the
	// tool refused as unsupported.
	Err string
	NA  bool
}

func (m measurement) ok() bool { return m.Err == "" && !m.NA }

// tool runs one infrastructure-as-code tool on a configuration folder.
type tool struct {
	name    string // "tether" or "terraform"
	bin     string
	resType string
	env     []string
	// args for each step; init, when set, runs once per folder, unmeasured.
	init  []string
	steps map[string][]string
	// observe, when set, is called with the pid of each command once it
	// has started; the function it returns, once the command has exited.
	observe func(pid int) func()
}

// tetherConfigHome, when set, is the user configuration folder tether runs
// with (XDG_CONFIG_HOME), where it keeps a key for each state it makes.
var tetherConfigHome string

func newTether(bin string, parallelism int) *tool {
	par := []string{}
	if parallelism > 0 {
		par = []string{"--parallelism", fmt.Sprint(parallelism)}
	}
	return &tool{
		name: "tether", bin: bin, resType: "tether_value",
		env: tetherEnv(),
		steps: map[string][]string{
			stepApply:   append([]string{"up", "--yes"}, par...),
			stepPlan:    append([]string{"plan", "--detailed-exitcode"}, par...),
			stepChange:  append([]string{"up", "--yes"}, par...),
			stepDestroy: append([]string{"destroy", "--yes"}, par...),
		},
	}
}

// newTerraform runs terraform with an empty CLI configuration of its own
// (no plugin cache, no credentials, no dev overrides from the user's) and
// without update checks, so that it needs no network: terraform_data is
// built into terraform, and init of local modules only copies paths.
func newTerraform(bin, cliConfig string, parallelism int) *tool {
	par := []string{}
	if parallelism > 0 {
		par = []string{fmt.Sprintf("-parallelism=%d", parallelism)}
	}
	common := []string{"-input=false", "-no-color"}
	env := append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
	)
	return &tool{
		name: "terraform", bin: bin, resType: "terraform_data", env: env,
		init: append([]string{"init"}, common...),
		steps: map[string][]string{
			stepApply:   concat([]string{"apply", "-auto-approve"}, common, par),
			stepPlan:    concat([]string{"plan", "-detailed-exitcode"}, common, par),
			stepChange:  concat([]string{"apply", "-auto-approve"}, common, par),
			stepDestroy: concat([]string{"destroy", "-auto-approve"}, common, par),
		},
	}
}

// tetherEnv is the environment tether runs with: this process's, without
// colour, with tetherConfigHome when set.
func tetherEnv() []string {
	env := append(os.Environ(), "NO_COLOR=1")
	if tetherConfigHome != "" {
		env = append(env, "XDG_CONFIG_HOME="+tetherConfigHome)
	}
	return env
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// expect is the line a successful step must print, so that a run that
// did something other than intended is an error, not a fast figure.
func expect(step string, n int) string {
	switch step {
	case stepApply:
		return fmt.Sprintf("Resources: %d added, 0 changed, 0 destroyed.", n)
	case stepChange:
		return "Resources: 0 added, 1 changed, 0 destroyed."
	case stepDestroy:
		return fmt.Sprintf("Resources: %d destroyed.", n)
	}
	return ""
}

// run runs one step in dir and measures it. Output goes to a log file in
// dir; on failure the measurement's Err quotes its end.
func (t *tool) run(ctx context.Context, dir, step string, n int, timeout time.Duration) measurement {
	return t.exec(ctx, dir, step, t.steps[step], expect(step, n), timeout)
}

func (t *tool) exec(ctx context.Context, dir, label string, args []string, want string, timeout time.Duration) measurement {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	logPath := filepath.Join(dir, fmt.Sprintf("%s-%s.log", t.name, strings.ReplaceAll(label, " ", "-")))
	logf, err := os.Create(logPath)
	if err != nil {
		return measurement{Err: err.Error()}
	}
	defer logf.Close()
	var stderr tailBuffer
	cmd := exec.CommandContext(ctx, t.bin, args...)
	cmd.Dir = dir
	cmd.Env = t.env
	cmd.Stdin = nil
	cmd.Stdout = logf
	cmd.Stderr = io.MultiWriter(logf, &stderr)
	ownProcessGroup(cmd)
	start := time.Now()
	err = cmd.Start()
	if err == nil {
		done := func() {}
		if t.observe != nil {
			done = t.observe(cmd.Process.Pid)
		}
		err = cmd.Wait()
		done()
	}
	m := measurement{Wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		m.CPU = ps.UserTime() + ps.SystemTime()
		m.MaxRSS = maxRSS(ps)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		m.Err = fmt.Sprintf("%s %s: stopped after %s", t.name, label, timeout)
		if ctx.Err() == context.Canceled {
			m.Err = fmt.Sprintf("%s %s: interrupted", t.name, label)
		}
	case errors.As(err, &exit) && label == stepPlan && exit.ExitCode() == 2:
		m.Err = fmt.Sprintf("%s plan: the plan after apply is not empty (see %s)", t.name, logPath)
	case err != nil:
		msg := stderr.String()
		if strings.Contains(msg, "not supported yet") {
			m.NA = true
		}
		m.Err = fmt.Sprintf("%s %s: %v: %s", t.name, label, err, lastLines(msg, 6))
	case want != "" && !logEndsWith(logPath, want):
		m.Err = fmt.Sprintf("%s %s: output lacks %q (see %s)", t.name, label, want, logPath)
	}
	return m
}

// logEndsWith reports whether the last 64 KiB of the file hold s.
func logEndsWith(path, s string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const tail = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		f.Seek(fi.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return bytes.Contains(b, []byte(s))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// tailBuffer keeps the first and last few KiB written to it: enough for an
// error message, bounded however much a tool prints.
type tailBuffer struct {
	head, tail []byte
}

const tailKeep = 8 << 10

func (b *tailBuffer) Write(p []byte) (int, error) {
	if room := tailKeep - len(b.head); room > 0 {
		b.head = append(b.head, p[:min(room, len(p))]...)
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > tailKeep {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-tailKeep:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	if len(b.tail) < tailKeep {
		return string(b.tail)
	}
	return string(b.head) + "\n...\n" + string(b.tail)
}
