package engine

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/graph"
	"github.com/tetherhq/tether/internal/plan"
	"github.com/tetherhq/tether/internal/provider"
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
// result's counts, its postconditions' status) waits for the commit, so a
// failed commit still reads as a failed operation and fails the apply.
// These are fields rather than closures: a wide apply makes one handover
// a resource.
type handover struct {
	e    *Engine
	p    *Planned
	done graph.Done
	// end records the visit's diagnostics and reports its outcome.
	end func(hcl.Diagnostics, graph.Done)
	// The visit's own diagnostics, kept for when the commit is done.
	diags hcl.Diagnostics

	// check is the apply's stopOnLostLock.check, given the commit's
	// outcome first.
	check func(error) error
	// octx is the context naming the visit's object (withObject).
	octx provider.ObjectContext

	// Set by record when it hands the commit over; one holds the
	// object changes puts.
	changes state.Changes
	one     oneObject
	meta    objectMeta
	in      *instance
	n       *node

	// What waits for the commit: the operation's complete event (and,
	// for its failure event, its action and start), its count, whether
	// it was an import, and its postconditions' status restored.
	action    plan.Action
	start     time.Time
	shownID   string
	succeeded bool
	count     func(plan.Action)
	counted   plan.Action
	imported  bool
	restore   bool
}

// oneObject is an object and the list of one that holds it, for a commit
// of that object alone.
type oneObject struct {
	obj  state.Object
	puts [1]*state.Object
}

// Recorded is told the handed-over commit's outcome (state.Then).
func (h *handover) Recorded(err error) { h.recorded(h.check(err)) }

// withObject is provider.WithObject(ctx, addr), made in h when there is
// one: it is made for the visit anyway.
func (h *handover) withObject(ctx context.Context, addr string) context.Context {
	if h == nil {
		return provider.WithObject(ctx, addr)
	}
	return h.octx.With(ctx, addr)
}

// queued reports whether a commit was handed over.
func (h *handover) queued() bool { return h != nil && h.in != nil }

// recorded is the handed-over commit's outcome, on the store's writer: the
// operation is reported, counted and done (or failed) only now.
func (h *handover) recorded(err error) {
	e, in, d := h.e, h.in, h.diags
	if err != nil {
		fail := errorDiag(in.addr, h.n.cfg, "Cannot record object", diagnostic.Failed("recording the object", err))
		if !d.HasErrors() { // else the visit reported its failure
			e.failed(in.addr, h.action, h.start, hcl.Diagnostics{fail})
		}
		h.end(append(d, fail), h.done)
		return
	}
	in.meta = h.meta
	if h.succeeded {
		e.event(plan.Event{Addr: in.addr, Action: h.action, Phase: plan.Succeeded, Elapsed: time.Since(h.start), ID: h.shownID})
	}
	if h.count != nil {
		h.count(h.counted)
		if h.imported {
			h.p.imported.Add(1)
		}
	}
	if h.restore {
		h.p.checks.restore(h.n, in.addr, true)
	}
	h.end(d, h.done)
}
