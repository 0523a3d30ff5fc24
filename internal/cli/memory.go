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
// Above heapFloor, a command collects when its heap has grown by
// growPercent over what the last collection left live, but never lets the
// runtime's memory pass heapCap while the live heap is small enough for
// that: a memory limit of heapCap, raised after every collection to
// tightPercent above the live heap once that is larger. Most of a large
// run's allocation is short-lived (the parse, each instance's plan) while
// its live heap grows to hold every resource, so Go's 100, or 60
// throughout, collects many times while the live heap is still small; the
// limit keeps the peak of a 100,000-resource run under 600 MB, where its
// live heap is most of it. Because the limit is never below tightPercent
// over the live heap, a run larger than heapCap collects at that growth
// instead of continually.
const (
	heapFloor    = 64 << 20
	heapCap      = 480 << 20
	growPercent  = 150
	tightPercent = 60
)

var (
	tuneOnce sync.Once
	// policy guards started (the policy was set), grown (it collects at
	// growPercent) and stopped (its watch has ended): the watch runs in
	// the runtime's cleanup goroutine.
	policy                  sync.Mutex
	started, grown, stopped bool
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
// watch on every collection for the switch to growPercent and the limit.
func startPolicy() {
	policy.Lock()
	defer policy.Unlock()
	started, grown, stopped = true, false, false
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
// bytes of heap should collect at growPercent growth from now on, rather
// than only at heapFloor.
func growthPolicy(live uint64) bool {
	return live*(100+growPercent)/100 >= heapFloor
}

// limitFor is the memory limit above heapFloor for a live heap of live
// bytes: heapCap, or tightPercent over the live heap when that is more.
func limitFor(live uint64) int64 {
	return int64(max(heapCap, live*(100+tightPercent)/100))
}

// watchCollections runs after every collection (a cleanup of an object
// made for that collection to free) until the policy is stopped: it
// switches to growPercent once the live heap calls for it, and from then
// on keeps the limit at limitFor the live heap.
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
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live := sample[0].Value.Uint64()
			switch {
			case grown:
				debug.SetMemoryLimit(limitFor(live))
			case growthPolicy(live):
				grown = true
				debug.SetGCPercent(growPercent)
				debug.SetMemoryLimit(limitFor(live))
			}
		}
		watchCollections()
	}, struct{}{})
}
