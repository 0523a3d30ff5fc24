package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Test plugin binaries, built once for the whole run: linking them per test
// would cost more than the tests themselves.
var (
	binDir     string
	tether6Bin string // cmd/terraform-provider-tether: protocol 6
	tether5Bin string // testdata/tether5: the same provider over protocol 5, with test hooks
	hooks6Bin  string // testdata/tether5 under a name that makes it serve protocol 6, with its hooks
	otherBin   string // testdata/othercookie: a go-plugin plugin, not Terraform's
	funcsBin   string // testdata/functions: a provider of functions only
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if path := os.Getenv(parentEnv); path != "" {
		return startedByParent(path)
	}
	if arg := os.Getenv(measureEnv); arg != "" {
		return measureStart(arg)
	}
	var err error
	binDir, err = os.MkdirTemp("", "tether-plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binDir)
	tether6Bin = filepath.Join(binDir, "terraform-provider-tether")
	tether5Bin = filepath.Join(binDir, "terraform-provider-tether5")
	otherBin = filepath.Join(binDir, "othercookie")
	funcsBin = filepath.Join(binDir, "terraform-provider-functions")
	builds := map[string]string{
		tether6Bin: "github.com/tetherhq/tether/cmd/terraform-provider-tether",
		tether5Bin: "./testdata/tether5",
		otherBin:   "./testdata/othercookie",
		funcsBin:   "./testdata/functions",
	}
	failed := make(chan string, len(builds))
	var wg sync.WaitGroup
	for bin, pkg := range builds {
		wg.Go(func() {
			out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
			if err != nil {
				failed <- fmt.Sprintf("go build %s: %v\n%s", pkg, err, out)
			}
		})
	}
	wg.Wait()
	close(failed)
	for msg := range failed {
		fmt.Fprintln(os.Stderr, msg)
		return 1
	}
	hooks6Bin = filepath.Join(binDir, "terraform-provider-tetherhooks6")
	if err := os.Link(tether5Bin, hooks6Bin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	// Every test closes what it starts; a process still running from one
	// of the binaries means Close, or a failed Start, left it behind.
	if pids := processesUnder(binDir); len(pids) > 0 {
		fmt.Fprintf(os.Stderr, "plugin processes outlived the tests: %v\n", pids)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return 1
	}
	return code
}

// processesUnder lists the processes whose executable lies in dir.
func processesUnder(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, dir+string(filepath.Separator)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentEnv makes the test binary a stand-in for Tether: it starts the
// plugin the variable names, prints its pid, and waits to be killed.
const parentEnv = "TETHER_PLUGIN_TEST_PARENT"

func startedByParent(path string) int {
	p, err := Start(context.Background(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(p.(*Client).pid)
	select {}
}

// running reports whether a process with this pid exists and has not
// exited: unlike alive, it does not count a zombie, which only waits for
// its parent (here, whatever adopted it) to reap it.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return alive(pid)
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// alive reports whether a process with this pid exists (a zombie counts:
// it has not been reaped).
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// protocols runs f once per protocol version, against the built-in
// provider served over it.
func protocols(t *testing.T, f func(t *testing.T, c *Client)) {
	for _, tc := range []struct {
		name    string
		bin     *string
		version int
	}{
		{"protocol6", &tether6Bin, 6},
		{"protocol5", &tether5Bin, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startClient(t, *tc.bin)
			if c.protocolVersion != tc.version {
				t.Fatalf("negotiated protocol %d, want %d", c.protocolVersion, tc.version)
			}
			f(t, c)
		})
	}
}

func startClient(t *testing.T, path string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p.(*Client)
}
