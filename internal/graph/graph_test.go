package graph

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestOrderPutsDependenciesFirst(t *testing.T) {
	g := New(4)
	g.DependsOn(0, 1) // 0 after 1
	g.DependsOn(1, 2)
	g.DependsOn(3, 2)
	order, cycle := g.Order()
	if cycle != nil {
		t.Fatalf("unexpected cycle %v", cycle)
	}
	pos := map[int]int{}
	for i, n := range order {
		pos[n] = i
	}
	for a := 0; a < g.Len(); a++ {
		for _, b := range g.Deps(a) {
			if pos[int(b)] > pos[a] {
				t.Errorf("node %d ordered before its dependency %d: %v", a, b, order)
			}
		}
	}
}

func TestOrderReportsEveryCycleMemberInOrder(t *testing.T) {
	g := New(5)
	g.DependsOn(0, 4) // 0 hangs off the cycle, not in it
	g.DependsOn(1, 2)
	g.DependsOn(2, 3)
	g.DependsOn(3, 1)
	_, cycle := g.Order()
	if len(cycle) != 3 {
		t.Fatalf("cycle = %v, want the 3 members 1,2,3", cycle)
	}
	// Each member depends on the next, the last on the first.
	for i, n := range cycle {
		next := cycle[(i+1)%len(cycle)]
		found := false
		for _, d := range g.Deps(n) {
			if int(d) == next {
				found = true
			}
		}
		if !found {
			t.Errorf("cycle %v: %d does not depend on %d", cycle, n, next)
		}
	}
}

func TestSelfDependencyIsACycle(t *testing.T) {
	g := New(2)
	g.DependsOn(1, 1)
	if _, cycle := g.Order(); !reflect.DeepEqual(cycle, []int{1}) {
		t.Fatalf("cycle = %v, want [1]", cycle)
	}
}

