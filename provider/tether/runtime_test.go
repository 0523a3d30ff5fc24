package tether

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

// TestMain lets the test binary act as the runtime's router and store, as
// tether does: the provider starts them by running its own executable.
func TestMain(m *testing.M) {
	RuntimeMain()
	os.Exit(m.Run())
}

// rt drives the runtime resources through the harness, with a runtime
// folder of the test's own, and knows the test binary, which can act as a
// function (see TestMain).
type rt struct {
	*providercheck.Harness
	t    *testing.T
	root string
	exe  string
}

func newRT(t *testing.T) *rt {
	t.Helper()
	if !runtimeSupported {
		t.Skip("the local runtime needs a Unix system")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "runtime")
	h := providercheck.New(t, New(), map[string]cty.Value{"runtime_dir": cty.StringVal(root)})
	// Whatever a failing test leaves running is killed, so that a failure
	// never leaks processes into the rest of the run.
	t.Cleanup(func() {
		files, _ := filepath.Glob(filepath.Join(root, "*", processFileName))
		for _, f := range files {
			var pi procInfo
			if readJSON(f, &pi) == nil && pi.running() {
				t.Errorf("process %d (%s) still runs at the end of the test", pi.PID, f)
				killGroup(pi.PID)
			}
		}
	})
	return &rt{Harness: h, t: t, root: root, exe: exe}
}

func (r *rt) echo(extra ...string) cty.Value {
	args := []cty.Value{cty.StringVal(r.exe), cty.StringVal("runtime"), cty.StringVal("echo")}
	for _, a := range extra {
		args = append(args, cty.StringVal(a))
	}
	return cty.ListVal(args)
}

func pidOf(t *testing.T, o *providercheck.Object) int {
	t.Helper()
	v := o.State.GetAttr("pid")
	if v.IsNull() || !v.IsKnown() {
		t.Fatalf("%s has no pid: %#v", o.Type, o.State)
	}
	n, _ := v.AsBigFloat().Int64()
	return int(n)
}

func alive(pid int) bool {
	return (procInfo{PID: pid}).status() == procOurs
}

