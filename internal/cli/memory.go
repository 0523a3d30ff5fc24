package cli

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The garbage collector's policy for a command, set once per process by
// Run unless the user set GOGC or GOMEMLIMIT.
//
// Most commands allocate less than heapFloor in all (a first apply of
// 1,000 resources allocates 23 to 34 MiB), and Go's default of collecting
// at every doubling from 4 MiB runs about ten collections there: a
// fifth to a third of such a command's CPU. So a command starts with no
// collection at all until its memory reaches heapFloor (a memory limit
// with GOGC off). A higher floor saves more at 10,000 resources (128 MiB:
// a third of their CPU) but raises every mid-sized command's peak by as
// much (160 against 102 MiB there).
//
// A plan holds every resource's values at once, so a large run's live heap
// is most of its peak; collecting at gcPercent growth above the live heap,
// not Go's 100, keeps a 100,000-resource run's peak lower for about the
// same CPU. Once a collection finds the live heap large enough that
// gcPercent would first collect above heapFloor, the command switches to
// gcPercent for good.
const (
	heapFloor = 64 << 20
	gcPercent = 60
)

var (
	tuneOnce sync.Once
	// policy guards started (the policy was set) and stopped (its watch
	// has ended): the watch runs in the runtime's cleanup goroutine.
	policy           sync.Mutex
	started, stopped bool
)

// tuneGC sets the policy above. A GOGC or GOMEMLIMIT in the environment
// wins: the runtime has already applied it.
func tuneGC() {
	tuneOnce.Do(func() {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		startPolicy()
	})
}

// startPolicy starts the policy: no collection below heapFloor, and a
// watch on every collection for the switch to gcPercent.
func startPolicy() {
	policy.Lock()
	defer policy.Unlock()
	started, stopped = true, false
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(heapFloor)
	watchCollections()
}

// stopPolicy hands the collector back to Go's defaults, for a command that
// sets its own (a provider server), if the policy was started.
func stopPolicy() {
	policy.Lock()
	defer policy.Unlock()
	if started && !stopped {
		stopped = true
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// growthPolicy reports whether a command whose last collection left live
// bytes of heap should collect at gcPercent growth from now on, rather
// than only at heapFloor.
func growthPolicy(live uint64) bool {
	return live*(100+gcPercent)/100 >= heapFloor
}

// watchCollections runs after every collection (a cleanup of an object
// made for that collection to free) until the live heap calls for
// collecting at gcPercent growth.
func watchCollections() {
	sentinel := new(struct{ _ [32]byte })
	runtime.AddCleanup(sentinel, func(struct{}) {
		policy.Lock()
		defer policy.Unlock()
		if stopped {
			return
		}
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && growthPolicy(sample[0].Value.Uint64()) {
			debug.SetGCPercent(gcPercent)
			debug.SetMemoryLimit(math.MaxInt64)
			stopped = true
			return
		}
		watchCollections()
	}, struct{}{})
}
