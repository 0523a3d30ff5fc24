package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands that check the local runtime from outside, as a user would:
// by pid, by port, by HTTP.

// running checks that every pid in a file is a live process; with !,
// that none is.
func running(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: running PIDFILE")
	}
	pids := fileFields(ts, args[0])
	for _, f := range pids {
		pid, err := strconv.Atoi(f)
		if err != nil {
			ts.Fatalf("%s: %q is not a pid", args[0], f)
		}
		switch up := processRunning(pid); {
		case up && neg:
			ts.Fatalf("process %d still runs", pid)
		case !up && !neg:
			ts.Fatalf("process %d does not run", pid)
		}
	}
}

// listening checks that every URL in a file accepts connections; with !,
// that none does.
func listening(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: listening URLFILE")
	}
	for _, f := range fileFields(ts, args[0]) {
		u, err := url.Parse(f)
		if err != nil || u.Host == "" {
			ts.Fatalf("%s: %q is not a URL", args[0], f)
		}
		c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
		if err == nil {
			c.Close()
		}
		switch {
		case err == nil && neg:
			ts.Fatalf("%s still accepts connections", u.Host)
		case err != nil && !neg:
			ts.Fatalf("%s does not accept connections: %v", u.Host, err)
		}
	}
}

// httpGet fetches the first URL in a file with a path appended and prints
// "STATUS BODY".
func httpGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: httpget URLFILE PATH")
	}
	base := fileFields(ts, args[0])
	if len(base) == 0 {
		ts.Fatalf("%s holds no URL", args[0])
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base[0] + args[1])
	if err != nil {
		ts.Fatalf("GET %s%s: %v", base[0], args[1], err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(ts.Stdout(), "%d %s\n", resp.StatusCode, body)
}

func fileFields(ts *testscript.TestScript, name string) []string {
	b, err := os.ReadFile(ts.MkAbs(name))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	return strings.Fields(string(b))
}

// processRunning reports whether pid is a live process; a zombie, which
// a slow init may leave for a while, is not.
func processRunning(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		return len(f) > 0 && f[0] != "Z" && f[0] != "X"
	} else if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// KillLeftovers kills the runtime processes a failed scenario left
// behind, so that one failure does not leak into the machine. Only a
// process whose start time still matches its record is ours to kill.
func KillLeftovers(dir string) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "process.json" || !strings.Contains(path, string(filepath.Separator)+"runtime"+string(filepath.Separator)) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var rec struct {
			PID   int    `json:"pid"`
			Start string `json:"start"`
		}
		if json.Unmarshal(b, &rec) != nil || rec.PID <= 0 || rec.Start == "" {
			return nil
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", rec.PID))
		if err != nil {
			return nil
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 19 && f[19] == rec.Start {
			if p, err := os.FindProcess(rec.PID); err == nil {
				p.Kill()
			}
		}
		return nil
	})
}
