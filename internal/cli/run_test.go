package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/backend"
)

// The new state file's content is built ahead only when the command will
// most likely create that file: the local backend's default workspace in
// the usual state folder, with no file there yet.
func TestFirstLocalState(t *testing.T) {
	for _, tc := range []struct {
		name      string
		dir       string
		workspace string
		files     []string // made in the state folder first
		want      bool
	}{
		{name: "a first run", dir: stateDir, want: true},
		{name: "the default workspace named", dir: stateDir, workspace: backend.DefaultWorkspace, want: true},
		{name: "the state file exists", dir: stateDir, files: []string{"state.db"}},
		{name: "a backend was set up", dir: stateDir, files: []string{"backend.json"}},
		{name: "another workspace", dir: stateDir, workspace: "staging"},
		{name: "another state folder (tether test)", dir: testStateDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.MkdirAll(stateDir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, name := range tc.files {
				content := "x"
				if name == "backend.json" {
					content = `{"type": "local"}`
				}
				if err := os.WriteFile(filepath.Join(stateDir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := firstLocalState(tc.dir, tc.workspace); got != tc.want {
				t.Errorf("firstLocalState(%q, %q) = %v, want %v", tc.dir, tc.workspace, got, tc.want)
			}
		})
	}
}