func TestWalkRespectsDependenciesAndRunsIndependentWorkInParallel(t *testing.T) {
	// Two independent chains of three; with parallelism 2 both chains
	// must overlap in time.
	g := New(6)
	g.DependsOn(1, 0)
	g.DependsOn(2, 1)
	g.DependsOn(4, 3)
	g.DependsOn(5, 4)
	order, _ := g.Order()
	var mu sync.Mutex
	finished := map[int]bool{}
	var inFlight, maxInFlight atomic.Int32
	g.Walk(context.Background(), order, 2, func(n int) bool {
		mu.Lock()
		for _, d := range g.Deps(n) {
			if !finished[int(d)] {
				t.Errorf("node %d started before dependency %d finished", n, d)
			}
		}
		mu.Unlock()
		cur := inFlight.Add(1)
		for {
			m := maxInFlight.Load()
			if cur <= m || maxInFlight.CompareAndSwap(m, cur) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		inFlight.Add(-1)
		mu.Lock()
		finished[n] = true
		mu.Unlock()
		return true
	}, nil)
	if len(finished) != 6 {
		t.Fatalf("visited %d nodes, want 6", len(finished))
	}
	if maxInFlight.Load() != 2 {
		t.Fatalf("at most %d nodes ran at once, want 2", maxInFlight.Load())
	}
}

func TestWalkSkipsDependentsOfAFailureButFinishesTheRest(t *testing.T) {
	g := New(4)
	g.DependsOn(1, 0) // 1 after 0, which fails
	g.DependsOn(2, 1)
	order, _ := g.Order()
	var mu sync.Mutex
	var visited, skipped []int
	g.Walk(context.Background(), order, 4, func(n int) bool {
		mu.Lock()
		visited = append(visited, n)
		mu.Unlock()
		return n != 0
	}, func(n int) { skipped = append(skipped, n) })
	if !sameSet(visited, []int{0, 3}) {
		t.Errorf("visited %v, want 0 and 3", visited)
	}
	if !sameSet(skipped, []int{1, 2}) {
		t.Errorf("skipped %v, want 1 and 2", skipped)
	}
}

func TestWalkStartsTheLongestRemainingChainFirst(t *testing.T) {
	// Node 0 heads a chain of 3; nodes 3..5 are independent. With one
	// worker, 0 must start first.
	g := New(6)
	g.DependsOn(1, 0)
	g.DependsOn(2, 1)
	order, _ := g.Order()
	var first = -1
	g.Walk(context.Background(), order, 1, func(n int) bool {
		if first < 0 {
			first = n
		}
		return true
	}, nil)
	if first != 0 {
		t.Fatalf("first visited node %d, want the head of the longest chain, 0", first)
	}
}

func TestWalkStopsOnCancelAndReportsWhatDidNotRun(t *testing.T) {
	g := New(3)
	g.DependsOn(1, 0)
	g.DependsOn(2, 1)
	order, _ := g.Order()
	ctx, cancel := context.WithCancel(context.Background())
	var skipped []int
	g.Walk(ctx, order, 1, func(n int) bool {
		cancel()
		return true
	}, func(n int) { skipped = append(skipped, n) })
	if !sameSet(skipped, []int{1, 2}) {
		t.Fatalf("skipped %v after cancel, want 1 and 2", skipped)
	}
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[int]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func BenchmarkWalkWide(b *testing.B) {
	const n = 10000
	g := New(n)
	order, _ := g.Order()
	for b.Loop() {
		g.Walk(context.Background(), order, 64, func(int) bool { return true }, nil)
	}
}

func BenchmarkOrderChain(b *testing.B) {
	const n = 100000
	g := New(n)
	for i := 1; i < n; i++ {
		g.DependsOn(i, i-1)
	}
	for b.Loop() {
		g.Order()
	}
}

func TestWalkReachesParallelismWhenVisitsBlock(t *testing.T) {
	// Visits that wait (as on a provider's connection) must still run
	// parallelism at once: each blocks until all of them have started.
	const parallelism = 40
	g := New(200)
	order, _ := g.Order()
	var inFlight atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	var most atomic.Int32
	g.Walk(context.Background(), order, parallelism, func(n int) bool {
		cur := inFlight.Add(1)
		for {
			m := most.Load()
			if cur <= m || most.CompareAndSwap(m, cur) {
				break
			}
		}
		if cur == parallelism {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
		case <-time.After(2 * time.Second):
		}
		inFlight.Add(-1)
		return true
	}, nil)
	if most.Load() != parallelism {
		t.Fatalf("at most %d visits ran at once, want %d", most.Load(), parallelism)
	}
}

// TestWalkLaterStartsDependentsOnlyOnceDone: a visit that returns with
// its outcome still to come frees its worker for independent nodes, and
// what depends on it starts only once done reports success (and never,
// when done reports a failure).
func TestWalkLaterStartsDependentsOnlyOnceDone(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"succeeded", true}, {"failed", false}} {
		t.Run(tc.name, func(t *testing.T) {
			g := New(6)
			g.DependsOn(1, 0) // 2..5 are independent
			order, _ := g.Order()
			others := make(chan struct{}, 4)
			var finished atomic.Bool
			var mu sync.Mutex
			var visited, skipped []int
			g.WalkLater(context.Background(), order, 1+4, func(n int, done Done) {
				mu.Lock()
				visited = append(visited, n)
				mu.Unlock()
				switch n {
				case 0:
					// Done once every independent node ran: they run
					// while 0 is outstanding.
					go func() {
						for range 4 {
							<-others
						}
						finished.Store(true)
						done.Report(tc.ok)
					}()
				case 1:
					if !finished.Load() {
						t.Error("node 1 started before node 0 was done")
					}
					done.Report(true)
				default:
					others <- struct{}{}
					done.Report(true)
				}
			}, func(n int) {
				mu.Lock()
				skipped = append(skipped, n)
				mu.Unlock()
			})
			want, wantSkipped := []int{0, 1, 2, 3, 4, 5}, []int(nil)
			if !tc.ok {
				want, wantSkipped = []int{0, 2, 3, 4, 5}, []int{1}
			}
			if !sameSet(visited, want) || !sameSet(skipped, wantSkipped) {
				t.Fatalf("visited %v and skipped %v, want %v and %v", visited, skipped, want, wantSkipped)
			}
		})
	}
}

// TestWalkLaterWaitsForOutstandingVisitsWhenCancelled: a cancelled walk
// starts nothing new but returns only once every visit it started is done
// (an apply's commits in flight are still recorded).
func TestWalkLaterWaitsForOutstandingVisitsWhenCancelled(t *testing.T) {
	g := New(3)
	g.DependsOn(1, 0)
	g.DependsOn(2, 1)
	order, _ := g.Order()
	ctx, cancel := context.WithCancel(context.Background())
	var finished atomic.Bool
	var skipped []int
	g.WalkLater(ctx, order, 4, func(n int, done Done) {
		cancel()
		go func() {
			time.Sleep(20 * time.Millisecond)
			finished.Store(true)
			done.Report(true)
		}()
	}, func(n int) { skipped = append(skipped, n) })
	if !finished.Load() {
		t.Fatal("the walk returned before its outstanding visit was done")
	}
	if !sameSet(skipped, []int{1, 2}) {
		t.Fatalf("skipped %v after cancel, want 1 and 2", skipped)
	}
}
