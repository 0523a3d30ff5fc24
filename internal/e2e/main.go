package e2e

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/provider/tether"
)

// Main is the TestMain of every end-to-end test package: it registers the
// in-process `tether` command with testscript, so that scenarios and the
// tests that run "tether" from the PATH run this test binary as the
// command, and stops the shared PostgreSQL cluster after the tests.
func Main(m *testing.M) {
	testscript.Main(stopPostgres{m}, map[string]func(){
		"tether": func() {
			// As in main: the provider starts routers and stores by running
			// this binary again.
			tether.RuntimeMain()
			os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// exitCode runs a command and checks its exit status exactly: `! exec`
// accepts any failure, but --detailed-exitcode's 2 (changes) and 1 (error)
// mean different things to a user.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exit code %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = exitErr.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
