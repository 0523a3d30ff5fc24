package main

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/canary"
)

// noLeak checks that none of the secrets given as arguments appears, as
// is or encoded (see internal/canary), in what the last command printed
// or in any file of the state folder, .tether, of the current directory.
func noLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: noleak SECRET...")
	}
	for _, stream := range []string{"stdout", "stderr"} {
		if _, how, ok := canary.Find([]byte(ts.ReadFile(stream)), args...); ok {
			ts.Fatalf("%s holds a secret (%s)", stream, how)
		}
	}
	dir := ts.MkAbs(".tether")
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return
	}
	leaks, err := canary.ScanDir(dir, args)
	ts.Check(err)
	for _, l := range leaks {
		ts.Logf("%s", l)
	}
	if len(leaks) > 0 {
		ts.Fatalf("the state folder holds a secret")
	}
}
