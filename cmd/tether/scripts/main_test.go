package scripts

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }

// TestScripts runs the command-line scenarios in testdata/script: each is
// a folder of configuration and the commands a user would type, with what
// they must see.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":     waitFile,
			"exitcode":     e2e.ExitCode,
			"running":      e2e.Running,
			"listening":    e2e.Listening,
			"httpget":      e2e.HTTPGet,
			"noleak":       e2e.NoLeak,
			"mirror":       e2e.Mirror,
			"noplugins":    e2e.NoPlugins,
			"testprov":     e2e.TestprovCmd,
			"pgexec":       e2e.PGExec,
			"s3fake":       e2e.S3Fake,
			"httpfake":     e2e.HTTPFake,
			"azurite":      e2e.AzuriteCmd,
			"gcsfake":      e2e.GCSFake,
			"awsmirror":    e2e.AWSMirrorCmd,
			"provregistry": e2e.ProviderRegistry{T: t}.Serve,
		},
		Condition: e2e.ScriptCondition,
		Setup: func(env *testscript.Env) error {
			// Scenarios must not pick up the developer's variables.
			env.Setenv("NO_COLOR", "1")
			// The state key lives in the user's configuration folder,
			// which must be the scenario's own.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Defer(func() { e2e.KillLeftovers(env.WorkDir) })
			if err := e2e.SetupPostgres(env); err != nil {
				return err
			}
			return e2e.OfflineProviders(env)
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
