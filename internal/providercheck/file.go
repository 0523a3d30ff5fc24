package providercheck

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// FileScenarios are the expectations of the built-in provider's
// tether_file, resource and data source, whatever carries the calls: its
// lifecycle with drift, in-place updates and replacement, permissions,
// failures, import and state upgrade, reading, and validation. The
// provider must reach the test's own folders.
var FileScenarios = []Scenario{
	{"lifecycle", fileLifecycle},
	{"permission spelling is not drift", filePermissionSpelling},
	{"write failure", fileWriteFailure},
	{"import and upgrade", fileImport},
	{"data source", fileDataSource},
	{"invalid configuration", fileInvalid},
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// CheckFile checks what the file at path holds and its permission bits.
func CheckFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content {
		t.Errorf("%s holds %q, want %q", path, b, content)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != perm {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), perm)
	}
}

func fileAttrs(path, content string, perm ...string) map[string]cty.Value {
	attrs := map[string]cty.Value{"path": cty.StringVal(path), "content": cty.StringVal(content)}
	if len(perm) > 0 {
		attrs["file_permission"] = cty.StringVal(perm[0])
	}
	return attrs
}

func fileLifecycle(t *testing.T, h *Harness) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "hello.txt")
	cfg := fileAttrs(path, "hello\n")

	// Create: the plan already knows the digest and the default mode, and
	// the apply keeps to it exactly.
	NoErrors(t, "validate", h.Provider.ValidateResourceConfig("tether_file", h.Config("tether_file", cfg)))
	pr := h.Plan("tether_file", nil, cfg)
	NoErrors(t, "plan", pr.Diagnostics)
	if got := String(t, pr.PlannedState, "sha256"); got != sha("hello\n") {
		t.Errorf("planned sha256 = %s, want %s", got, sha("hello\n"))
	}
	if got := String(t, pr.PlannedState, "file_permission"); got != "0644" {
		t.Errorf("planned file_permission = %q, want default 0644", got)
	}
	if len(pr.RequiresReplace) != 0 {
		t.Errorf("create plan has RequiresReplace %#v", pr.RequiresReplace)
	}
	ar := h.Apply("tether_file", nil, pr, cfg)
	NoErrors(t, "apply", ar.Diagnostics)
	if !ar.NewState.RawEquals(pr.PlannedState) {
		t.Errorf("new state %#v differs from planned %#v", ar.NewState, pr.PlannedState)
	}
	CheckFile(t, path, "hello\n", 0o644)
	o := &Object{Type: "tether_file", State: ar.NewState, Private: ar.Private}
	if String(t, o.State, "id") != path || String(t, o.State, "sha256") != sha("hello\n") {
		t.Errorf("state = %#v", o.State)
	}

	// Refresh with nothing changed gives back the same object.
	same, diags := h.Refresh(o)
	NoErrors(t, "read", diags)
	if same == nil || !same.State.RawEquals(o.State) {
		t.Fatalf("refresh changed an untouched file:\n got %#v\nwant %#v", same, o.State)
	}

	// Edited by hand: refresh reports what is really there, and the plan
	// puts the configured content back in place rather than replacing.
	if err := os.WriteFile(path, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	drifted, diags := h.Refresh(o)
	NoErrors(t, "read", diags)
	if String(t, drifted.State, "content") != "tampered" || String(t, drifted.State, "sha256") != sha("tampered") {
		t.Fatalf("refresh after edit = %#v", drifted.State)
	}
	pr = h.Plan("tether_file", drifted, cfg)
	NoErrors(t, "plan", pr.Diagnostics)
	if len(pr.RequiresReplace) != 0 {
		t.Fatalf("content drift forces replacement: %#v", pr.RequiresReplace)
	}
	if String(t, pr.PlannedState, "content") != "hello\n" {
		t.Fatalf("planned content = %#v", pr.PlannedState.GetAttr("content"))
	}
	o = h.Up("tether_file", drifted, cfg)
	CheckFile(t, path, "hello\n", 0o644)

	// Permission and content change in place.
	cfg2 := fileAttrs(path, "second", "0600")
	if pr := h.Plan("tether_file", o, cfg2); len(pr.RequiresReplace) != 0 {
		t.Fatalf("content/permission change forces replacement: %#v", pr.RequiresReplace)
	}
	o = h.Up("tether_file", o, cfg2)
	CheckFile(t, path, "second", 0o600)

	// A hand-changed mode is drift too, and so is content changed with it.
	if err := os.WriteFile(path, []byte("edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	drifted, diags = h.Refresh(o)
	NoErrors(t, "read drift", diags)
	if got := String(t, drifted.State, "file_permission"); got != "0640" {
		t.Errorf("refreshed file_permission = %q, want 0640", got)
	}
	if got := String(t, drifted.State, "content"); got != "edited\n" {
		t.Errorf("refreshed content = %q, want the edit", got)
	}
	cfg3 := fileAttrs(path, "two\n", "0600")
	if pr := h.Plan("tether_file", drifted, cfg3); len(pr.RequiresReplace) != 0 {
		t.Fatalf("an update after drift forces replacement: %#v", pr.RequiresReplace)
	}
	o = h.Up("tether_file", drifted, cfg3)
	CheckFile(t, path, "two\n", 0o600)

	// A new path means a new file, and nothing else does.
	pr = h.Plan("tether_file", o, fileAttrs(path+".moved", "two\n", "0600"))
	NoErrors(t, "plan replace", pr.Diagnostics)
	if len(pr.RequiresReplace) != 1 || !HasReplace(pr.RequiresReplace, "path") {
		t.Fatalf("a path change requires replacing %#v, want path alone", pr.RequiresReplace)
	}

	// Deleted by hand: refresh says the object is gone.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	gone, diags := h.Refresh(o)
	NoErrors(t, "read", diags)
	if gone != nil {
		t.Fatalf("refresh of deleted file = %#v, want null", gone.State)
	}

	// Destroy removes the file, and tolerates it being gone already.
	o = h.Up("tether_file", nil, cfg)
	h.Down(o)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there after destroy: %v", err)
	}
	gone, diags = h.Refresh(o)
	NoErrors(t, "read destroyed", diags)
	if gone != nil {
		t.Errorf("read of a destroyed file = %#v, want null", gone.State)
	}
	dr := h.Destroy(o)
	NoErrors(t, "destroy of a missing file", dr.Diagnostics)
	if !dr.NewState.IsNull() {
		t.Errorf("destroy of a missing file left %#v", dr.NewState)
	}
}

func filePermissionSpelling(t *testing.T, h *Harness) {
	path := filepath.Join(t.TempDir(), "f")
	o := h.Up("tether_file", nil, fileAttrs(path, "x", "755"))
	CheckFile(t, path, "x", 0o755)
	again, diags := h.Refresh(o)
	NoErrors(t, "read", diags)
	if got := String(t, again.State, "file_permission"); got != "755" {
		t.Fatalf("refresh turned %q into %q, which the next plan would show as a change", "755", got)
	}
}

func fileWriteFailure(t *testing.T, h *Harness) {
	blocker := filepath.Join(t.TempDir(), "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "child.txt")
	cfg := fileAttrs(path, "x")
	pr := h.Plan("tether_file", nil, cfg)
	NoErrors(t, "plan", pr.Diagnostics)
	ar := h.Apply("tether_file", nil, pr, cfg)
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

func fileImport(t *testing.T, h *Harness) {
	path := filepath.Join(t.TempDir(), "existing")
	if err := os.WriteFile(path, []byte("already here"), 0o600); err != nil {
		t.Fatal(err)
	}
	ir := h.Import("tether_file", path)
	NoErrors(t, "import", ir.Diagnostics)
	if len(ir.Imported) != 1 || ir.Imported[0].TypeName != "tether_file" {
		t.Fatalf("imported %#v, want one tether_file", ir.Imported)
	}
	st := ir.Imported[0].State
	if String(t, st, "content") != "already here" || String(t, st, "file_permission") != "0600" || String(t, st, "path") != path {
		t.Fatalf("imported state = %#v", st)
	}

	// The imported object, recorded as JSON, upgrades to itself: the
	// schema has never changed.
	ty := h.Resource("tether_file").Block.ImpliedType()
	raw, err := ctyjson.Marshal(st, ty)
	if err != nil {
		t.Fatal(err)
	}
	up := h.Upgrade("tether_file", 0, raw)
	NoErrors(t, "upgrade", up.Diagnostics)
	if !up.UpgradedState.RawEquals(st) {
		t.Errorf("upgraded %#v, want %#v", up.UpgradedState, st)
	}

	if ir := h.Import("tether_file", path+".nope"); !ir.Diagnostics.HasErrors() {
		t.Error("importing a missing file succeeded")
	}
	if ir := h.Import("tether_value", "x"); !ir.Diagnostics.HasErrors() || len(ir.Imported) != 0 {
		t.Errorf("importing tether_value: %v %v", ir.Imported, ir.Diagnostics)
	}
}

func fileDataSource(t *testing.T, h *Harness) {
	path := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(path, []byte("data!"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := h.ReadData("tether_file", map[string]cty.Value{"path": cty.StringVal(path)})
	NoErrors(t, "read", resp.Diagnostics)
	if String(t, resp.State, "content") != "data!" || String(t, resp.State, "sha256") != sha("data!") || String(t, resp.State, "id") != path {
		t.Fatalf("state = %#v", resp.State)
	}

	// A missing file is an error about the path attribute, naming it.
	missing := filepath.Join(t.TempDir(), "missing.txt")
	resp = h.ReadData("tether_file", map[string]cty.Value{"path": cty.StringVal(missing)})
	WantOnlyError(t, resp.Diagnostics, cty.GetAttrPath("path"), "does not exist")
	if !strings.Contains(resp.Diagnostics[0].Summary, missing) {
		t.Errorf("summary %q does not name the path", resp.Diagnostics[0].Summary)
	}
	if !resp.State.IsNull() {
		t.Errorf("state of a missing file %#v", resp.State)
	}
}

// fileInvalid checks that a bad value is refused at validation and again
// at plan, with the attribute it is about.
func fileInvalid(t *testing.T, h *Harness) {
	for _, perm := range []string{"0999", "0888", "rw-r--r--"} {
		t.Run(perm, func(t *testing.T) {
			h := h.For(t)
			attrs := fileAttrs(filepath.Join(t.TempDir(), "x"), "x", perm)
			diags := h.Provider.ValidateResourceConfig("tether_file", h.Config("tether_file", attrs))
			WantOnlyError(t, diags, cty.GetAttrPath("file_permission"), "not a file permission")
			WantAttrError(t, diags, "file_permission")
			WantOnlyError(t, h.Plan("tether_file", nil, attrs).Diagnostics, cty.GetAttrPath("file_permission"), "not a file permission")
		})
	}
}
