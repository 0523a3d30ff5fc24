package state

import (
	"runtime"
	"sync"
	"testing"
)

// TestWriterGathersRunningCallers: callers that are running when the
// writer takes its first request commit in its group, not one
// transaction each. One P makes the schedule deterministic: each caller
// runs until it blocks on its own commit, and without the writer letting
// them run first it would take every request alone.
func TestWriterGathersRunningCallers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var (
		mu     sync.Mutex
		groups int
	)
	w := NewWriter(maxGroup, ErrClosed, func(group []*Request[struct{}]) error {
		mu.Lock()
		groups++
		mu.Unlock()
		return nil
	})
	defer w.Close()
	const n = 200
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := w.Commit(Changes{Delete: []string{"x"}}, struct{}{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if groups > n/10 {
		t.Errorf("%d callers running at once were committed in %d groups, want at most %d", n, groups, n/10)
	}
}

// TestWriterCommitAllocations: a Commit reuses the request and channel of
// one that returned (an apply commits once per object); it allocated both
// every time.
func TestWriterCommitAllocations(t *testing.T) {
	w := NewWriter(maxGroup, ErrClosed, func(group []*Request[struct{}]) error { return nil })
	defer w.Close()
	c := Changes{Delete: []string{"x"}}
	if n := testing.AllocsPerRun(100, func() { w.Commit(c, struct{}{}) }); n > 0 {
		t.Errorf("Commit made %v allocations, want none", n)
	}
}
