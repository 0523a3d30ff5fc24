package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/providertest"
)

// GoScripts runs the scenarios in the calling package's
// testdata/goscript: Go programs written with the SDK, built by the go
// command in the scenario's folder as a user's would be, and run through
// `tether -C DIR` and `go run`. It is TestGoScripts of the packages that
// hold such scenarios, split by subject so that they run side by side.
//
// The folder gets a go.mod that points the SDK at this repository, and
// the go command works offline from the module cache that built these
// tests.
func GoScripts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goEnv[[]string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"}[i]] = v
	}
	goVersion := "1.26"
	if mod, err := os.ReadFile(filepath.Join(repo, "go.mod")); err == nil {
		for _, line := range strings.Split(string(mod), "\n") {
			if v, ok := strings.CutPrefix(line, "go "); ok {
				goVersion = strings.TrimSpace(v)
			}
		}
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	offline := providertest.OfflineGoEnv(t)
	sources := &moduleSources{t: t}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/goscript",
		Cmds: scenarioCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"newer":       newer,
			"pids":        runtimePIDs,
			"modregistry": sources.registry,
			"gitrepo":     sources.gitRepo,
		}),
		// [postgres], and PG_CONN_STR and a schema of their own for the
		// scenarios named pg_*, as in TestScripts.
		Condition: scriptCondition,
		Setup: func(env *testscript.Env) error {
			setupScenario(env)
			env.Setenv("REPO", repo)
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			for _, kv := range offline {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			gomod := fmt.Sprintf("module example.com/scenario\n\ngo %s\n\nrequire github.com/tetherhq/tether v0.0.0\n\nreplace github.com/tetherhq/tether => %s\n", goVersion, repo)
			if err := os.WriteFile(filepath.Join(env.WorkDir, "go.mod"), []byte(gomod), 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(env.WorkDir, "go.sum"), sum, 0o644); err != nil {
				return err
			}
			return setupServices(env)
		},
	})
}

// newer checks that the first file was last written no earlier than the
// second:
// the order in which a run really wrote them.
func newer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: newer FILE OLDER")
	}
	a, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	// Two files written one after the other can share a clock tick of the
	// file system, so "after" means "not before"; the slow value keeps the
	// files that must not wait half a second apart.
	isNewer := !a.ModTime().Before(b.ModTime())
	if isNewer == neg {
		ts.Fatalf("%s written at %s, %s at %s", args[0], a.ModTime().Format("15:04:05.000000"), args[1], b.ModTime().Format("15:04:05.000000"))
	}
}
