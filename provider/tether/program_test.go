package tether

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/zclconf/go-cty/cty"
)

func TestProgramCopy(t *testing.T) {
	r := newRT(t)
	o := r.Up("tether_program", nil, nil)
	path, sum := providercheck.String(t, o.State, "path"), providercheck.String(t, o.State, "sha256")
	want, err := fileDigest(r.exe)
	if err != nil {
		t.Fatal(err)
	}
	if sum != want {
		t.Errorf("sha256 %s, want the executable's %s", sum, want)
	}
	if !strings.HasPrefix(path, r.root+string(filepath.Separator)) || filepath.Base(path) != filepath.Base(r.exe) {
		t.Errorf("copied to %s, want a file named %s under %s", path, filepath.Base(r.exe), r.root)
	}
	if got, err := fileDigest(path); err != nil || got != want {
		t.Errorf("the copy's digest is %s (%v), want %s", got, err, want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the copy's mode: %v %v", info.Mode(), err)
	}
	// The copy runs: here, as the runtime's help.
	if out, err := exec.Command(path, "runtime", "help").CombinedOutput(); err != nil || !strings.Contains(string(out), "Usage: tether runtime MODE") {
		t.Errorf("the copy does not run: %v\n%s", err, out)
	}

	// The same executable: nothing to do.
	pr := r.Plan("tether_program", o, nil)
	providercheck.NoErrors(t, "plan", pr.Diagnostics)
	if !pr.PlannedState.RawEquals(o.State) || len(pr.RequiresReplace) > 0 {
		t.Errorf("plan over an up-to-date copy: %#v, replace %v", pr.PlannedState, pr.RequiresReplace)
	}
	// Another build of the executable replaces the copy.
	stale := &providercheck.Object{Type: o.Type, State: withAttrs(o.State, map[string]cty.Value{"sha256": cty.StringVal("0123")}), Private: o.Private}
	pr = r.Plan("tether_program", stale, nil)
	if !providercheck.HasReplace(pr.RequiresReplace, "sha256") || pr.PlannedState.GetAttr("path").IsKnown() || providercheck.String(t, pr.PlannedState, "sha256") != want {
		t.Errorf("plan over a stale copy: %#v, replace %v", pr.PlannedState, pr.RequiresReplace)
	}
	// A copy changed or deleted outside Tether is gone, to be made again.
	if err := os.WriteFile(path, []byte("not the program"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Refresh(o); got != nil {
		t.Errorf("refresh of a changed copy: %#v", got.State)
	}
	dir := filepath.Dir(path)
	os.Remove(path)
	if got, _ := r.Refresh(o); got != nil {
		t.Errorf("refresh of a deleted copy: %#v", got.State)
	}
	r.Down(o)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("destroy left %s: %v", dir, err)
	}
}
