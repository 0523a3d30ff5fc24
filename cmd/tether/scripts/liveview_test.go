package scripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestLiveViewInTmux runs `tether up` on a real terminal, a tmux pane of
// 12 rows, with 30 operations in flight at once, more than the pane has
// rows, then reads back the pane's screen and its whole scrollback: each
// operation's completion is there exactly once, and no frame of the live
// view (an operation in progress, "... and N more in progress") is left
// behind. tmux pushes the screen into its scrollback when told to erase
// it from the top left corner, which a live view filling the screen
// reaches; that left every frame in the scrollback.
func TestLiveViewInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds tether and runs an apply of a few seconds in tmux: skipped with -short")
	}
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not on PATH: the live view is tested on a tmux pane, a real terminal")
	}
	tools := e2e.BuildDiffTools(t)
	dir := t.TempDir()
	const n = 30
	cfg := fmt.Sprintf(`resource "tether_value" "v" {
  count    = %d
  input    = "v${count.index}"
  delay_ms = 1500 + count.index * 50
}
`, n)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(tmuxBin, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "TERM=xterm-256color")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The pane first runs a shell command that waits, so that the option
	// keeping it after its command exits is set before tether starts.
	tmux("new-session", "-d", "-x", "100", "-y", "12", "-s", "live", "sleep 600")
	t.Cleanup(func() { exec.Command(tmuxBin, "-S", sock, "kill-server").Run() })
	tmux("set-option", "-t", "live", "remain-on-exit", "on")
	// The exit status goes to a file: tmux 3.3 leaves #{pane_dead_status}
	// empty for some exits, which the test once waited on for good.
	rcFile := filepath.Join(dir, "rc")
	tmux("respawn-pane", "-k", "-t", "live", fmt.Sprintf("cd %q && %q up --yes; echo $? > %q", dir, tools.Tether, rcFile))

	deadline := time.Now().Add(3 * time.Minute)
	for {
		if strings.TrimSpace(tmux("display-message", "-p", "-t", "live", "#{pane_dead}")) == "1" {
			rc, err := os.ReadFile(rcFile)
			if err != nil {
				t.Fatalf("tether up's exit status: %v", err)
			}
			if s := strings.TrimSpace(string(rc)); s != "0" {
				t.Errorf("tether up exited %s", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tether up still running after 3 minutes:\n%s", tmux("capture-pane", "-p", "-t", "live"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The scrollback and the screen, wrapped lines joined.
	all := tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "live")
	if rows := strings.Count(tmux("capture-pane", "-p", "-t", "live"), "\n"); rows != 12 {
		t.Fatalf("the pane has %d rows, the test needs 12 (fewer than the operations in flight)", rows)
	}
	if !strings.Contains(all, fmt.Sprintf("Apply complete! Resources: %d added, 0 changed, 0 destroyed.", n)) {
		t.Fatalf("no apply summary:\n%s", all)
	}
	for i := range n {
		done := fmt.Sprintf("tether_value.v[%d]: Creation complete after", i)
		if c := strings.Count(all, done); c != 1 {
			t.Errorf("%q appears %d times, want once", done, c)
		}
	}
	for _, stale := range []string{"Creating...", "more in progress"} {
		if c := strings.Count(all, stale); c > 0 {
			t.Errorf("%d stale lines of the live view (%q) left in the terminal:\n%s", c, stale, all)
			break
		}
	}
}
