package engine

import (
	"container/heap"
	"context"
	"sync"
)

// slots limits how many provider operations run at once. Only the
// provider call holds a slot, so the engine's own work for one resource
// (evaluating, re-planning, committing) overlaps other resources' waits on
// slow APIs; a freed slot goes to the waiting resource with the longest
// chain of work still behind it, since that chain bounds how soon
// everything can finish.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting waitHeap
}

func newSlots(n int) *slots { return &slots{free: n} }

type waiter struct {
	depth int32
	seq   int64
	ready chan struct{}
}

type waitHeap []*waiter

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].depth != h[j].depth {
		return h[i].depth > h[j].depth
	}
	return h[i].seq < h[j].seq
}
func (h waitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)   { *h = append(*h, x.(*waiter)) }
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	return w
}

var seq struct {
	sync.Mutex
	n int64
}

// acquire waits for a slot; it fails only when ctx ends first.
func (s *slots) acquire(ctx context.Context, depth int32) error {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	seq.Lock()
	seq.n++
	w := &waiter{depth: depth, seq: seq.n, ready: make(chan struct{})}
	seq.Unlock()
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready:
			// Granted while giving up: pass the slot on.
			s.releaseLocked()
		default:
			for i, x := range s.waiting {
				if x == w {
					heap.Remove(&s.waiting, i)
					break
				}
			}
		}
		return ctx.Err()
	}
}

func (s *slots) release() {
	s.mu.Lock()
	s.releaseLocked()
	s.mu.Unlock()
}

func (s *slots) releaseLocked() {
	if len(s.waiting) > 0 {
		w := heap.Pop(&s.waiting).(*waiter)
		close(w.ready)
		return
	}
	s.free++
}
