package startgc

import (
	"os"
	"runtime/debug"
)

// held reports that the initialiser turned collection off and nothing has
// given it back since (Release).
var held bool

// It runs early: it imports little, so it is initialised as soon as os and
// runtime/debug are, long before the packages that allocate the most.
func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	held = true
	debug.SetGCPercent(-1)
}

// Release gives Go's default collector (GOGC=100) back to a process that
// runs neither a command nor a server, which set their own policy: the
// runtime's long-running helpers (`tether runtime ...`). It changes
// nothing when the environment set GOGC or GOMEMLIMIT, or when called
// again.
func Release() {
	if held {
		held = false
		debug.SetGCPercent(100)
	}
}
