package startgc_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
	"github.com/tetherhq/tether/internal/startgc"
)

// A tether process runs no collection before its command sets the
// collector's policy: GODEBUG=gctrace=1 prints a line for every
// collection. Before startgc, the packages' initialisers started one in
// most runs, so a few runs show it.
func TestTetherStartsWithoutACollection(t *testing.T) {
	tether, err := providertest.GoBuild("./cmd/tether")
	if err != nil {
		t.Fatal(err)
	}
	collection := regexp.MustCompile(`(?m)^gc \d+ @`)
	for range 5 {
		cmd := exec.Command(tether, "version")
		cmd.Env = append(withoutCollectorSettings(), "GODEBUG=gctrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("tether version: %v\n%s", err, stderr.Bytes())
		}
		if collection.Match(stderr.Bytes()) {
			t.Fatalf("tether version ran a collection while starting:\n%s", stderr.Bytes())
		}
	}
}

// withoutCollectorSettings is the environment without what would set
// the collector (or trace it) otherwise.
func withoutCollectorSettings() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "GOGC" && name != "GOMEMLIMIT" && name != "GODEBUG" {
			env = append(env, kv)
		}
	}
	return env
}

func TestReleaseGivesTheDefaultBack(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("the environment sets the collector; startgc left it alone")
	}
	// This test binary links startgc, whose initialiser turned collection
	// off.
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("collection at start: GOGC=%d, want off (-1)", got)
	}
	startgc.Release()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("after Release: GOGC=%d, want Go's default 100", got)
	}
}
