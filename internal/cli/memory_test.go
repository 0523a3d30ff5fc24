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
// collection while its heap is small, and collection at growPercent growth
// under a limit once a collection finds a live heap that would reach
// heapFloor.
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
	for size := 0; size < heapFloor*100/(100+growPercent)+16<<20; size += 1 << 20 {
		held = append(held, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		percent, limit := gcSettings()
		if percent == growPercent && limit == heapCap {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with %d MiB live: GOGC %d and limit %d, want %d and %d", len(held), percent, limit, growPercent, heapCap)
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

// TestLimitStaysAboveTheLiveHeap checks that the limit never makes a
// large run collect continually: it is heapCap (480 MiB) while that leaves
// room, and 60% over the live heap beyond.
func TestLimitStaysAboveTheLiveHeap(t *testing.T) {
	for _, c := range []struct{ live, want uint64 }{
		{0, 480 << 20},
		{100 << 20, 480 << 20},
		{300 << 20, 480 << 20},
		{400 << 20, 640 << 20},
		{2 << 30, 3276 << 20},
	} {
		if got := uint64(limitFor(c.live)); got>>20 != c.want>>20 {
			t.Errorf("limitFor(%d MiB) = %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}
