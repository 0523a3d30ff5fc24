package tether

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	mathrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/durable"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

const (
	// stopGrace is how long a process has to end after SIGTERM before it
	// is killed.
	stopGrace = 5 * time.Second
	// killWait bounds the wait for a killed process group to disappear.
	killWait = 5 * time.Second
	// defaultStartTimeout bounds the wait for a started process to listen.
	defaultStartTimeout = 15 * time.Second
	// settle is how long a function that serves no HTTP must stay up to
	// count as started: long enough to catch a command that fails at once.
	settle = 300 * time.Millisecond
	// portSettle bounds the wait at plan for a port a stopped process
	// held; portRelease the wait at apply for one we just stopped.
	portSettle   = 250 * time.Millisecond
	portRelease  = 2 * time.Second
	logTailLines = 25
	logTailBytes = 8 << 10
	pollInterval = 20 * time.Millisecond
)

// Names of the files in a runtime instance's folder.
const (
	logFileName     = "output.log"
	processFileName = "process.json"
	readyFileName   = "ready.json"
	tokenFileName   = "token"
	routesFileName  = "routes.json"
	dataDirName     = "data"
)

// procInfo identifies a process we started, across runs of Tether: the
// pid alone could name an unrelated process once the pid is reused.
type procInfo struct {
	PID int `json:"pid"`
	// Start is the process's start time as the kernel counts it (Linux
	// /proc/PID/stat), empty where that cannot be read.
	Start string `json:"start,omitempty"`
}

type procStatus int

const (
	procGone  procStatus = iota // no process has the pid, or only a zombie
	procOurs                    // the process we started is running
	procOther                   // the pid now belongs to someone else
)

func identify(pid int) procInfo {
	start, _, _ := procStat(pid)
	return procInfo{PID: pid, Start: start}
}

func (p procInfo) status() procStatus {
	if p.PID <= 0 {
		return procGone
	}
	start, state, err := procStat(p.PID)
	if err == nil {
		switch {
		case state == "Z" || state == "X":
			// A zombie holds no port and no file; it is gone for us.
			return procGone
		case p.Start != "" && start != p.Start:
			return procOther
		}
		return procOurs
	}
	if errors.Is(err, fs.ErrNotExist) && procFSAvailable() {
		return procGone
	}
	if !processExists(p.PID) {
		return procGone
	}
	if leadsGroup(p.PID) {
		return procOurs
	}
	return procOther
}

func (p procInfo) running() bool { return p.status() == procOurs }

// groupAlive reports whether a live process is left in the group. Zombies
// do not count: they hold nothing, and where the init process is slow to
// reap orphans (in containers, say) waiting for them would stall every
// destroy.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if !procFSAvailable() {
		return groupExists(pgid)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return groupExists(pgid)
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		// State, ppid, pgrp: fields 3 to 5 of proc(5).
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

var procFS = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
})

func procFSAvailable() bool { return procFS() }

