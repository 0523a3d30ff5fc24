package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// runtimePIDs writes the pids of the processes the local runtime runs for
// the configuration in DIR (routers, stores, functions: every process.json
// under its .tether/runtime) to FILE, for `running` to check later.
func runtimePIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pids DIR FILE")
	}
	var pids []string
	root := filepath.Join(ts.MkAbs(args[0]), ".tether", "runtime")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "process.json" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var rec struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
			pids = append(pids, strconv.Itoa(rec.PID))
		}
		return nil
	})
	if len(pids) == 0 {
		ts.Fatalf("no runtime process under %s", root)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(pids, "\n")+"\n"), 0o644))
}
