package e2e

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/canary"
)

// noLeak checks that none of the secrets given as arguments appears, as
// is or encoded (see internal/canary), in what the last command printed
// or in any file of the state folder, .tether, of the current directory.
//
// With -work it reads every file under the scenario's work folder
// instead (state, write-ahead log, saved plans, logs, runtime folders,
// temporary files), but for the provider binaries (.mirror and
// .tether/providers) and the folders named with -skip, relative to the
// work folder: where the configuration itself writes the secret, such as
// a local_file's output.
func noLeak(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: noleak [-work [-skip DIR]...] SECRET..."
	if neg {
		ts.Fatalf("%s", usage)
	}
	dir := ts.MkAbs(".tether")
	var skip []string
	if len(args) > 0 && args[0] == "-work" {
		dir, args = ts.Getenv("WORK"), args[1:]
		skip = []string{".mirror", ".tether/providers"}
		for len(args) >= 2 && args[0] == "-skip" {
			skip, args = append(skip, args[1]), args[2:]
		}
	}
	if len(args) == 0 {
		ts.Fatalf("%s", usage)
	}
	for _, stream := range []string{"stdout", "stderr"} {
		if _, how, ok := canary.Find([]byte(ts.ReadFile(stream)), args...); ok {
			ts.Fatalf("%s holds a secret (%s)", stream, how)
		}
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return
	}
	leaks, err := canary.ScanDir(dir, args, skip...)
	ts.Check(err)
	for _, l := range leaks {
		ts.Logf("%s", l)
	}
	if len(leaks) > 0 {
		ts.Fatalf("the state folder holds a secret")
	}
}
