package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockReleasedWhenOutputGoesAway: a plan whose reader has gone (tether
// plan | head) fails to print, and still releases the state's lock.
func TestLockReleasedWhenOutputGoesAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	main := "resource \"tether_file\" \"a\" {\n  path    = \"out/a.txt\"\n  content = \"a\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "NO_COLOR=1")
	run := func(stdout *os.File, args ...string) (string, error) {
		cmd := exec.Command("tether", args...)
		cmd.Dir, cmd.Env = dir, env
		var out strings.Builder
		if stdout != nil {
			cmd.Stdout = stdout
		} else {
			cmd.Stdout = &out
		}
		cmd.Stderr = &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run(nil, "up", "--yes"); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody will read the plan
	out, err := run(w, "plan")
	w.Close()
	if err == nil {
		t.Fatalf("plan into a pipe without a reader succeeded\n%s", out)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("plan into a pipe without a reader: %v, want exit status 1 (not killed by SIGPIPE)\n%s", err, out)
	}
	out, err = run(nil, "state", "unlock")
	if err != nil || !strings.Contains(out, "The state was not locked.") {
		t.Errorf("the lock stayed behind: state unlock said (%v)\n%s", err, out)
	}
}
