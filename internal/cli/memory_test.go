package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads the collector's percent and memory limit without
// changing them.
func gcSettings() (percent int64, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// TestCollectorPolicy checks the policy a command runs under: no
// collection while its heap is small, and collection at gcPercent growth
// once a collection finds a live heap that would reach heapFloor.
func TestCollectorPolicy(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	startPolicy()

	runtime.GC()
	time.Sleep(50 * time.Millisecond) // room for the cleanup to run
	if percent, limit := gcSettings(); percent != -1 || limit != heapFloor {
		t.Fatalf("with a small live heap: GOGC %d and limit %d, want off (-1) and %d", percent, limit, heapFloor)
	}

	var held [][]byte
	for size := 0; size < heapFloor*100/(100+gcPercent)+16<<20; size += 1 << 20 {
		held = append(held, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		percent, limit := gcSettings()
		if percent == gcPercent && limit == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with %d MiB live: GOGC %d and limit %d, want %d and no limit", len(held), percent, limit, gcPercent)
		}
		time.Sleep(20 * time.Millisecond)
	}
	runtime.KeepAlive(held)

	// A provider server sets its own policy: the command's steps aside.
	startPolicy()
	stopPolicy()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if percent, limit := gcSettings(); percent != 100 || limit != math.MaxInt64 {
		t.Fatalf("after stopPolicy: GOGC %d and limit %d, want Go's defaults", percent, limit)
	}
}
