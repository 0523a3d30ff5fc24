package ui

import (
	"io"
	"sync"
	"time"
)

// flushEvery bounds how long a line of a report waits to be written.
// Lines are gathered so that a wide run does not make one write a line
// (at 100,000 resources, two hundred thousand of them, a third of the
// progress report's cost); a tenth of a second is as timely as a person
// reading a CI log can tell, and the pause of a slow operation never
// holds its own line back for longer.
var flushEvery = 100 * time.Millisecond

// batch gathers the lines of a report into few writes to w: each is
// written within flushEvery, when enough has gathered, or when its owner
// flushes (before anything else it writes, and at the end). Every method
// must be called with the owner's lock, mu, held; the timer takes it.
type batch struct {
	w       io.Writer
	mu      *sync.Mutex
	pending []byte
	timer   *time.Timer
	armed   bool // the timer will flush
}

// ended ends the line just appended to pending and sees that it is
// written in time.
func (b *batch) ended() {
	b.pending = append(b.pending, '\n')
	switch {
	case len(b.pending) >= flushAt:
		b.flush()
	case b.armed:
	case b.timer == nil:
		b.armed = true
		b.timer = time.AfterFunc(flushEvery, b.timed)
	default:
		b.armed = true
		b.timer.Reset(flushEvery)
	}
}

func (b *batch) timed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	b.flush()
}

// flush writes the pending lines.
func (b *batch) flush() {
	if len(b.pending) > 0 {
		b.w.Write(b.pending)
		b.pending = b.pending[:0]
	}
}

// stop writes the pending lines and disarms the timer; ended arms it
// again.
func (b *batch) stop() {
	if b.timer != nil {
		b.timer.Stop()
		b.armed = false
	}
	b.flush()
}
