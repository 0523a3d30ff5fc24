package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/providertest"
)

// DiffCommandTimeout bounds each terraform or tether command, so that a
// hang fails the test instead of stalling the suite.
const DiffCommandTimeout = 2 * time.Minute

// DiffTools are the binaries the differential tests run.
type DiffTools struct {
	Tether    string // the tether command
	Terraform string // the terraform command, "" when not on PATH
	CLIConfig string // a Terraform CLI configuration with the dev override
	// ConfigHome is the user configuration folder the commands run with
	// (XDG_CONFIG_HOME), where tether keeps a key per state: the run's
	// own, so that tests leave nothing in the user's.
	ConfigHome string
}

// sharedTools holds the built binaries while any test uses them: built on
// the first use, removed when the last user finishes.
var sharedTools struct {
	mu    sync.Mutex
	users int
	dir   string
	tools DiffTools
	err   error
}

// BuildDiffTools builds the tether command and the provider plugin once
// for every test using them at the same time, and writes the Terraform CLI
// configuration that points at the plugin.
func BuildDiffTools(t *testing.T) DiffTools {
	t.Helper()
	s := &sharedTools
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		s.tools, s.err = DiffTools{}, nil
		s.dir, s.err = os.MkdirTemp("", "tether-difftest-")
		if s.err == nil {
			s.tools, s.err = buildDiffToolsIn(s.dir)
		}
	}
	s.users++
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.users--
		if s.users == 0 && s.dir != "" {
			os.RemoveAll(s.dir)
			s.dir = ""
		}
	})
	if s.err != nil {
		t.Fatalf("building the binaries: %v", s.err)
	}
	return s.tools
}

func buildDiffToolsIn(dir string) (DiffTools, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return DiffTools{}, fmt.Errorf("the go command is needed to build tether: %w", err)
	}
	plugins := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		return DiffTools{}, err
	}
	// The builds are shared by every test process of the run (and later
	// runs until a source changes); dir links to them under the names
	// the tests and the dev override look for.
	for _, b := range []struct{ out, pkg string }{
		{filepath.Join(dir, "tether"), "./cmd/tether"},
		{filepath.Join(plugins, "terraform-provider-tether"), "./cmd/terraform-provider-tether"},
	} {
		exe, err := providertest.GoBuild(b.pkg)
		if err != nil {
			return DiffTools{}, err
		}
		if err := os.Symlink(exe, b.out); err != nil {
			return DiffTools{}, err
		}
	}
	rc := filepath.Join(dir, "terraformrc")
	text := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"tetherhq/tether\" = %q\n  }\n  direct {}\n}\n", plugins)
	if err := os.WriteFile(rc, []byte(text), 0o644); err != nil {
		return DiffTools{}, err
	}
	tools := DiffTools{Tether: filepath.Join(dir, "tether"), CLIConfig: rc, ConfigHome: filepath.Join(dir, "config")}
	tools.Terraform, _ = exec.LookPath("terraform")
	return tools, nil
}

// DiffEnv is the environment both tools run with: the test's own, less
// anything TF_ or TETHER_ that could change what they do, plus the dev
// override, the run's own user configuration folder and no colour.
func DiffEnv(tools DiffTools) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "TETHER_") || strings.HasPrefix(kv, "NO_COLOR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TF_CLI_CONFIG_FILE="+tools.CLIConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
		"NO_COLOR=1",
		"XDG_CONFIG_HOME="+tools.ConfigHome,
	)
}

// CmdResult is what a command did.
type CmdResult struct {
	Args           []string
	Stdout, Stderr string
	Code           int   // exit status; -1 when it did not run or was killed
	Err            error // set when the command could not run at all
}

func (r CmdResult) String() string {
	return fmt.Sprintf("$ %s  (exit %d)\n--- stdout\n%s--- stderr\n%s", strings.Join(r.Args, " "), r.Code, r.Stdout, r.Stderr)
}

// side is one of the two tools running a copy of a case.
type Side struct {
	Name string // "terraform" or "tether"
	Bin  string
	Dir  string
	Env  []string
	// timeout replaces DiffCommandTimeout when set.
	Timeout time.Duration
}

func (s Side) Run(args ...string) CmdResult {
	timeout := DiffCommandTimeout
	if s.Timeout > 0 {
		timeout = s.Timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := CmdResult{Args: append([]string{s.Name}, args...), Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.Code = exitErr.ExitCode()
	default:
		r.Code, r.Err = -1, err
	}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("timed out after %v", timeout)
	}
	return r
}

