package tether

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/provider"
	"github.com/zclconf/go-cty/cty"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFileLifecycle(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "nested", "dir", "hello.txt")
	cfg := h.config("tether_file", map[string]cty.Value{
		"path":    cty.StringVal(path),
		"content": cty.StringVal("hello\n"),
	})

	// Create: the plan already knows the digest and the default mode.
	pr := h.plan("tether_file", cty.NilVal, cfg)
	noErrors(t, "plan", pr.Diagnostics)
	if got := str(t, pr.PlannedState, "sha256"); got != sha("hello\n") {
		t.Errorf("planned sha256 = %s, want %s", got, sha("hello\n"))
	}
	if got := str(t, pr.PlannedState, "file_permission"); got != "0644" {
		t.Errorf("planned file_permission = %q, want default 0644", got)
	}
	if len(pr.RequiresReplace) != 0 {
		t.Errorf("create plan has RequiresReplace %#v", pr.RequiresReplace)
	}
	ar := h.apply("tether_file", cty.NilVal, pr.PlannedState, cfg)
	noErrors(t, "apply", ar.Diagnostics)
	state := ar.NewState
	if got := readString(t, path); got != "hello\n" {
		t.Fatalf("file content = %q", got)
	}
	if got := mode(t, path); got != 0o644 {
		t.Errorf("file mode = %o, want 644", got)
	}
	if str(t, state, "id") != path || str(t, state, "sha256") != sha("hello\n") {
		t.Errorf("state = %#v", state)
	}

	// Refresh with nothing changed gives back the same object.
	rr := h.read("tether_file", state)
	noErrors(t, "read", rr.Diagnostics)
	if !rr.NewState.RawEquals(state) {
		t.Fatalf("refresh changed an untouched file:\n got %#v\nwant %#v", rr.NewState, state)
	}

	// Edited by hand: refresh reports what is really there, and the plan
	// puts the configured content back in place rather than replacing.
	if err := os.WriteFile(path, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr = h.read("tether_file", state)
	noErrors(t, "read", rr.Diagnostics)
	if str(t, rr.NewState, "content") != "tampered" || str(t, rr.NewState, "sha256") != sha("tampered") {
		t.Fatalf("refresh after edit = %#v", rr.NewState)
	}
	pr = h.plan("tether_file", rr.NewState, cfg)
	noErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("content drift forces replacement: %#v", pr.RequiresReplace)
	}
	if str(t, pr.PlannedState, "content") != "hello\n" {
		t.Fatalf("planned content = %#v", pr.PlannedState.GetAttr("content"))
	}
	state = h.converge("tether_file", rr.NewState, cfg)
	if got := readString(t, path); got != "hello\n" {
		t.Fatalf("file content after repair = %q", got)
	}

	// Permission and content change in place.
	cfg2 := h.config("tether_file", map[string]cty.Value{
		"path":            cty.StringVal(path),
		"content":         cty.StringVal("second"),
		"file_permission": cty.StringVal("0600"),
	})
	pr = h.plan("tether_file", state, cfg2)
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("content/permission change forces replacement: %#v", pr.RequiresReplace)
	}
	state = h.converge("tether_file", state, cfg2)
	if readString(t, path) != "second" || mode(t, path) != 0o600 {
		t.Fatalf("after update: content %q mode %o", readString(t, path), mode(t, path))
	}

	// Hand-changed mode is drift too.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	rr = h.read("tether_file", state)
	if got := str(t, rr.NewState, "file_permission"); got != "0640" {
		t.Fatalf("refreshed file_permission = %q, want 0640", got)
	}

	// A new path means a new file.
	cfg3 := h.config("tether_file", map[string]cty.Value{
		"path":    cty.StringVal(path + ".moved"),
		"content": cty.StringVal("second"),
	})
	pr = h.plan("tether_file", state, cfg3)
	if !hasReplace(pr.RequiresReplace, "path") {
		t.Fatalf("path change does not force replacement: %#v", pr.RequiresReplace)
	}

	// Deleted by hand: refresh says the object is gone.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	rr = h.read("tether_file", state)
	noErrors(t, "read", rr.Diagnostics)
	if !rr.NewState.IsNull() {
		t.Fatalf("refresh of deleted file = %#v, want null", rr.NewState)
	}

	// Destroy removes the file, and tolerates it being gone already.
	state = h.converge("tether_file", cty.NilVal, cfg)
	dr := h.destroy("tether_file", state)
	noErrors(t, "destroy", dr.Diagnostics)
	if !dr.NewState.IsNull() {
		t.Fatalf("destroy left state %#v", dr.NewState)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there after destroy: %v", err)
	}
	dr = h.destroy("tether_file", state)
	noErrors(t, "destroy of missing file", dr.Diagnostics)
}

