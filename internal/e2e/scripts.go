package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Scripts runs the command-line scenarios in the calling package's
// testdata/script: each is a folder of configuration and the commands a
// user would type, with what they must see. It is TestScripts of the
// packages that hold such scenarios, split by subject so that they run
// side by side.
func Scripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: scenarioCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":     waitFile,
			"s3fake":       s3Fake,
			"httpfake":     httpFake,
			"azurite":      azuriteCmd,
			"gcsfake":      gcsFake,
			"awsmirror":    awsMirrorCmd,
			"provregistry": providerRegistry{t: t}.serve,
		}),
		Condition: scriptCondition,
		Setup: func(env *testscript.Env) error {
			setupScenario(env)
			return setupServices(env)
		},
	})
}

// scenarioCmds is the commands every scenario has, with own added.
func scenarioCmds(own map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exitcode":  exitCode,
		"running":   running,
		"listening": listening,
		"httpget":   httpGet,
		"noleak":    noLeak,
		"mirror":    mirror,
		"noplugins": noPlugins,
		"testprov":  testProvider,
		"pgexec":    pgExec,
	}
	for name, cmd := range own {
		cmds[name] = cmd
	}
	return cmds
}

// setupScenario keeps a scenario to itself: none of the developer's
// variables, a configuration folder of its own (the state key lives in
// the user's), and no process of it left running at its end.
func setupScenario(env *testscript.Env) {
	env.Setenv("NO_COLOR", "1")
	env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
	env.Defer(func() { KillLeftovers(env.WorkDir) })
}

// setupServices gives a scenario what its conditions ask for: a
// PostgreSQL schema of its own and the offline providers.
func setupServices(env *testscript.Env) error {
	if err := setupPostgres(env); err != nil {
		return err
	}
	return offlineProviders(env)
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
