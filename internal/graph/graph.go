package graph

import (
	"container/heap"
	"context"
	"sync"
)

// Graph is a set of nodes 0..Len()-1 and "depends on" edges between them.
// The zero value is an empty graph; Grow adds nodes.
type Graph struct {
	deps       [][]int32 // deps[n]: nodes n depends on
	dependents [][]int32 // dependents[n]: nodes that depend on n
}

// New returns a graph of n nodes and no edges.
func New(n int) *Graph {
	return &Graph{deps: make([][]int32, n), dependents: make([][]int32, n)}
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.deps) }

// Add appends a node and returns its number.
func (g *Graph) Add() int {
	g.deps = append(g.deps, nil)
	g.dependents = append(g.dependents, nil)
	return len(g.deps) - 1
}

// DependsOn records that node a must come after node b. Duplicate edges are
// harmless; a self-edge is a cycle of one.
func (g *Graph) DependsOn(a, b int) {
	g.deps[a] = append(g.deps[a], int32(b))
	g.dependents[b] = append(g.dependents[b], int32(a))
}

// Deps returns the nodes a depends on directly.
func (g *Graph) Deps(a int) []int32 { return g.deps[a] }

// Dependents returns the nodes that depend on b directly.
func (g *Graph) Dependents(b int) []int32 { return g.dependents[b] }

// Order returns the nodes with every node after all it depends on. When the
// graph has a cycle, Order returns nil and one cycle's members in order: each
// member depends on the next, and the last depends on the first.
func (g *Graph) Order() (order []int, cycle []int) {
	n := len(g.deps)
	pending := make([]int32, n)
	order = make([]int, 0, n)
	for i := range g.deps {
		pending[i] = int32(len(g.deps[i]))
		if pending[i] == 0 {
			order = append(order, i)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, d := range g.dependents[order[i]] {
			pending[d]--
			if pending[d] == 0 {
				order = append(order, int(d))
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	return nil, g.findCycle(pending)
}

// findCycle follows unfinished dependencies from a node left over by Kahn's
// algorithm. Every such node has an unfinished dependency, so the walk must
// come back to a node it has seen, and the path from there is a cycle.
func (g *Graph) findCycle(pending []int32) []int {
	start := -1
	for i, p := range pending {
		if p > 0 {
			start = i
			break
		}
	}
	seenAt := map[int]int{}
	var path []int
	for n := start; ; {
		if at, ok := seenAt[n]; ok {
			return path[at:]
		}
		seenAt[n] = len(path)
		path = append(path, n)
		next := -1
		for _, d := range g.deps[n] {
			if pending[d] > 0 {
				next = int(d)
				break
			}
		}
		n = next
	}
}

// Depths returns, for each node, the length in nodes of the longest chain of
// dependents that starts at it (1 for a node nothing depends on). A walk
// limited in workers should start the deepest ready node first: the longest
// remaining chain bounds how soon everything can finish. order must come
// from Order.
func (g *Graph) Depths(order []int) []int32 {
	depth := make([]int32, len(g.deps))
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		best := int32(0)
		for _, d := range g.dependents[n] {
			if depth[d] > best {
				best = depth[d]
			}
		}
		depth[n] = best + 1
	}
	return depth
}

// Walk calls visit for every node, each after all its dependencies have
// been visited successfully, with at most parallelism calls at once. When
// visit returns false for a node, the nodes that depend on it (directly or
// not) are not visited and are reported through skip, if skip is not nil;
// everything independent of it still runs, as a user expects when one
// resource of many fails. A cancelled ctx stops new visits; nodes not
// started are reported through skip. Visits run on the calling goroutine
// and on workers it starts.
//
// The graph must be acyclic; order must come from Order.
func (g *Graph) Walk(ctx context.Context, order []int, parallelism int, visit func(n int) bool, skip func(n int)) {
	g.walk(ctx, order, parallelism, func(n int, done Done) { done.Report(visit(n)) }, skip)
}

// Done reports the outcome of one visit of WalkLater. It is a value (no
// allocation a node); Report must be called exactly once.
type Done struct {
	finish func(m int32, ok bool)
	m      int32
}

// Report ends the visit: ok is what Walk's visit would return.
func (d Done) Report(ok bool) { d.finish(d.m, ok) }

// WalkLater is Walk for visits whose outcome may be decided after they
// return: visit must call done.Report exactly once with what Walk's visit
// would return, before returning or later from any goroutine. Until then the
// node counts against parallelism and nothing that depends on it starts,
// but the worker that ran it goes on to other nodes: a visit that only
// waits for something to finish elsewhere (its state commit) holds no
// goroutine meanwhile. WalkLater returns once every done was called.
func (g *Graph) WalkLater(ctx context.Context, order []int, parallelism int, visit func(n int, done Done), skip func(n int)) {
	g.walk(ctx, order, parallelism, visit, skip)
}

func (g *Graph) walk(ctx context.Context, order []int, parallelism int, visit func(n int, done Done), skip func(n int)) {
	n := len(g.deps)
	if n == 0 {
		return
	}
	if parallelism < 1 {
		parallelism = 1
	}
	depth := g.Depths(order)
	pending := make([]int32, n)
	ready := &readyQueue{depth: depth}
	for i := range g.deps {
		pending[i] = int32(len(g.deps[i]))
		if pending[i] == 0 {
			ready.nodes = append(ready.nodes, int32(i))
		}
	}
	heap.Init(ready)

	const (
		waiting  = iota
		started  // visit under way
		returned // visit returned, outcome to come (WalkLater)
		finished
		skipped
	)
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		status   = make([]uint8, n)
		running  = 0     // visits under way
		idle     = 0     // workers waiting for a node
		starting = false // a new worker has not yet run
		stopping = false
		wg       sync.WaitGroup
	)
	skipNode := func(m int32) {
		status[m] = skipped
		if skip != nil {
			skip(int(m))
		}
	}
	// skipDependents removes a failed node's dependents from the walk.
	// Called with mu held.
	skipDependents := func(m int32) {
		stack := []int32{m}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, d := range g.dependents[x] {
				if status[d] == waiting {
					skipNode(d)
					stack = append(stack, d)
				}
			}
		}
	}

	stopWatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		stopping = true
		cond.Broadcast()
		mu.Unlock()
	})
	defer stopWatch()

	// finish ends node m's visit: it releases or skips what depends on m.
	// A worker that finishes its own visit takes the next node itself;
	// idle ones are woken for the rest (all of them, when a visit finishes
	// later, elsewhere), and all of them once the walk is over.
	finish := func(m int32, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		own := status[m] == started
		status[m] = finished
		running--
		if ok {
			for _, d := range g.dependents[m] {
				pending[d]--
				if pending[d] == 0 && status[d] == waiting {
					heap.Push(ready, d)
				}
			}
		} else {
			skipDependents(m)
		}
		taken := 0
		if own {
			taken = 1
		}
		switch {
		case running == 0 && (ready.Len() == 0 || stopping):
			cond.Broadcast()
		default:
			for i := taken; i < ready.Len() && i < idle+taken; i++ {
				cond.Signal()
			}
		}
	}
	// Workers take ready nodes themselves and live for the whole walk; the
	// caller is the first. A worker starts another when nodes are left
	// waiting, no worker is idle and the last one started has begun to
	// run: visits that block (a provider's call over its plugin's
	// connection) bring in workers one after another up to parallelism,
	// while visits that only compute often stay on a few. (A dispatcher
	// that handed each node to an idle worker or else a new one started
	// all parallelism workers before any ran: 256 for a 1,000-resource
	// plan, where these start 7 to 14.)
	var worker func(first bool)
	worker = func(first bool) {
		if !first {
			growStack()
		}
		mu.Lock()
		if !first {
			starting = false
		}
		for {
			if ctx.Err() != nil {
				// AfterFunc runs on its own goroutine and may not have
				// set stopping yet when a visit cancels.
				stopping = true
			}
			if stopping || ready.Len() == 0 && running == 0 {
				break
			}
			if ready.Len() == 0 || running >= parallelism {
				idle++
				cond.Wait()
				idle--
				continue
			}
			m := heap.Pop(ready).(int32)
			status[m] = started
			running++
			if ready.Len() > 0 && idle == 0 && !starting && running < parallelism {
				starting = true
				wg.Add(1)
				go worker(false)
			}
			mu.Unlock()
			visit(int(m), Done{finish: finish, m: m})
			mu.Lock()
			if status[m] == started {
				status[m] = returned
			}
		}
		cond.Broadcast()
		mu.Unlock()
		if !first {
			wg.Done()
		}
	}
	worker(true)
	wg.Wait()
	mu.Lock()
	for running > 0 {
		// Stopped with visits not yet done (WalkLater): their done is
		// still to come.
		cond.Wait()
	}
	for i, st := range status {
		if st == waiting {
			skipNode(int32(i))
		}
	}
	mu.Unlock()
}