// procStat reads a process's start time and state from /proc/PID/stat.
func procStat(pid int) (start, state string, err error) {
	if !procFSAvailable() {
		return "", "", errors.ErrUnsupported
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", err
	}
	// The command name, in parentheses, may itself hold spaces and
	// parentheses; the fields that follow start after the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 of proc(5), the state; starttime is field 22.
	if len(fields) < 20 {
		return "", "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return fields[19], fields[0], nil
}

// child is a process just started, with a way to learn that it ended.
type child struct {
	info   procInfo
	exited chan struct{}
	err    error // how it ended; read only after exited is closed
}

func (c *child) exitReason() string {
	if c.err == nil {
		return "exit status 0"
	}
	return c.err.Error()
}

// spawn starts argv in its own session, with its output appended to
// logPath and no standard input. Nothing ties it to this process: it keeps
// running after Tether exits.
func spawn(argv []string, env []string, dir, logPath string) (*child, error) {
	if !runtimeSupported {
		return nil, errNoRuntime
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd, err := startRetrying(func() *exec.Cmd {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Dir = dir
		cmd.Stdout = log
		cmd.Stderr = log
		cmd.SysProcAttr = detached()
		return cmd
	})
	if err != nil {
		return nil, err
	}
	c := &child{info: identify(cmd.Process.Pid), exited: make(chan struct{})}
	// Waiting reaps the child should it end while Tether still runs (a
	// failed start, a destroy within `tether test`), so that no zombie
	// is mistaken for a live process.
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// startRetrying starts cmd, trying again for a moment while its
// executable is busy: a program this process has just written (a
// tether_program copy) stays open for writing in children forked in the
// meantime until they exec, and exec refuses such a file (ETXTBSY).
func startRetrying(command func() *exec.Cmd) (*exec.Cmd, error) {
	delay := 10 * time.Millisecond
	for i := 0; ; i++ {
		// A Cmd cannot be started twice: each try makes a fresh one.
		cmd := command()
		err := cmd.Start()
		if err == nil || !errors.Is(err, syscall.ETXTBSY) || i == 8 {
			return cmd, err
		}
		time.Sleep(delay)
		delay *= 2
	}
}

var errNoRuntime = errors.New("the local runtime (tether_function, tether_router, tether_kv, tether test) needs a Unix system")

// stopProcess ends a process we started and everything in its group:
// SIGTERM, then SIGKILL after stopGrace. It returns once nothing of the
// group is left, or with an error after a bounded wait.
func stopProcess(ctx context.Context, p procInfo) error {
	if p.PID <= 0 {
		return nil
	}
	switch p.status() {
	case procOther:
		// The pid was reused: our process, and so its group (a pid is
		// never reused while its group lives), is long gone.
		return nil
	case procGone:
		// The leader is gone; anything it started may not be.
		if err := killGroup(p.PID); err != nil {
			return err
		}
	case procOurs:
		if err := terminateGroup(p.PID); err != nil {
			return fmt.Errorf("cannot stop process %d: %w", p.PID, err)
		}
		waitFor(ctx, stopGrace, func() bool { return p.status() != procOurs && !groupAlive(p.PID) })
		// Whatever ignored SIGTERM, leader or not.
		if err := killGroup(p.PID); err != nil {
			return fmt.Errorf("cannot stop process %d: %w", p.PID, err)
		}
	}
	if !waitFor(ctx, killWait, func() bool { return p.status() != procOurs && !groupAlive(p.PID) }) {
		return fmt.Errorf("process %d or one it started still runs %s after being killed", p.PID, killWait)
	}
	return nil
}

// waitFor polls cond until it holds (true) or d passes or ctx ends (false).
func waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
		}
	}
}

// waitListening waits until something accepts connections on the port,
// the child ends, or the timeout passes.
func waitListening(ctx context.Context, c *child, port int, timeout time.Duration) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			// It could have been someone else on the port, with our
			// child failing; one more look settles the common case.
			select {
			case <-c.exited:
				return fmt.Errorf("it exited (%s)", c.exitReason())
			default:
				return nil
			}
		}
		select {
		case <-c.exited:
			return fmt.Errorf("it exited (%s) before listening on %s", c.exitReason(), addr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not listen on %s within %s (a function that serves HTTP must listen on 127.0.0.1 at the port in its PORT environment variable; set http = false for one that does not, or raise start_timeout)", addr, timeout)
		}
	}
}

// waitSettled waits a moment and fails if the child ended meanwhile.
func waitSettled(ctx context.Context, c *child) error {
	select {
	case <-c.exited:
		return fmt.Errorf("it exited at once (%s)", c.exitReason())
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(settle):
		return nil
	}
}

// readyInfo is what a runtime process of this binary (a router, a store)
// writes to its ready file once it listens.
type readyInfo struct {
	PID   int    `json:"pid"`
	URL   string `json:"url"`
	Admin string `json:"admin,omitempty"`
}

// waitReady waits for the ready file of the child to appear.
func waitReady(ctx context.Context, c *child, dir string, timeout time.Duration) (readyInfo, error) {
	path := filepath.Join(dir, readyFileName)
	deadline := time.Now().Add(timeout)
	for {
		var ri readyInfo
		if err := readJSON(path, &ri); err == nil && ri.PID == c.info.PID {
			return ri, nil
		}
		select {
		case <-c.exited:
			return readyInfo{}, fmt.Errorf("it exited (%s) before it was ready", c.exitReason())
		case <-ctx.Done():
			return readyInfo{}, ctx.Err()
		case <-time.After(pollInterval):
		}
		if time.Now().After(deadline) {
			return readyInfo{}, fmt.Errorf("it was not ready within %s", timeout)
		}
	}
}

// logTail returns the last lines of a log, for error messages: what a
// process printed before it failed is usually the reason.
func logTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	off := info.Size() - logTailBytes
	if off < 0 {
		off = 0
	}
	buf := make([]byte, info.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first is cut
	}
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	text := strings.Join(lines, "\n")
	return strings.ToValidUTF8(text, "\uFFFD")
}

