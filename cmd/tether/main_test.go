package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/cli"
	"github.com/tetherhq/tether/provider/tether"
)

func TestMain(m *testing.M) {
	testscript.Main(stopPostgres{m}, map[string]func(){
		"tether": func() {
			// As in main: the provider starts routers and stores by running
			// this binary again.
			tether.RuntimeMain()
			os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the command-line scenarios in testdata/script: each is
// a folder of configuration and the commands a user would type, with what
// they must see.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":     waitFile,
			"exitcode":     exitCode,
			"running":      running,
			"listening":    listening,
			"httpget":      httpGet,
			"noleak":       noLeak,
			"mirror":       mirror,
			"noplugins":    noPlugins,
			"testprov":     testProvider,
			"pgexec":       pgExec,
			"s3fake":       s3Fake,
			"httpfake":     httpFake,
			"azurite":      azuriteCmd,
			"gcsfake":      gcsFake,
			"awsmirror":    awsMirrorCmd,
			"provregistry": providerRegistry{t}.serve,
		},
		Condition: scriptCondition,
		Setup: func(env *testscript.Env) error {
			// Scenarios must not pick up the developer's variables.
			env.Setenv("NO_COLOR", "1")
			// The state key lives in the user's configuration folder,
			// which must be the scenario's own.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Defer(func() { killLeftovers(env.WorkDir) })
			if err := setupPostgres(env); err != nil {
				return err
			}
			return offlineProviders(env)
		},
	})
}

// waitFile waits up to ten seconds for a file to exist: a background
// command signals how far it got by the files it writes.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within 10s", filepath.Base(path))
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