func get(t *testing.T, method, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// gone checks that destroy left nothing: no process, no listener, no file.
func (r *rt) gone(pid int, url, dir string) {
	r.t.Helper()
	if processExists(pid) && alive(pid) {
		r.t.Errorf("process %d still runs", pid)
	}
	if url != "" && providercheck.Listening(url) {
		r.t.Errorf("%s still accepts connections", url)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		r.t.Errorf("%s still exists", dir)
	}
}

// TestRuntime runs the runtime's expectations in process, with this test
// binary as the function and the router; internal/protocol and
// internal/plugin run the same ones over the plugin protocol.
func TestRuntime(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	providercheck.Run(t, func(t *testing.T) *providercheck.Harness { return newRT(t).Harness },
		providercheck.RuntimeScenarios(exe, "runtime", "echo")...)
}

func TestFunctionLifecycle(t *testing.T) {
	r := newRT(t)
	fn := r.Up("tether_function", nil, map[string]cty.Value{
		"command": r.echo(),
		"env":     cty.MapVal(map[string]cty.Value{"GREETING": cty.StringVal("hi")}),
	})
	url := providercheck.String(t, fn.State, "url")
	pid := pidOf(t, fn)
	if code, body := get(t, "GET", url+"/anything?message=hello"); code != 200 || body != "hello" {
		t.Fatalf("echo answered %d %q", code, body)
	}
	logFile := providercheck.String(t, fn.State, "log_file")
	if !strings.HasPrefix(logFile, r.root) {
		t.Errorf("log_file %s is not under the runtime folder %s", logFile, r.root)
	}

	// Nothing changed: nothing restarts.
	pr := r.Plan("tether_function", fn, map[string]cty.Value{
		"command": r.echo(), "env": cty.MapVal(map[string]cty.Value{"GREETING": cty.StringVal("hi")}),
	})
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !pr.PlannedState.RawEquals(fn.State) {
		t.Fatalf("an unchanged function plans a change: %#v", pr.PlannedState)
	}

	// A changed environment restarts the process on the same port, so
	// that what captured the url keeps working.
	fn2 := r.Up("tether_function", fn, map[string]cty.Value{
		"command": r.echo(),
		"env":     cty.MapVal(map[string]cty.Value{"GREETING": cty.StringVal("hello")}),
	})
	pid2 := pidOf(t, fn2)
	if pid2 == pid || alive(pid) {
		t.Fatalf("the process was not restarted: pids %d and %d", pid, pid2)
	}
	if got := providercheck.String(t, fn2.State, "url"); got != url {
		t.Fatalf("url changed on restart: %s, then %s", url, got)
	}

	// A process that ends outside Tether is drift: pid null, a warning
	// with its last output, and a restart planned on the same port.
	killPID(t, pid2)
	waitFor(context.Background(), 5*time.Second, func() bool { return !alive(pid2) })
	fn3, diags := r.Refresh(fn2)
	if fn3 == nil || !fn3.State.GetAttr("pid").IsNull() {
		t.Fatalf("refresh of a dead function: %#v", fn3)
	}
	if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || !strings.Contains(diags[0].Detail, "listening on") {
		t.Fatalf("refresh diagnostics: %v", diags)
	}
	fn4 := r.Up("tether_function", fn3, map[string]cty.Value{
		"command": r.echo(),
		"env":     cty.MapVal(map[string]cty.Value{"GREETING": cty.StringVal("hello")}),
	})
	if got := providercheck.String(t, fn4.State, "url"); got != url {
		t.Fatalf("url changed on restart after death: %s, then %s", url, got)
	}
	if code, body := get(t, "GET", url+"/?message=again"); code != 200 || body != "again" {
		t.Fatalf("restarted echo answered %d %q", code, body)
	}
	// The log keeps what every start printed.
	b, _ := os.ReadFile(logFile)
	if n := strings.Count(string(b), "--- tether: starting the function"); n != 3 {
		t.Errorf("the log holds %d starts, want 3:\n%s", n, b)
	}

	pid4 := pidOf(t, fn4)
	r.Down(fn4)
	r.gone(pid4, url, filepath.Dir(logFile))
	if _, err := os.Stat(r.root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the empty runtime folder %s was left behind", r.root)
	}
}

func TestFunctionWithoutHTTP(t *testing.T) {
	r := newRT(t)
	sleep, err := lookSleep()
	if err != nil {
		t.Skip(err)
	}
	fn := r.Up("tether_function", nil, map[string]cty.Value{
		"command": cty.ListVal([]cty.Value{cty.StringVal(sleep), cty.StringVal("300")}),
		"http":    cty.False,
	})
	if !fn.State.GetAttr("url").IsNull() || !fn.State.GetAttr("port").IsNull() {
		t.Fatalf("a function without http has a url or port: %#v", fn.State)
	}
	pid := pidOf(t, fn)
	dir := filepath.Dir(providercheck.String(t, fn.State, "log_file"))
	r.Down(fn)
	r.gone(pid, "", dir)
}

func lookSleep() (string, error) {
	for _, p := range []string{"/bin/sleep", "/usr/bin/sleep"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no sleep executable")
}

func TestFunctionBadInput(t *testing.T) {
	r := newRT(t)

	// A command that does not exist is refused at plan, by name.
	_, diags := r.Try("tether_function", nil, map[string]cty.Value{
		"command": cty.ListVal([]cty.Value{cty.StringVal("tether-no-such-command")}),
	})
	providercheck.WantAttrError(t, diags, "command")
	if !strings.Contains(diags.Error(), `"tether-no-such-command" is not on PATH`) {
		t.Errorf("the error does not name the command: %s", diags.Error())
	}
	_, diags = r.Try("tether_function", nil, map[string]cty.Value{
		"command": cty.ListVal([]cty.Value{cty.StringVal("./missing.sh")}),
		"dir":     cty.StringVal(t.TempDir()),
	})
	providercheck.WantAttrError(t, diags, "command")

	// A command that exits at once fails the apply with its output, and
	// leaves no folder.
	o, diags := r.Try("tether_function", nil, map[string]cty.Value{
		"command": cty.ListVal([]cty.Value{cty.StringVal(r.exe), cty.StringVal("runtime"), cty.StringVal("no-such-mode")}),
	})
	if o != nil || !diags.HasErrors() {
		t.Fatalf("a command that exits at once was created: %#v", o)
	}
	if d := diags.Error(); !strings.Contains(d, "exited (exit status 2)") || !strings.Contains(d, `unknown mode "no-such-mode"`) {
		t.Errorf("the error does not say how the process ended and what it printed: %s", d)
	}

	// One that never listens is stopped after start_timeout.
	if sleep, err := lookSleep(); err == nil {
		o, diags = r.Try("tether_function", nil, map[string]cty.Value{
			"command":       cty.ListVal([]cty.Value{cty.StringVal(sleep), cty.StringVal("301")}),
			"start_timeout": cty.StringVal("300ms"),
		})
		if o != nil || !strings.Contains(diags.Error(), "did not listen on 127.0.0.1:") {
			t.Fatalf("a function that never listens: %#v %s", o, diags.Error())
		}
		// The stop is a signal: give the process a moment to be gone
		// (a busy machine schedules its exit late), then it must be.
		pids := processesWithArgs(sleep, "301")
		for deadline := time.Now().Add(10 * time.Second); len(pids) > 0 && time.Now().Before(deadline); pids = processesWithArgs(sleep, "301") {
			time.Sleep(50 * time.Millisecond)
		}
		if len(pids) > 0 {
			t.Errorf("the function that never listened still runs: %v", pids)
		}
	}

	// A port in use is refused at plan.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	_, diags = r.Try("tether_function", nil, map[string]cty.Value{"command": r.echo(), "port": cty.NumberIntVal(int64(taken))})
	providercheck.WantAttrError(t, diags, "port")
	if !strings.Contains(diags.Error(), "in use") {
		t.Errorf("the error does not say the port is in use: %s", diags.Error())
	}

	for _, tc := range []struct {
		attr  string
		attrs map[string]cty.Value
	}{
		{"command", map[string]cty.Value{"command": cty.ListValEmpty(cty.String)}},
		{"command", map[string]cty.Value{"command": cty.ListVal([]cty.Value{cty.StringVal("")})}},
		{"env", map[string]cty.Value{"command": r.echo(), "env": cty.MapVal(map[string]cty.Value{"A=B": cty.StringVal("x")})}},
		{"env", map[string]cty.Value{"command": r.echo(), "env": cty.MapVal(map[string]cty.Value{"PORT": cty.StringVal("8080")})}},
		{"port", map[string]cty.Value{"command": r.echo(), "port": cty.NumberIntVal(0)}},
		{"port", map[string]cty.Value{"command": r.echo(), "port": cty.NumberIntVal(8080), "http": cty.False}},
		{"start_timeout", map[string]cty.Value{"command": r.echo(), "start_timeout": cty.StringVal("soon")}},
		{"dir", map[string]cty.Value{"command": r.echo(), "dir": cty.StringVal("")}},
	} {
		providercheck.WantAttrError(t, r.Provider.ValidateResourceConfig("tether_function", r.Config("tether_function", tc.attrs)), tc.attr)
	}
	if entries, _ := os.ReadDir(r.root); len(entries) > 0 {
		t.Errorf("failed creates left %d folders in the runtime folder", len(entries))
	}
}

// processesWithArgs finds live processes whose command line is exactly
// args, through /proc.
func processesWithArgs(args ...string) []int {
	want := strings.Join(args, "\x00") + "\x00"
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == want && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// A pid that now belongs to another process is never signalled: the start
// time tells them apart.
func TestReusedPidIsLeftAlone(t *testing.T) {
	if !procFSAvailable() {
		t.Skip("needs /proc")
	}
	me := procInfo{PID: os.Getpid(), Start: "1"}
	if s := me.status(); s != procOther {
		t.Fatalf("status of a pid with another start time = %v, want procOther", s)
	}
	if err := stopProcess(context.Background(), me); err != nil {
		t.Fatal(err)
	}
	if identify(os.Getpid()).status() != procOurs {
		t.Fatal("this process does not identify as itself")
	}
}

func TestRuntimeSchema(t *testing.T) {
	p := New()
	s, _ := p.GetSchema()
	for typ, want := range map[string]string{"tether_function": "url", "tether_router": "url", "tether_kv": "endpoint"} {
		rs, _, _ := s.Resources.Get(typ)
		if len(rs.Captured) != 1 || rs.Captured[0] != want {
			t.Errorf("%s captures %v, want [%s]", typ, rs.Captured, want)
		}
		if a := rs.Block.Attributes[want]; a == nil || !a.Computed {
			t.Errorf("%s.%s is not a computed attribute", typ, want)
		}
	}
	for _, typ := range []string{"tether_route", "tether_tester", "tether_file"} {
		if rs, _, _ := s.Resources.Get(typ); len(rs.Captured) != 0 {
			t.Errorf("%s captures %v", typ, rs.Captured)
		}
	}

	providercheck.WantAttrError(t, p.ValidateProviderConfig(providercheck.ConfigOf(s.Provider, map[string]cty.Value{"runtime_dir": cty.StringVal("")})), "runtime_dir")
	// The engine configures an implicit provider with null attributes:
	// that is the default folder, relative to the working directory.
	providercheck.NoErrors(t, "configure", p.ConfigureProvider(context.Background(), providercheck.ConfigOf(s.Provider, nil)))
	dir, err := p.(*tetherProvider).rt.dir()
	want, _ := filepath.Abs(defaultRuntimeDir)
	if err != nil || dir != want {
		t.Errorf("default runtime folder %s (%v), want %s", dir, err, want)
	}
	providercheck.NoErrors(t, "configure unknown", p.ConfigureProvider(context.Background(), cty.ObjectVal(map[string]cty.Value{"runtime_dir": cty.UnknownVal(cty.String)})))
}

// killPID kills a process behind Tether's back, as a crash would.
func killPID(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
}

// A started process gets what its resource declares and a small base of
// Tether's environment, nothing else: not TF_VAR_*, not what references
// read, not the state key.
func TestFunctionEnvironment(t *testing.T) {
	t.Setenv("TF_VAR_db_pw", "canary-tfvar")
	t.Setenv("AWS_SECRET", "canary-reference")
	t.Setenv("TETHER_STATE_KEY", "canary-key")
	t.Setenv("LC_ALL", "C")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh to print a process's environment")
	}
	r := newRT(t)
	out := filepath.Join(t.TempDir(), "env.txt")
	fn := r.Up("tether_function", nil, map[string]cty.Value{
		"command": cty.ListVal([]cty.Value{cty.StringVal(sh), cty.StringVal("-c"), cty.StringVal(`env > "$OUT"; exec sleep 60`)}),
		"env":     cty.MapVal(map[string]cty.Value{"OUT": cty.StringVal(out), "DECLARED": cty.StringVal("yes")}),
		"http":    cty.False,
	})
	defer r.Down(fn)
	var got []string
	waitFor(context.Background(), 5*time.Second, func() bool {
		b, err := os.ReadFile(out)
		got = strings.Fields(string(b))
		return err == nil && len(got) > 0
	})
	names := map[string]bool{}
	for _, kv := range got {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	for _, want := range []string{"PATH", "LC_ALL", "DECLARED", "OUT"} {
		if !names[want] {
			t.Errorf("the process lacks %s: %v", want, got)
		}
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "LANG": true, "LANGUAGE": true, "TZ": true,
		"DECLARED": true, "OUT": true, "PWD": true, "SHLVL": true, "_": true}
	for name := range names {
		if !allowed[name] && !strings.HasPrefix(name, "LC_") {
			t.Errorf("the process inherited %s", name)
		}
	}
}

// TestReapAbandonedStart covers a provider killed at each moment of a
// start: before the process ran (a marker without it), after it ran but
// before the marker named it (found by its log, which it holds open), and
// after. Configuring the provider again stops what was started and removes
// the folder made for it.
func TestReapAbandonedStart(t *testing.T) {
	if !runtimeSupported {
		t.Skip("the local runtime needs a Unix system")
	}
	if !procFSAvailable() {
		t.Skip("finding a process by its log needs /proc")
	}
	// A starter that no longer runs.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	starter := identify(gone.Process.Pid)
	for _, tc := range []struct {
		name          string
		start, record bool
	}{
		{"before the start", false, false},
		{"between the start and its record", true, false},
		{"after the record", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			rt := &runtimeConfig{}
			if err := rt.configure(root); err != nil {
				t.Fatal(err)
			}
			dir, err := rt.instanceDir(newID())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			logPath := filepath.Join(dir, logFileName)
			rec := startingRecord{Starter: starter, Log: logPath, Created: true}
			var c *child
			if tc.start {
				// The process starts another that holds the log too.
				c, err = spawn([]string{"sh", "-c", "sleep 600 & exec sleep 600"}, childEnv(nil), dir, logPath)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { killGroup(c.info.PID) })
				if tc.record {
					rec.Process = c.info
				}
			}
			if err := writeJSON(filepath.Join(dir, startingFileName), rec); err != nil {
				t.Fatal(err)
			}
			if err := rt.reapAbandoned(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c != nil && (c.info.running() || groupAlive(c.info.PID)) {
				t.Errorf("process %d, whose start was abandoned, still runs", c.info.PID)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the folder made for the abandoned start is still there (%v)", err)
			}
		})
	}
}
