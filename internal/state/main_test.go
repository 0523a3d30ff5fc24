package state

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// Tests that need a second, real process re-execute the test binary with
// childEnv set; TestMain then runs the child's part instead of the tests.
const (
	childEnv     = "TETHER_STATE_TEST_CHILD"
	childPathEnv = "TETHER_STATE_TEST_PATH"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		runChild(mode, os.Getenv(childPathEnv))
		panic("unreachable") // runChild always exits
	}
	os.Exit(m.Run())
}

func runChild(mode, path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	s, err := OpenSQLite(path)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	switch mode {
	case "crash":
		// Commit from many goroutines at once and report each object on
		// stdout as soon as its Commit returns; after enough reports, die
		// while other commits are still in flight. The parent checks that
		// everything reported survived.
		const report = 400
		var (
			mu       sync.Mutex
			reported int
		)
		for g := range 64 {
			go func() {
				for i := 0; ; i++ {
					o := testObject(fmt.Sprintf("g%d_%d", g, i))
					if err := s.Commit(ctx, Changes{Put: []*Object{o}}); err != nil {
						fail(err)
					}
					mu.Lock()
					// One write syscall per line, unbuffered, so what
					// the parent reads was really done.
					os.Stdout.WriteString(o.Address + "\n")
					reported++
					if reported == report {
						os.Exit(1) // no Close, no deferred cleanup
					}
					mu.Unlock()
				}
			}()
		}
		select {}
	case "lock", "lock-and-die":
		u, err := s.Lock(ctx, LockInfo{Operation: "up"})
		if err != nil {
			fail(err)
		}
		fmt.Println("locked " + strconv.Itoa(os.Getpid()))
		if mode == "lock-and-die" {
			os.Exit(1)
		}
		io.Copy(io.Discard, os.Stdin) // hold the lock until the parent closes our stdin
		if err := u.Unlock(); err != nil {
			fail(err)
		}
		if err := s.Close(); err != nil {
			fail(err)
		}
		os.Exit(0)
	}
	fail(fmt.Errorf("unknown mode %q", mode))
}

// startChild runs mode in a child process on path and returns it with its
// stdout lines.
func startChild(t *testing.T, mode, path string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childPathEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, stdin, bufio.NewScanner(stdout)
}