// withLog appends the tail of a log to an error message.
func withLog(msg, logPath string) string {
	tail := logTail(logPath)
	if strings.TrimSpace(tail) == "" {
		return msg + " It printed nothing."
	}
	return msg + " Its last output:\n\n" + indent(tail, "  ")
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// freePort finds a free port on the loopback interface, below the range
// the system draws ports for outgoing connections from. A runtime process
// keeps its port across restarts, and between the stop and the start the
// port is up for grabs: in the ephemeral range any connection, from any
// program, may take it; below it, only a program that binds that very
// port. The port is free when we look; a program that binds it a moment
// later wins it, and the start of ours then fails with a clear error.
func freePort() (int, error) {
	lo, hi := 20000, ephemeralStart()
	if hi-lo >= 1000 {
		for range 50 {
			p := lo + mathrand.IntN(hi-lo)
			if portFree(p) {
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralStart is the first port of the system's ephemeral range: the
// Linux setting when there is one, else the IANA range that macOS and the
// BSDs use.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 0 && n <= 65535 {
				return n
			}
		}
	}
	return 49152
}

// portFree reports whether the port can be bound on the loopback
// interface right now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// waitPortFree polls until the port can be bound, or d passes. A port a
// process held stays busy for a moment after the process is gone, while
// the kernel finishes closing its sockets.
func waitPortFree(ctx context.Context, port int, d time.Duration) bool {
	return waitFor(ctx, d, func() bool { return portFree(port) })
}

func portInUse(port int) string {
	return fmt.Sprintf("Port %d on 127.0.0.1 is in use by another process. Stop that process, choose another port, or leave port out to let the system choose one.", port)
}

// portTaken is portInUse for a port Tether chose: it was free when the
// process first started there, and another program took it meanwhile.
func portTaken(port int, what string) string {
	return fmt.Sprintf("Port %d on 127.0.0.1, where the %s ran before, was taken by another process while it was down. Run up again: the %s then moves to a free port.", port, what, what)
}

// childEnv is the environment of a process we start: a small base taken
// from ours (baseEnv), with extra, what the resource declares, on top.
// Nothing else of Tether's environment reaches user code: not TF_VAR_*,
// not the variables references read, not the key that unseals state.
func childEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := extra[name]; set || !baseEnv(name) {
			continue
		}
		env = append(env, kv)
	}
	names := make([]string, 0, len(extra))
	for n := range extra {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env = append(env, n+"="+extra[n])
	}
	return env
}

// baseEnv reports whether a started process inherits the variable name
// from Tether: where to find programs (PATH), the user's folders (HOME,
// TMPDIR), the locale (LANG, LANGUAGE, LC_*, TZ), and on Windows what a
// process cannot start without. Everything else it needs, its resource
// declares in env.
func baseEnv(name string) bool {
	switch name {
	case "PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ":
		return true
	}
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	if runtime.GOOS == "windows" {
		switch strings.ToUpper(name) {
		case "PATH", "SYSTEMROOT", "WINDIR", "TEMP", "TMP", "USERPROFILE", "COMSPEC", "PATHEXT":
			return true
		}
	}
	return false
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(path, append(b, '\n'), 0o600)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// removeInstanceDir deletes an instance's folder, and the runtime folder
// above it once nothing else is left there.
func removeInstanceDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	_ = os.Remove(filepath.Dir(dir)) // fails, as it should, while not empty
	return nil
}

// processStart is one runtime resource's part of starting its process
// (tether_function, tether_router, tether_kv): what applyProcess, which
// does the rest, cannot know.
type processStart struct {
	// what names the resource in messages: "function", "router".
	what string
	// check stops the start before anything is done: values not known,
	// a command that cannot be found.
	check func() hcl.Diagnostics
	// http is set when the process listens on the planned port (a free
	// one when the plan left it unknown).
	http bool
	// prepare makes the instance folder ready for a start.
	prepare func(dir string) error
	// command is what to run, with its environment and folder, once the
	// port is settled (0 without http); startError says why it could not
	// be started.
	command    func(dir string, port int) (argv, env []string, workDir string)
	startError func(err error) hcl.Diagnostics
	// wait returns once the started process is up; notUp turns its error
	// (with the log's tail added) into what the user reads.
	wait  func(ctx context.Context, c *child, dir string, port int) error
	notUp func(err error, logPath string) hcl.Diagnostics
	// object is the new state of a process that is up.
	object func(port int, pid int, logPath, id string) cty.Value
}