// both runs f for the terraform and the tether side at once and returns
// their results in that order.
func Both[T any](tf, tt Side, f func(Side) T) (T, T) {
	var a, b T
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = f(tf) }()
	go func() { defer wg.Done(); b = f(tt) }()
	wg.Wait()
	return a, b
}

// steps lists what each tool runs for each step of a case.
var (
	TFApply   = []string{"apply", "-input=false", "-auto-approve", "-no-color"}
	TTApply   = []string{"up", "--yes"}
	TFPlan    = []string{"plan", "-input=false", "-no-color", "-detailed-exitcode"}
	TTPlan    = []string{"plan", "--detailed-exitcode"}
	TFOutput  = []string{"output", "-json", "-no-color"}
	TTOutput  = []string{"output", "--json"}
	TFDestroy = []string{"destroy", "-input=false", "-auto-approve", "-no-color"}
	TTDestroy = []string{"destroy", "--yes"}
)

// ApplyOne applies on one side: terraform apply or tether up.
func ApplyOne(s Side) CmdResult {
	if s.Name == "terraform" {
		return s.Run(TFApply...)
	}
	return s.Run(TTApply...)
}

// ApplyBoth applies on both sides at once.
func ApplyBoth(tf, tt Side) (CmdResult, CmdResult) { return Both(tf, tt, ApplyOne) }

// DestroyBoth destroys on both sides and compares the summaries.
func DestroyBoth(t *testing.T, tf, tt Side) {
	t.Helper()
	tfRes, ttRes := Both(tf, tt, func(s Side) CmdResult {
		if s.Name == "terraform" {
			return s.Run(TFDestroy...)
		}
		return s.Run(TTDestroy...)
	})
	MustSucceed(t, "destroy", tfRes, ttRes)
	if tfSum, ttSum := DestroySummary(tfRes.Stdout), DestroySummary(ttRes.Stdout); tfSum != ttSum {
		t.Errorf("destroy: terraform reports %q, tether %q\n%s\n%s", tfSum, ttSum, tfRes, ttRes)
	}
}

// MustSucceed stops the case when either command failed.
func MustSucceed(t *testing.T, label string, rs ...CmdResult) {
	t.Helper()
	failed := false
	for _, r := range rs {
		if r.Code != 0 || r.Err != nil {
			t.Errorf("%s failed: %v\n%s", label, r.Err, r)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
}

var (
	applyRE   = regexp.MustCompile(`Resources: (?:(\d+) imported, )?(\d+) added, (\d+) changed, (\d+) destroyed\.`)
	destroyRE = regexp.MustCompile(`Destroy complete! Resources: (\d+) destroyed\.`)
)

// ApplySummary is the "N added, N changed, N destroyed" of an apply; a
// run that had nothing to do counts as all zero, which is what Terraform
// prints then.
func ApplySummary(stdout string) string {
	if m := applyRE.FindStringSubmatch(stdout); m != nil {
		s := fmt.Sprintf("%s added, %s changed, %s destroyed", m[2], m[3], m[4])
		if m[1] != "" {
			s = m[1] + " imported, " + s
		}
		return s
	}
	if strings.Contains(stdout, "No changes.") {
		return "0 added, 0 changed, 0 destroyed"
	}
	return "no summary"
}

func DestroySummary(stdout string) string {
	if m := destroyRE.FindStringSubmatch(stdout); m != nil {
		return m[1] + " destroyed"
	}
	if strings.Contains(stdout, "No changes.") {
		return "0 destroyed"
	}
	return "no summary"
}

// OutFile is a file under out/.
type OutFile struct {
	Mode    fs.FileMode
	Content []byte
}

// ReadTree returns every regular file (and anything else that is not a
// folder) under root by slash-separated relative path; a missing root is
// empty.
func ReadTree(root string) (map[string]OutFile, error) {
	files := map[string]OutFile{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		f := OutFile{Mode: info.Mode()}
		if info.Mode().IsRegular() {
			if f.Content, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	return files, err
}

func SortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CopyTree copies the files under src into dst, creating folders, and
// leaving out the top-level entry named skip.
func CopyTree(src, dst, skip string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if skip != "" && rel == skip {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
