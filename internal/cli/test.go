package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/secrets"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/tftest"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// testStateDir holds the state of the stack `tether test` deploys, apart
// from the configuration's own: testing never touches what up deployed.
var testStateDir = filepath.Join(stateDir, "test")

type stateDirKey struct{}

// withStateDir makes the commands run with ctx use another state folder.
func withStateDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, stateDirKey{}, dir)
}

// stateDirOf is the state folder of the commands run with ctx.
func stateDirOf(ctx context.Context) string {
	if d, ok := ctx.Value(stateDirKey{}).(string); ok {
		return d
	}
	return stateDir
}

// test runs the folder's Terraform test files (see internal/tftest) and
// its tether_tester resources' tests (see testers); a folder with both
// runs both, the test files first. It fails when either failed.
func (e *env) test(ctx context.Context, args []string) int {
	var c common
	flags := e.flags("test", &c)
	var filter []string
	flags.Func("filter", "run only this test file (repeatable)", func(s string) error {
		filter = append(filter, s)
		return nil
	})
	asJSON := flags.Bool("json", false, "print terraform test's machine-readable JSON lines (Terraform test files only)")
	verbose := flags.Bool("verbose", false, "print each run's plan, or its state after an apply (Terraform test files only)")
	runParallelism := flags.Int("run-parallelism", 10, "parallel runs of a test file at once (Terraform test files only)")
	if code := e.parseCommon(flags, &c, args); code >= 0 {
		return code
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	if *asJSON && hasTesters(".") {
		return e.errorf("-json prints the results of Terraform test files only; this configuration has tether_tester resources too, whose results have no JSON form")
	}
	if len(tftest.Find(".")) == 0 {
		if *asJSON {
			return e.errorf("-json prints the results of Terraform test files only, and this folder has none")
		}
		return e.testers(ctx, testerArgs(args))
	}
	parallelism := 0
	flags.Visit(func(f *flag.Flag) {
		if f.Name == "parallelism" {
			parallelism = c.parallelism
		}
	})
	if *runParallelism < 1 {
		return e.errorf("-run-parallelism must be at least 1, not %d", *runParallelism)
	}
	code := e.runTFTests(ctx, &c, filter, *asJSON, *verbose, parallelism, *runParallelism)
	if hasTesters(".") {
		fmt.Fprintln(e.stdout)
		if e.testers(ctx, testerArgs(args)) != 0 {
			code = 1
		}
	}
	return code
}

// testers deploys the configuration to the test state, runs every
// tether_tester's tests against what runs, and destroys it all, whatever
// happened before. It fails when a test failed, and when anything could not
// be deployed or cleaned up.
func (e *env) testers(ctx context.Context, args []string) int {
	// up and destroy run in the folder we are in now.
	args = append(withoutDir(args), "--yes")
	tctx := withStateDir(ctx, testStateDir)

	// up and destroy print plans and progress; a test run shows them only
	// when they fail.
	var out bytes.Buffer
	quiet := *e
	quiet.stdout, quiet.tty, quiet.color = &out, false, false

	fmt.Fprintf(e.stdout, "Deploying the test stack (state in %s)...\n", testStateDir)
	deployed := quiet.up(tctx, args, false) == 0
	if !deployed {
		e.stdout.Write(out.Bytes())
		fmt.Fprintln(e.stdout, "\nThe test stack could not be deployed; no test ran.")
	}

	total, failed := 0, 0
	if deployed {
		total, failed = e.runTests(ctx)
	}

	// Cleaning up must happen even after Ctrl-C, which cancelled ctx.
	cctx := withStateDir(context.WithoutCancel(ctx), testStateDir)
	cleaned := true
	if !e.testStackEmpty(cctx) {
		out.Reset()
		fmt.Fprintln(e.stdout, "Destroying the test stack...")
		cleaned = quiet.up(cctx, args, true) == 0
		if !cleaned {
			e.stdout.Write(out.Bytes())
			fmt.Fprintf(e.stdout, "\nCleanup failed: the test stack may still run. Run tether test again, which deploys and destroys it anew.\n")
		}
	}

	switch {
	case !deployed:
		fmt.Fprintln(e.stdout, "FAIL: deploying the test stack failed")
	case failed > 0:
		fmt.Fprintf(e.stdout, "FAIL: %d of %d tests failed\n", failed, total)
	case !cleaned:
		fmt.Fprintf(e.stdout, "FAIL: the tests passed, but the test stack could not be destroyed\n")
	case total == 0:
		fmt.Fprintln(e.stdout, "No tests: the configuration has no tether_tester with a test block.")
	default:
		fmt.Fprintf(e.stdout, "PASS: %d tests passed\n", total)
	}
	if !deployed || !cleaned || failed > 0 {
		return 1
	}
	return 0
}

// testStackEmpty reports whether the test state records nothing, so that a
// deployment that failed before creating anything (a configuration error,
// say) is not followed by a destroy that fails the same way.
func (e *env) testStackEmpty(ctx context.Context) bool {
	path := filepath.Join(stateDirOf(ctx), "state.db")
	if _, err := os.Stat(path); err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	store, err := state.OpenSQLite(path)
	if err != nil {
		return false
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	return err == nil && len(snap.Objects) == 0
}

// testerRun is one tester's tests, found in the test state.
type testerRun struct {
	addr  string
	tests []tetherprovider.TestCase
}

// runTests runs the tests recorded in the test state, each tester's in
// name order, and prints each result.
func (e *env) runTests(ctx context.Context) (total, failed int) {
	testers, err := e.recordedTesters(ctx)
	if err != nil {
		e.errorf("cannot read the tests from the test state: %v", err)
		return 1, 1
	}
	for _, tr := range testers {
		for _, tc := range tr.tests {
			total++
			name := tr.addr + "/" + tc.Name
			if ctx.Err() != nil {
				failed++
				fmt.Fprintf(e.stdout, "--- SKIP: %s (interrupted)\n", name)
				continue
			}
			res := tetherprovider.RunTest(ctx, tc)
			if res.Passed {
				fmt.Fprintf(e.stdout, "--- PASS: %s (%s)\n", name, duration(res.Duration))
				continue
			}
			failed++
			fmt.Fprintf(e.stdout, "--- FAIL: %s (%s)\n", name, duration(res.Duration))
			if len(bytes.TrimSpace(res.Output)) > 0 {
				fmt.Fprintln(e.stdout, indentLines(strings.TrimRight(string(res.Output), "\n"), "    "))
			}
			if res.Err != nil {
				fmt.Fprintf(e.stdout, "    %s: %v\n", commandLine(tc.Command), res.Err)
			}
		}
	}
	return total, failed
}

// recordedTesters reads every tether_tester of the test state, where all
// the values its tests use are known.
func (e *env) recordedTesters(ctx context.Context) ([]testerRun, error) {
	store, err := state.OpenSQLite(filepath.Join(testStateDir, "state.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := secrets.Load(testStateDir)
	if err != nil {
		return nil, err
	}
	var out []testerRun
	for _, a := range sortedKeys(snap.Objects) {
		obj := snap.Objects[a]
		if pc, err := addr.ParseProviderConfig(obj.Provider); err != nil || pc.Source != config.BuiltinSource || obj.Type != "tether_tester" || obj.Mode != state.Managed {
			continue
		}
		v, _, err := decodeObject(keys, obj, builtinOnly)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
		tests, err := tetherprovider.TesterTests(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
		out = append(out, testerRun{addr: a, tests: tests})
	}
	return out, nil
}

// commandLine shows a command the way a shell would take it.
func commandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func duration(d time.Duration) string {
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// withoutVerbose drops -verbose, which selects what test files' runs show
// and means nothing to the testers' deployment.
// testerArgs are the test command's arguments that the testers' up and
// destroy take: without those for Terraform test files alone.
func testerArgs(args []string) []string {
	return withoutVerbose(withoutFlags(withoutFlags(args, "filter"), "run-parallelism"))
}

func withoutVerbose(args []string) []string {
	var out []string
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "verbose" {
			continue
		}
		out = append(out, a)
	}
	return out
}
