package tftest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
)

// TestMockSourceBadInput: a mock_provider's source that cannot be read, or
// mock data files that say something twice or hold what a mock data file
// cannot, are errors at the place they are written.
func TestMockSourceBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // "FILE:LINE:COL: SUMMARY"
	}{
		{"missing folder", map[string]string{
			"t.tftest.hcl": "mock_provider \"tether\" {\n  source = \"./nothere\"\n}\n",
		}, "t.tftest.hcl:2:12: Failed to read mock data directory"},
		{"not a string", map[string]string{
			"t.tftest.hcl": "mock_provider \"tether\" {\n  source = [\"./m\"]\n}\n",
		}, "t.tftest.hcl:2:12: Invalid source"},
		{"twice in one file", map[string]string{
			"t.tftest.hcl":   "mock_provider \"tether\" {\n  source = \"./m\"\n}\n",
			"m/a.tfmock.hcl": "mock_resource \"tether_value\" {}\nmock_resource \"tether_value\" {}\n",
		}, "m/a.tfmock.hcl:2:15: Duplicate mock_resource block"},
		{"twice in two files", map[string]string{
			"t.tftest.hcl":    "mock_provider \"tether\" {\n  source = \"./m\"\n}\n",
			"m/a.tfmock.hcl":  "mock_data \"tether_x\" {}\n",
			"m/b.tfmock.json": "{\"mock_data\": {\"tether_x\": {}}}\n",
		}, "m/b.tfmock.json:1:16: Duplicate mock_data block"},
		{"argument in a file", map[string]string{
			"t.tftest.hcl":   "mock_provider \"tether\" {\n  source = \"./m\"\n}\n",
			"m/a.tfmock.hcl": "alias = \"x\"\n",
		}, "m/a.tfmock.hcl:1:1: Unsupported argument"},
		{"defaults not an object", map[string]string{
			"t.tftest.hcl":   "mock_provider \"tether\" {\n  source = \"./m\"\n}\n",
			"m/a.tfmock.hcl": "mock_resource \"tether_value\" {\n  defaults = 3\n}\n",
		}, "m/a.tfmock.hcl:2:14: Invalid defaults"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			_, diags := Parse(hclparse.NewParser(), dir, "t.tftest.hcl")
			var got []string
			for _, d := range diags {
				if d.Subject != nil {
					got = append(got, fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
				}
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("diagnostics %q, want just %q (all: %v)", got, c.want, diags)
			}
		})
	}
}

// TestMockSourceFolder: a source folder's files give the mock its blocks,
// under the mock's own blocks for the same type or target, and files of
// other names are not read.
func TestMockSourceFolder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"t.tftest.hcl": "mock_provider \"tether\" {\n  source = \"m\"\n  override_during = plan\n" +
			"  mock_resource \"tether_file\" {\n    defaults = { id = \"inline\" }\n  }\n}\n",
		"m/a.tfmock.hcl":  "mock_resource \"tether_file\" {\n  defaults = { id = \"file\" }\n}\nmock_resource \"tether_value\" {\n  defaults = { output = \"file\" }\n}\n",
		"m/b.tfmock.json": "{\"override_data\": [{\"target\": \"data.tether_x.y\"}]}",
		"m/c.tfmock.hcl~": "not read",
		"m/notes.hcl":     "not read",
	})
	f, diags := Parse(hclparse.NewParser(), dir, "t.tftest.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	m := f.Mocks[0]
	if got := m.Resources["tether_file"].Value.GetAttr("id").AsString(); got != "inline" {
		t.Errorf("tether_file's id is %q, want the block's own inline", got)
	}
	v := m.Resources["tether_value"]
	if got := v.Value.GetAttr("output").AsString(); got != "file" || !v.UseForPlan {
		t.Errorf("tether_value's output is %q (override_during plan %v), want the file's, at plan as its mock_provider says", got, v.UseForPlan)
	}
	if len(m.Overrides) != 1 || m.Overrides[0].Target != "data.tether_x.y" || !m.Overrides[0].UseForPlan {
		t.Errorf("overrides %+v, want the JSON file's data.tether_x.y, at plan", m.Overrides)
	}
}

// writeFiles writes files (by path relative to the folder) into a new
// folder, which it returns.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
