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
			"provregistry": providerRegistry{t: t}.serve,
		},
		Condition: scriptCondition,
		Setup: func(env *testscript.Env) error {
			// Scenarios must not pick up the developer's variables.
			env.Setenv("NO_COLOR", "1")
			// The state key lives in the user's configuration folder,
			// which must be the scenario's own.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Defer(func() { KillLeftovers(env.WorkDir) })
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