// growStack grows a new worker's stack to what a visit needs (16 KiB: the
// engine's apply visits need 16 to 32), in one step while the stack is
// still empty. A goroutine starts on 2 KiB and a deep visit would double it
// three times, each copying every frame below; at 1,000 resources that
// was a tenth of an apply's CPU. The frame is kept by handing it to
// touch, which the compiler cannot see through.
//
//go:noinline
func growStack() {
	var frame [12 << 10]byte
	touch(frame[:])
}

//go:noinline
func touch(b []byte) { stackSink = b[len(b)-1] }

var stackSink byte

// readyQueue is a max-heap of ready nodes by depth.
type readyQueue struct {
	nodes []int32
	depth []int32
}

func (q *readyQueue) Len() int { return len(q.nodes) }
func (q *readyQueue) Less(i, j int) bool {
	di, dj := q.depth[q.nodes[i]], q.depth[q.nodes[j]]
	if di != dj {
		return di > dj
	}
	return q.nodes[i] < q.nodes[j]
}
func (q *readyQueue) Swap(i, j int) { q.nodes[i], q.nodes[j] = q.nodes[j], q.nodes[i] }
func (q *readyQueue) Push(x any)    { q.nodes = append(q.nodes, x.(int32)) }
func (q *readyQueue) Pop() any {
	last := q.nodes[len(q.nodes)-1]
	q.nodes = q.nodes[:len(q.nodes)-1]
	return last
}
