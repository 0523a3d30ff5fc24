package engine

import (
	"time"

	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/state"
)

// handover is an apply visit's state commit handed to the store's writer
// (state.LaterCommitter) instead of waited for: the visit ends with its
// object's commit queued and its worker goes on to other nodes, and what
// depends on the object starts only once the commit is recorded (see
// graph.WalkLater). Before, every visit waited for its commit, so a wide
// apply started a goroutine for every node in flight (320), each waiting
// its turn with the one writer.
//
// Only the last step of a visit is handed over: a create or update whose
// object, once recorded, ends the provider's work for the visit. What a
// user sees or counts of the operation (its "complete" event, the
// result's counts) waits for the commit, so a failed commit still reads
// as a failed operation and fails the apply.
type handover struct {
	// Set by record when it hands the commit over.
	changes state.Changes
	meta    objectMeta
	in      *instance
	n       *node
	// The operation, for its failure event.
	action plan.Action
	start  time.Time
	// after is what is shown and counted once the object is recorded.
	after []func()
}

// queued reports whether a commit was handed over.
func (h *handover) queued() bool { return h != nil && h.in != nil }

// later runs f once the handed-over commit is recorded, or now when
// there is none.
func (h *handover) later(f func()) {
	if h.queued() {
		h.after = append(h.after, f)
		return
	}
	f()
}
