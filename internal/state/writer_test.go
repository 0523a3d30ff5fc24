package state

import (
	"errors"
	"fmt"
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

// TestWriterCommitLaterReportsEachOutcome: a commit handed over with
// CommitLater reports its own outcome once it is written, in the order the
// commits were queued; a closed writer reports ErrClosed at once.
func TestWriterCommitLaterReportsEachOutcome(t *testing.T) {
	var mu sync.Mutex
	written := map[string]bool{}
	w := NewWriter(maxGroup, ErrClosed, func(group []*Request[struct{}]) error {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range group {
			if a := r.Changes.Delete[0]; a == "bad" {
				r.Trouble = errors.New("bad object")
			} else {
				written[a] = true
			}
		}
		return nil
	})
	got := make(chan string, 3)
	for _, a := range []string{"a", "bad", "b"} {
		w.CommitLater(Changes{Delete: []string{a}}, struct{}{}, ThenFunc(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			got <- fmt.Sprintf("%s: %v, written %v", a, err, written[a])
		}))
	}
	for _, want := range []string{"a: <nil>, written true", "bad: bad object, written false", "b: <nil>, written true"} {
		if g := <-got; g != want {
			t.Errorf("got %q, want %q", g, want)
		}
	}
	w.Close()
	var closed error
	w.CommitLater(Changes{Delete: []string{"c"}}, struct{}{}, ThenFunc(func(err error) { closed = err }))
	if !errors.Is(closed, ErrClosed) {
		t.Errorf("CommitLater on a closed writer: %v, want ErrClosed", closed)
	}
}