// applyProcess applies a runtime resource: it destroys, or leaves alone
// what needs no restart, or (re)starts the process with p. On a failed
// start, a resource being created is not recorded and leaves nothing
// behind; one being restarted is recorded stopped (a null pid), so that
// the next up tries again.
//
// The start is recorded in the instance folder before the process is
// started (see markStarting), so that a run killed at any moment of it
// leaves nothing that the next run of the provider does not stop.
func applyProcess(ctx context.Context, rt *runtimeConfig, req provider.ApplyRequest, p processStart) provider.ApplyResponse {
	planned, prior := req.PlannedState, req.PriorState
	inst := decodeInstance(req.PlannedPrivate)
	if planned.IsNull() {
		return destroyInstance(ctx, p.what, prior, inst)
	}
	if attr(planned, "pid").IsKnown() {
		// Nothing that needs a restart changed.
		return provider.ApplyResponse{NewState: planned, Private: req.PlannedPrivate}
	}
	created := prior.IsNull()
	// ownFolder is set once a failure is to remove the folder: when it
	// was made for this start.
	ownFolder := false
	fail := func(diags hcl.Diagnostics) provider.ApplyResponse {
		if created {
			if ownFolder {
				removeInstanceDir(inst.Dir)
			}
			return provider.ApplyResponse{NewState: cty.NullVal(planned.Type()), Diagnostics: diags}
		}
		// The old process is stopped: record that.
		inst.procInfo = procInfo{}
		return provider.ApplyResponse{NewState: withAttrs(prior, map[string]cty.Value{"pid": cty.NullVal(cty.Number)}), Private: inst.encode(), Diagnostics: diags}
	}
	if diags := p.check(); diags.HasErrors() {
		return fail(diags)
	}
	id, ok := knownString(attr(planned, "id"))
	if !ok {
		id = newID()
	}
	if inst.Dir == "" {
		dir, err := rt.instanceDir(id)
		if err != nil {
			return fail(opError(fmt.Sprintf("Cannot place the %s's files", p.what), "", err))
		}
		inst.Dir = dir
	}
	if err := stopProcess(ctx, inst.procInfo); err != nil {
		// It may well still run: keep recording it.
		return provider.ApplyResponse{NewState: prior, Private: req.PlannedPrivate, Diagnostics: opError(fmt.Sprintf("Cannot stop the %s's previous process", p.what), "", err)}
	}
	inst.procInfo = procInfo{}
	ownFolder = created
	if err := p.prepare(inst.Dir); err != nil {
		return fail(opError(fmt.Sprintf("Cannot create the %s's folder", p.what), "", err))
	}
	port, diags := startPort(ctx, p, planned, req.Config)
	if diags.HasErrors() {
		return fail(diags)
	}
	logPath := filepath.Join(inst.Dir, logFileName)
	// Recorded before the start too: see markStarting.
	if err := markStarting(inst.Dir, procInfo{}, logPath, created); err != nil {
		return fail(opError(fmt.Sprintf("Cannot record the %s's process", p.what), "", err))
	}
	argv, env, workDir := p.command(inst.Dir, port)
	c, err := spawn(argv, env, workDir, logPath)
	if err != nil {
		return fail(p.startError(err))
	}
	stop := func() { stopProcess(context.WithoutCancel(ctx), c.info) }
	if err := markStarting(inst.Dir, c.info, logPath, created); err != nil {
		stop()
		return fail(opError(fmt.Sprintf("Cannot record the %s's process", p.what), "", err))
	}
	if err := p.wait(ctx, c, inst.Dir, port); err != nil {
		stop()
		return fail(p.notUp(err, logPath))
	}
	inst.procInfo = c.info
	if err := writeJSON(filepath.Join(inst.Dir, processFileName), c.info); err != nil {
		stop()
		inst.procInfo = procInfo{}
		return fail(opError(fmt.Sprintf("Cannot record the %s's process", p.what), "", err))
	}
	startConfirmed(inst.Dir)
	return provider.ApplyResponse{
		NewState: p.object(port, c.info.PID, logPath, id),
		Private:  inst.encode(),
	}
}

// startPort is the port a start listens on: the planned one once free, or
// a free one when the plan left it to apply; 0 without http.
func startPort(ctx context.Context, p processStart, planned, cfg cty.Value) (int, hcl.Diagnostics) {
	if !p.http {
		return 0, nil
	}
	if port, ok := portOf(attr(planned, "port")); ok {
		if waitPortFree(ctx, port, portRelease) {
			return port, nil
		}
		msg := portInUse(port)
		if attr(cfg, "port").IsNull() {
			msg = portTaken(port, p.what)
		}
		return 0, hcl.Diagnostics{attrError("port", msg)}
	}
	// Chosen here rather than by the server's bind to port 0, so that it
	// comes from outside the ephemeral range (see freePort).
	port, err := freePort()
	if err != nil {
		return 0, opError(fmt.Sprintf("Cannot find a free port for the %s", p.what), "", err)
	}
	return port, nil
}
