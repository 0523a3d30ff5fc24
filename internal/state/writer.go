package state

import (
	"runtime"
	"sync"
)

// Writer is a store's single writer, the part of Commit and Close both
// stores share: Commit calls queue their changes, and one goroutine
// commits whatever queued while the previous group was committing as the
// next group, so the group size follows the load (one caller alone pays
// one transaction, a burst of hundreds shares a few). How a group is
// written is the store's: the commit function given to NewWriter.
//
// The Writer also guards the store's closing: every method of the store
// runs between Enter and Leave, and Close waits for them and for the
// queued groups before the store tears its connections down.
type Writer[P any] struct {
	// mu guards closed. Calls hold it shared for their whole run, Close
	// exclusively; Commit sends on reqs while holding it, which is what
	// lets Close close reqs safely. The writer goroutine never takes it.
	mu        sync.RWMutex
	closed    bool
	closedErr error

	reqs chan *Request[P]
	done chan struct{}
	// free holds Requests whose Commit returned, with their channels, for
	// the next Commit: an apply makes one per object.
	free   sync.Pool
	max    int
	commit func(group []*Request[P]) error

	// afterFirst, a test hook, runs when the writer holds a request and
	// is about to gather more.
	afterFirst func()
}

// Request is one Commit call waiting for the writer.
type Request[P any] struct {
	Changes Changes
	// Prepared is what the caller's goroutine made of Changes for the
	// store (its encoded dependencies), so the writer spends its time
	// only in the database.
	Prepared P
	// Trouble is set by the commit function when this request alone
	// failed and the rest of the group was committed.
	Trouble error
	done    chan error
	// then, when set, is told the outcome instead of it being sent on
	// done (CommitLater).
	then Then
}

// NewWriter starts the writer of a store. commit writes one group in one
// transaction; its error fails every request of the group, and a
// request's Trouble fails that request alone. max caps the group size.
// closedErr is what calls get once the store is closed (wrapping
// ErrClosed with where the store is).
func NewWriter[P any](max int, closedErr error, commit func(group []*Request[P]) error) *Writer[P] {
	w := &Writer[P]{
		closedErr: closedErr,
		reqs:      make(chan *Request[P], max),
		done:      make(chan struct{}),
		max:       max,
		commit:    commit,
	}
	go w.loop()
	return w
}

// Enter starts a call of the store's, failing once the store is closed.
// The caller must call Leave when done, unless Enter failed.
func (w *Writer[P]) Enter() error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return w.closedErr
	}
	return nil
}

// Leave ends a call started by Enter.
func (w *Writer[P]) Leave() { w.mu.RUnlock() }

// Commit queues c, with what the caller prepared of it, and returns once
// the writer committed it, or failed to. Empty changes return at once.
// There is no context: a commit records what a provider already did, and
// an interrupted run must still record it.
func (w *Writer[P]) Commit(c Changes, prepared P) error {
	if err := w.Enter(); err != nil {
		return err
	}
	if c.Empty() {
		w.Leave()
		return nil
	}
	r, _ := w.free.Get().(*Request[P])
	if r == nil {
		r = &Request[P]{done: make(chan error, 1)}
	}
	r.Changes, r.Prepared = c, prepared
	w.reqs <- r
	w.Leave()
	err := <-r.done
	// The writer is done with r once it has answered (see loop).
	*r = Request[P]{done: r.done}
	w.free.Put(r)
	return err
}

// CommitLater is Commit without the wait: it queues c and returns, and
// then is told the outcome once the writer committed c (or failed to), on
// the writer's goroutine, before any group after c's is written. then
// must be quick and must not commit to this store itself. A closed store
// or empty changes tell then at once, on the caller's goroutine.
func (w *Writer[P]) CommitLater(c Changes, prepared P, then Then) {
	if err := w.Enter(); err != nil {
		then.Recorded(err)
		return
	}
	if c.Empty() {
		w.Leave()
		then.Recorded(nil)
		return
	}
	r, _ := w.free.Get().(*Request[P])
	if r == nil {
		r = &Request[P]{done: make(chan error, 1)}
	}
	r.Changes, r.Prepared, r.then = c, prepared, then
	w.reqs <- r
	w.Leave()
}

// Close refuses calls from now on, waits for those running and for the
// queued groups to be committed, and stops the writer. It reports whether
// this call closed the store: false when it was closed already.
func (w *Writer[P]) Close() bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.closed = true
	close(w.reqs)
	w.mu.Unlock()
	<-w.done
	return true
}

func (w *Writer[P]) loop() {
	defer close(w.done)
	group := make([]*Request[P], 0, w.max)
	for first := range w.reqs {
		if w.afterFirst != nil {
			w.afterFirst()
		}
		w.letOthersQueue()
		group = gather(group, first, w.reqs, w.max)
		err := w.commit(group)
		// Each answer hands its request back to its caller, who reuses
		// it: nothing here touches a request once it is answered.
		for _, r := range group {
			rerr := err
			if rerr == nil {
				rerr = r.Trouble
			}
			if r.then == nil {
				r.done <- rerr
				continue
			}
			// Nobody waits on a CommitLater request: it goes back to
			// the pool here.
			then := r.then
			*r = Request[P]{done: r.done}
			w.free.Put(r)
			then.Recorded(rerr)
		}
		clear(group) // don't keep the callers' Changes alive until the next group
	}
}

// letOthersQueue gives the goroutines that are running, and may be about
// to commit, their turn before the group is gathered, for as long as that
// brings more requests: a transaction costs about as much for one request
// as for dozens, and without this a busy apply's groups stay as small as
// what queued during the last transaction. It does not wait for anyone: a
// lone caller (a chain of resources, each waiting on the last) finds
// nothing else to run and is committed at once, and each request still
// returns only once its own transaction is committed.
func (w *Writer[P]) letOthersQueue() {
	for n := len(w.reqs); n+1 < w.max; {
		runtime.Gosched()
		m := len(w.reqs)
		if m == n {
			return
		}
		n = m
	}
}

// gather starts a group with first and adds whatever is already queued on
// reqs, up to max requests in all, without waiting. group's storage is
// reused.
func gather[T any](group []T, first T, reqs <-chan T, max int) []T {
	group = append(group[:0], first)
	for len(group) < max {
		select {
		case r, ok := <-reqs:
			if !ok {
				return group
			}
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}
