package plugin

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A start that fails, or is cancelled, leaves no process behind: neither
// the plugin nor anything it started. Each script appends the pids it
// knows to a file (the binaries in binDir are checked by TestMain).
func TestFailedStartLeavesNoProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script string // %[1]s is the pid file; stderr comes first, as a failed start ends at the first bad line on stdout
		// cancelAt, when set, cancels the start once the script has
		// written that many pids.
		cancelAt int
		want     []string
	}{
		{
			name:   "exits at start",
			script: "echo $$ >> %[1]s\necho 'no configuration here' >&2\nexit 3\n",
			want:   []string{"no configuration here", "exited with status 3"},
		},
		{
			name:   "talks nonsense then lingers",
			script: "echo $$ >> %[1]s\necho 'and I complain' >&2\necho 'hello, I am a shell script'\nexec sleep 60\n",
			want:   []string{"hello, I am a shell script", "and I complain"},
		},
		{
			name:   "leaves a child holding its output",
			script: "sleep 60 &\necho $! >> %[1]s\necho $$ >> %[1]s\necho 'bye' >&2\necho 'nonsense'\n",
			want:   []string{"nonsense", "bye"},
		},
		{
			name:     "cancelled with a child",
			script:   "sleep 60 &\necho $! >> %[1]s\necho $$ >> %[1]s\nexec sleep 60\n",
			cancelAt: 2,
			want:     []string{"start interrupted"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			script := writeScript(t, fmt.Sprintf(tc.script, pidFile))
			ctx := t.Context()
			if tc.cancelAt > 0 {
				ctx = cancelOncePids(t, pidFile, tc.cancelAt)
			}
			p, err := Start(ctx, script)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			for _, w := range append(tc.want, script) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			pids := readPids(t, pidFile)
			if len(pids) == 0 {
				t.Fatal("the script recorded no pid")
			}
			for _, pid := range pids {
				if !exitsSoon(pid) {
					t.Errorf("process %d outlived the failed start", pid)
				}
			}
		})
	}
}

// cancelOncePids returns a context that is cancelled once the file path
// lists n pids, that is once the script under test has started what it
// starts: a cancellation that waited a fixed time could come before that
// on a busy machine, and then test nothing.
func cancelOncePids(t *testing.T, path string, n int) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			if b, err := os.ReadFile(path); err == nil && len(strings.Fields(string(b))) >= n {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return ctx
}

// exitsSoon reports whether pid has exited, or does within a moment: a
// SIGKILL is delivered after kill returns. A child the plugin left behind
// is reparented, and reaped when its new parent gets to it, so a zombie
// counts as gone.
func exitsSoon(pid int) bool {
	deadline := time.Now().Add(2 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// A go-plugin plugin of another program refuses Terraform's cookie and
// says so on stderr; the error quotes it.
func TestStartOtherProgramsPlugin(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), otherBin)
	if err == nil {
		t.Fatal("Start succeeded")
	}
	for _, w := range []string{otherBin, "The plugin wrote to stderr", "This binary is a plugin"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q:\n%v", w, err)
		}
	}
}

// A plugin dies with Tether even when Tether gets no chance to call Close:
// here the test binary, as a stand-in, starts one and is killed.
func TestPluginDiesWithParent(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux's parent-death signal")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), parentEnv+"="+tether6Bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, scanErr := fmt.Sscan(line, &pid); err != nil || scanErr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no pid from the stand-in: %q %v", line, err)
	}
	if !running(pid) {
		t.Fatalf("plugin %d not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !exitsSoon(pid) {
		t.Fatalf("plugin %d outlived its killed parent", pid)
	}
}
