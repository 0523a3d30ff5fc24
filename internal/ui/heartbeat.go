package ui

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/tetherhq/tether/internal/plan"
)

// HeartbeatEvery is how often a long operation is reported as still
// running off a terminal: Terraform's "Still creating... [10s elapsed]".
const HeartbeatEvery = 10 * time.Second

// heartbeatCheck is how often running operations are looked at. A
// variable so that tests can take the ticker out of the way.
var heartbeatCheck = time.Second

// Heartbeat reports each operation still running every HeartbeatEvery of
// its own time, where no live view shows it: in a CI log, a long create
// otherwise looks like a hang.
type Heartbeat struct {
	beat func(address string, action plan.Action, elapsed time.Duration)
	now  func() time.Time

	mu sync.Mutex
	// ops are the operations running, in no order: one that ends takes
	// the last one's place, so that a wide apply with hundreds in flight
	// does not shift the list at every event. at is where each is in ops,
	// so that an end does not search hundreds of them.
	ops  []beating
	at   map[opKey]int
	seq  uint64
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

type opKey struct {
	addr   string
	action plan.Action
}

type beating struct {
	addr   string
	action plan.Action
	start  time.Time
	beats  int
	seq    uint64 // the order of starts, in which beats due together are written
}

// NewHeartbeat starts reporting through beat; Stop ends it.
func NewHeartbeat(beat func(address string, action plan.Action, elapsed time.Duration)) *Heartbeat {
	h := &Heartbeat{beat: beat, now: time.Now, at: map[opKey]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go h.loop()
	return h
}

func (h *Heartbeat) loop() {
	defer close(h.done)
	t := time.NewTicker(heartbeatCheck)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			h.check()
		}
	}
}

// Event follows operations as they start and end. A refresh has no
// heartbeat (Terraform's hooks beat only applies, reads and ephemeral
// operations), nor does a replacement's step: the whole is followed.
func (h *Heartbeat) Event(e plan.Event) {
	if e.Step != plan.NoOp || e.Action == plan.NoOp {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := opKey{e.Addr, e.Action}
	if e.Phase == plan.Started {
		if _, ok := h.at[k]; !ok {
			h.at[k] = len(h.ops)
			h.ops = append(h.ops, beating{addr: e.Addr, action: e.Action, start: h.now(), seq: h.seq})
			h.seq++
		}
		return
	}
	i, ok := h.at[k]
	if !ok {
		return
	}
	delete(h.at, k)
	last := len(h.ops) - 1
	if i != last {
		h.ops[i] = h.ops[last]
		h.at[opKey{h.ops[i].addr, h.ops[i].action}] = i
	}
	h.ops[last] = beating{}
	h.ops = h.ops[:last]
}

// check reports every operation whose next beat is due.
func (h *Heartbeat) check() {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	var due []*beating
	for i := range h.ops {
		op := &h.ops[i]
		if el := now.Sub(op.start); el >= time.Duration(op.beats+1)*HeartbeatEvery {
			op.beats = int(el / HeartbeatEvery)
			due = append(due, op)
		}
	}
	slices.SortFunc(due, func(a, b *beating) int { return cmp.Compare(a.seq, b.seq) })
	for _, op := range due {
		h.beat(op.addr, op.action, op.start.Add(time.Duration(op.beats)*HeartbeatEvery).Sub(op.start))
	}
}

// Stop ends the reports; it is safe to call more than once.
func (h *Heartbeat) Stop() {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
	})
}
