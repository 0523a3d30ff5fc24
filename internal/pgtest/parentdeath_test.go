//go:build linux

package pgtest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes this test binary a test process that starts a cluster,
// prints its folder and the server's pid, and waits to be killed.
const childEnv = "PGTEST_KILLED_CHILD"

// A test process killed mid-way, which never calls Stop, leaves no server
// running: the server dies with it. Its folder is left, and the next Start
// removes it.
func TestServerDiesWithTestProcess(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		killedChild()
		return
	}
	if _, err := Binaries(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTestProcess$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	var pid int
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, scanErr := fmt.Sscan(line, &dir, &pid); err != nil || scanErr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no cluster from the child: %q %v", line, err)
	}
	if !processExists(pid) {
		t.Fatalf("server %d not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()

	// The server shuts down when the signal arrives; a hang here is go
	// test's -timeout to catch, but a leak is stopped before then.
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	for processExists(pid) {
		if time.Until(deadline) < 10*time.Second {
			stopServer(pid)
			t.Fatalf("server %d outlived its killed test process", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed test's folder: %v", err)
	}
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed test's folder %s is still there after a new Start (%v)", dir, err)
	}
}

func killedChild() {
	s, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "data", "postmaster.pid"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	fmt.Println(s.Dir, pid)
	select {}
}

// stopServer kills a leaked server, so that a failed test leaves nothing
// running.
func stopServer(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
