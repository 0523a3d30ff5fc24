package ui

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/hashicorp/hcl/v2"
	"github.com/tetherhq/tether/internal/plan"
)

// redrawEvery bounds how often the live view is redrawn: often enough for
// elapsed seconds to tick, rarely enough that a hundred concurrent
// operations do not flood a slow terminal. A variable so that tests can
// take the ticker out of the way and redraw when they choose.
var redrawEvery = 100 * time.Millisecond

// Progress reports an apply (or a refresh) as it runs.
//
// Off a terminal it writes one line per event, as Terraform does, so that
// CI logs read the same. On a terminal it keeps a live view at the bottom
// of the screen with every operation in flight and how long it has run;
// finished operations scroll above it.
type Progress struct {
	w   io.Writer
	tty bool
	now func() time.Time

	mu       sync.Mutex
	inflight []*operation
	finished []string // waiting to be written above the live view
	drawn    int      // lines of live view now on the screen
	last     string   // the live view as last drawn
	closed   bool

	stop   chan struct{}
	exited chan struct{}
	done   sync.Once
	// heart reports long operations off a terminal.
	heart *Heartbeat

	// out holds the lines off a terminal, and on one after Done, until
	// they are written.
	out batch
}

type operation struct {
	addr   string
	action plan.Action
	id     string
	start  time.Time
}

// NewProgress returns a Progress writing to w; tty selects the live view.
// On a terminal it starts a goroutine that only Done stops.
func NewProgress(w io.Writer, tty bool) *Progress {
	p := &Progress{w: w, tty: tty, now: time.Now}
	p.out = batch{w: w, mu: &p.mu}
	if tty {
		p.stop = make(chan struct{})
		p.exited = make(chan struct{})
		go p.loop(redrawEvery)
	} else {
		p.heart = NewHeartbeat(func(address string, action plan.Action, elapsed time.Duration) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if !p.closed {
				p.out.pending = append(p.out.pending, stillLine(address, action, elapsed)...)
				p.out.pending = append(p.out.pending, '\n')
				p.out.flush()
			}
		})
	}
	return p
}

func (p *Progress) loop(every time.Duration) {
	defer close(p.exited)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.redraw(false)
			p.mu.Unlock()
		}
	}
}