func TestFilePermissionSpellingIsNotDrift(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "f")
	cfg := h.config("tether_file", map[string]cty.Value{
		"path":            cty.StringVal(path),
		"content":         cty.StringVal("x"),
		"file_permission": cty.StringVal("755"),
	})
	state := h.converge("tether_file", cty.NilVal, cfg)
	if mode(t, path) != 0o755 {
		t.Fatalf("mode = %o, want 755", mode(t, path))
	}
	rr := h.read("tether_file", state)
	if got := str(t, rr.NewState, "file_permission"); got != "755" {
		t.Fatalf("refresh turned %q into %q, which the next plan would show as a change", "755", got)
	}
}

func TestFileRelativePathFollowsWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	h := newHarness(t)
	cfg := h.config("tether_file", map[string]cty.Value{
		"path":    cty.StringVal("out/rel.txt"),
		"content": cty.StringVal("relative"),
	})
	state := h.converge("tether_file", cty.NilVal, cfg)
	if got := readString(t, filepath.Join(dir, "out", "rel.txt")); got != "relative" {
		t.Fatalf("content = %q", got)
	}
	if str(t, state, "id") != "out/rel.txt" {
		t.Fatalf("id = %q, want the path as given", str(t, state, "id"))
	}
}

func TestFileWriteFailureIsDiagnostic(t *testing.T) {
	h := newHarness(t)
	blocker := filepath.Join(t.TempDir(), "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "child.txt")
	cfg := h.config("tether_file", map[string]cty.Value{
		"path":    cty.StringVal(path),
		"content": cty.StringVal("x"),
	})
	pr := h.plan("tether_file", cty.NilVal, cfg)
	noErrors(t, "plan", pr.Diagnostics)
	ar := h.apply("tether_file", cty.NilVal, pr.PlannedState, cfg)
	if !ar.Diagnostics.HasErrors() {
		t.Fatal("writing under a regular file succeeded")
	}
	d := ar.Diagnostics[0]
	if d.Summary != "Cannot write file" || !strings.Contains(d.Detail, path) || !strings.Contains(d.Detail, "not a directory") {
		t.Errorf("diagnostic = %q / %q, want the path and the OS error", d.Summary, d.Detail)
	}
	if !ar.NewState.IsNull() {
		t.Errorf("failed create left state %#v", ar.NewState)
	}
}

func TestFileImport(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "existing")
	if err := os.WriteFile(path, []byte("already here"), 0o600); err != nil {
		t.Fatal(err)
	}
	ir := h.p.ImportResourceState(context.Background(), provider.ImportRequest{TypeName: "tether_file", ID: path})
	noErrors(t, "import", ir.Diagnostics)
	if len(ir.Imported) != 1 {
		t.Fatalf("imported %d objects", len(ir.Imported))
	}
	st := ir.Imported[0].State
	if str(t, st, "content") != "already here" || str(t, st, "file_permission") != "0600" || str(t, st, "path") != path {
		t.Fatalf("imported state = %#v", st)
	}
	ir = h.p.ImportResourceState(context.Background(), provider.ImportRequest{TypeName: "tether_file", ID: path + ".nope"})
	if !ir.Diagnostics.HasErrors() {
		t.Fatal("importing a missing file succeeded")
	}
}

func TestFileDataSource(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(path, []byte("data!"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := h.dataConfig("tether_file", map[string]cty.Value{"path": cty.StringVal(path)})
	noErrors(t, "validate", h.p.ValidateDataSourceConfig("tether_file", cfg))
	resp := h.p.ReadDataSource(context.Background(), provider.ReadDataRequest{TypeName: "tether_file", Config: cfg})
	noErrors(t, "read", resp.Diagnostics)
	if str(t, resp.State, "content") != "data!" || str(t, resp.State, "sha256") != sha("data!") || str(t, resp.State, "id") != path {
		t.Fatalf("state = %#v", resp.State)
	}

	missing := filepath.Join(t.TempDir(), "missing.txt")
	cfg = h.dataConfig("tether_file", map[string]cty.Value{"path": cty.StringVal(missing)})
	resp = h.p.ReadDataSource(context.Background(), provider.ReadDataRequest{TypeName: "tether_file", Config: cfg})
	if !resp.Diagnostics.HasErrors() {
		t.Fatal("reading a missing file succeeded")
	}
	if !strings.Contains(resp.Diagnostics[0].Summary, missing) {
		t.Errorf("summary %q does not name the path", resp.Diagnostics[0].Summary)
	}
}
