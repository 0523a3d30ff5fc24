package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// The real-provider shape measures the provider's own CPU time from its
// rusage. The provider is a grandchild of the harness (the tool starts it,
// and reaps it), so the harness puts a copy of itself where the tool looks
// for the provider, with these variables in the tool's environment: run
// that way, the harness starts the real provider with the same arguments,
// standard streams and environment (less these variables), waits for it,
// and appends its rusage to the log as one line of JSON.
const (
	wrapRealEnv = "TETHER_BENCH_PROVIDER"     // the real provider executable
	wrapLogEnv  = "TETHER_BENCH_PROVIDER_LOG" // where the rusage lines go
)

// providerRun is one provider process as the wrapper saw it.
type providerRun struct {
	Pid    int           `json:"pid"`
	Wall   time.Duration `json:"wall_ns"`
	User   time.Duration `json:"user_ns"`
	System time.Duration `json:"sys_ns"`
	MaxRSS int64         `json:"maxrss"`
	Exit   int           `json:"exit"`
}

// wrapProvider runs the real provider and records its rusage; it returns
// the exit code to leave with.
func wrapProvider(real, logPath string) int {
	// The provider dies with the thread that started it (dieWithParent):
	// keep this one.
	runtime.LockOSThread()
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, wrapRealEnv+"=") && !strings.HasPrefix(kv, wrapLogEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	dieWithParent(cmd)
	// Signals meant for the provider (an interrupt at the terminal) reach
	// it through the wrapper.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "bench provider wrapper: %v\n", err)
		return 1
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	r := providerRun{Pid: cmd.Process.Pid, Wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		r.User, r.System, r.MaxRSS, r.Exit = ps.UserTime(), ps.SystemTime(), maxRSS(ps), ps.ExitCode()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintf(os.Stderr, "bench provider wrapper: %v\n", err)
	}
	if b, err := json.Marshal(r); err == nil {
		if f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
	if r.Exit < 0 {
		return 1
	}
	return r.Exit
}

// readProviderRuns reads the wrapper's log; a missing log is no runs.
func readProviderRuns(path string) ([]providerRun, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []providerRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r providerRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