// Event records one step of one operation. It may be called from many
// goroutines at once.
func (p *Progress) Event(e plan.Event) {
	if e.Step != plan.NoOp {
		return // a part of a replacement: the whole is reported
	}
	if p.heart != nil && e.Action != plan.NoOp {
		// Not under mu: the heartbeat holds its own lock while it
		// writes a beat, which takes mu.
		p.heart.Event(e)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Action == plan.NoOp {
		// A refresh is shown as it starts, and the line stays, as in
		// Terraform; it gets no heartbeat, and how it ends is not shown
		// (a failure is the plan's error).
		switch {
		case e.Phase != plan.Started:
		case !p.tty || p.closed:
			p.out.pending = appendStartLine(p.out.pending, e)
			p.wrote()
		default:
			p.finished = append(p.finished, startLine(e))
		}
		return
	}
	if !p.tty || p.closed {
		n := len(p.out.pending)
		if e.Phase == plan.Started {
			p.out.pending = appendStartLine(p.out.pending, e)
		} else {
			p.out.pending = appendFinishLine(p.out.pending, e)
		}
		if len(p.out.pending) > n {
			p.wrote()
		}
		return
	}
	if e.Phase == plan.Started {
		p.inflight = append(p.inflight, &operation{addr: e.Addr, action: e.Action, id: e.ID, start: p.now()})
		return
	}
	for i, op := range p.inflight {
		if op.addr == e.Addr && op.action == e.Action {
			p.inflight = append(p.inflight[:i], p.inflight[i+1:]...)
			break
		}
	}
	if line := finishLine(e); line != "" {
		p.finished = append(p.finished, line)
	}
}

// wrote ends the line just appended to out: written at once after Done,
// within flushEvery before. It must be called with mu held.
func (p *Progress) wrote() {
	if p.closed {
		p.out.pending = append(p.out.pending, '\n')
		p.out.flush()
		return
	}
	p.out.ended()
}

// Done ends the report: it stops the live view, leaves the finished lines
// on the screen and writes summary (if not empty) after a blank line. It
// is safe to call more than once; only the first call writes.
func (p *Progress) Done(summary string) {
	p.done.Do(func() {
		if p.heart != nil {
			p.heart.Stop()
		}
		if p.tty {
			close(p.stop)
			<-p.exited
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.tty {
			p.inflight = nil
			p.redraw(true)
		}
		p.closed = true
		if summary != "" {
			p.out.pending = append(p.out.pending, '\n')
			p.out.pending = append(p.out.pending, summary...)
			p.out.pending = append(p.out.pending, '\n')
		}
		p.out.stop()
	})
}

// redraw replaces the live view with the current one, writing finished
// lines first so that they stay above it. It must be called with mu held.
//
// It overwrites the old view line by line, erasing each line's rest, and
// erases the old view's leftover lines one by one, never with "erase to
// the end of the screen": at the screen's top left corner, which the view
// reaches when it fills the screen, some terminals (tmux, with its
// default scroll-on-clear) take that for clearing the screen and push the
// whole frame into the scrollback first.
func (p *Progress) redraw(final bool) {
	width, height := p.size()
	live := p.liveView(width, height)
	if len(p.finished) == 0 && live == p.last && !final {
		return
	}
	var b strings.Builder
	if p.drawn > 0 {
		// Back to the first line of the live view.
		b.WriteString("\r\x1b[")
		b.WriteString(strconv.Itoa(p.drawn))
		b.WriteString("A")
	}
	written := 0
	line := func(l string) {
		b.WriteString(l)
		b.WriteString("\x1b[K\n")
		written++
	}
	for _, l := range p.finished {
		line(l)
	}
	for l := range strings.Lines(live) {
		line(strings.TrimSuffix(l, "\n"))
	}
	if left := p.drawn - written; left > 0 {
		// Erase the old view's lines below, moving down without
		// scrolling, then come back.
		for i := range left {
			if i > 0 {
				b.WriteString("\x1b[B")
			}
			b.WriteString("\x1b[2K")
		}
		if left > 1 {
			b.WriteString("\x1b[")
			b.WriteString(strconv.Itoa(left - 1))
			b.WriteString("A")
		}
	}
	io.WriteString(p.w, b.String())
	p.finished = p.finished[:0]
	p.last = live
	p.drawn = strings.Count(live, "\n")
}

// liveView renders the in-flight operations, one line each, cut to the
// terminal's width: a wrapped line would make the cursor arithmetic of the
// next redraw wrong.
func (p *Progress) liveView(width, height int) string {
	if len(p.inflight) == 0 {
		return ""
	}
	rows := max(height-1, 1) // and the cursor's line below
	shown := p.inflight
	more := 0
	if len(shown) > rows {
		shown = shown[:rows-1]
		more = len(p.inflight) - len(shown)
	}
	now := p.now()
	var b strings.Builder
	for _, op := range shown {
		line := op.addr + ": " + startText(op.action, op.id)
		if el := now.Sub(op.start); el >= time.Second {
			line += " [" + el.Truncate(time.Second).String() + " elapsed]"
		}
		b.WriteString(truncate(line, width-1))
		b.WriteByte('\n')
	}
	if more > 0 {
		b.WriteString(truncate("... and "+strconv.Itoa(more)+" more in progress", width-1))
		b.WriteByte('\n')
	}
	return b.String()
}

func (p *Progress) size() (width, height int) {
	if f, ok := p.w.(interface{ Fd() uintptr }); ok {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 && h > 0 {
			return w, h
		}
	}
	return 80, 24
}

func truncate(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n <= 3 {
		return string(r[:n])
	}
	return string(r[:n-3]) + "..."
}

func withID(s, id string) string {
	if id == "" {
		return s
	}
	return s + " [id=" + id + "]"
}

func appendID(b []byte, id string) []byte {
	if id == "" {
		return b
	}
	b = append(b, " [id="...)
	b = append(b, id...)
	return append(b, ']')
}

// startWords is what an operation starting says, and whether the object's
// id follows.
func startWords(a plan.Action) (text string, id bool) {
	switch {
	case a == plan.Create:
		return "Creating...", false
	case a == plan.Update:
		return "Modifying...", true
	case a == plan.Delete:
		return "Destroying...", true
	case a == plan.Read:
		return "Reading...", false
	case a == plan.Open:
		return "Opening...", false
	case a == plan.Close:
		return "Closing...", false
	case a.IsReplace():
		return "Replacing...", true
	}
	return "Refreshing state...", true
}

func startText(a plan.Action, id string) string {
	s, withid := startWords(a)
	if withid {
		return withID(s, id)
	}
	return s
}

func startLine(e plan.Event) string { return string(appendStartLine(nil, e)) }

// appendStartLine appends an operation's first line to b, without
// building it as a string first: a wide run writes one per resource.
func appendStartLine(b []byte, e plan.Event) []byte {
	b = append(b, e.Addr...)
	b = append(b, ": "...)
	s, withid := startWords(e.Action)
	b = append(b, s...)
	if withid {
		b = appendID(b, e.ID)
	}
	return b
}

// finishLine is the line for a finished operation; a refresh that
// succeeds gets none, as in Terraform, since it changed nothing.
func finishLine(e plan.Event) string { return string(appendFinishLine(nil, e)) }

// appendFinishLine appends finishLine to b.
func appendFinishLine(b []byte, e plan.Event) []byte {
	if e.Phase == plan.Failed {
		var what string
		switch {
		case e.Action == plan.Create:
			what = "Creation failed"
		case e.Action == plan.Update:
			what = "Modification failed"
		case e.Action == plan.Delete:
			what = "Destruction failed"
		case e.Action == plan.Read:
			what = "Read failed"
		case e.Action == plan.Open:
			what = "Opening failed"
		case e.Action == plan.Close:
			what = "Closing failed"
		case e.Action.IsReplace():
			what = "Replacement failed"
		default:
			what = "Refresh failed"
		}
		b = appendAfter(append(append(append(b, e.Addr...), ": "...), what...), e.Elapsed)
		if e.Err != nil {
			// The line names the object already; the summary may too.
			b = append(b, ": "...)
			b = append(b, strings.TrimPrefix(errorSummary(e.Err), e.Addr+": ")...)
		}
		return b
	}
	var what string
	withid := true
	switch {
	case e.Action == plan.Create:
		what = "Creation complete"
	case e.Action == plan.Update:
		what = "Modifications complete"
	case e.Action == plan.Delete:
		what, withid = "Destruction complete", false
	case e.Action == plan.Read:
		what = "Read complete"
	case e.Action == plan.Open:
		what, withid = "Opening complete", false
	case e.Action == plan.Close:
		what, withid = "Closing complete", false
	case e.Action.IsReplace():
		what = "Replacement complete"
	default:
		return b
	}
	b = appendAfter(append(append(append(b, e.Addr...), ": "...), what...), e.Elapsed)
	if withid {
		b = appendID(b, e.ID)
	}
	return b
}

// appendAfter appends " after " and the whole seconds elapsed; most
// operations take less than one, which needs no formatting.
func appendAfter(b []byte, elapsed time.Duration) []byte {
	b = append(b, " after "...)
	if d := elapsed.Truncate(time.Second); d != 0 {
		return append(b, d.String()...)
	}
	return append(b, "0s"...)
}

// ApplySummary is the last line of a successful apply.
func ApplySummary(added, changed, destroyed int) string {
	return ImportSummary(0, added, changed, destroyed)
}

// ImportSummary is ApplySummary for an apply that imported objects, which
// Terraform counts first when there are any.
func ImportSummary(imported, added, changed, destroyed int) string {
	s := "Apply complete! Resources: "
	if imported > 0 {
		s += strconv.Itoa(imported) + " imported, "
	}
	return s + strconv.Itoa(added) + " added, " +
		strconv.Itoa(changed) + " changed, " + strconv.Itoa(destroyed) + " destroyed."
}

// DestroySummary is the last line of a successful destroy.
func DestroySummary(destroyed int) string {
	return "Destroy complete! Resources: " + strconv.Itoa(destroyed) + " destroyed."
}

// errorSummary is the one line a progress line gives a failure: the first
// error's summary, since the whole diagnostic is printed after the run.
func errorSummary(err error) string {
	var diag *hcl.Diagnostic
	if errors.As(err, &diag) {
		return diag.Summary
	}
	var diags hcl.Diagnostics
	if errors.As(err, &diags) {
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				return d.Summary
			}
		}
	}
	return err.Error()
}
