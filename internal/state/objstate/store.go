package objstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

// entry is one journal object: the changes of one group of commits.
type entry struct {
	Seq     uint64          `json:"seq"`
	Changes []state.Changes `json:"changes"`
}

// view is what a workspace's objects say: the document (nil when there is
// none), whether Terraform's state is there instead, and the journal.
type view struct {
	doc       *statedoc.Document
	terraform bool
	// terraformEmpty is set for a Terraform document that records
	// nothing (Terraform writes one when it creates a workspace).
	terraformEmpty bool
	version        string
	entries        []*entry
	stale          []string // journal objects already folded into doc
}

func (b *Backend) journalKey(ws string, seq uint64) string {
	return fmt.Sprintf("%s%s%020d", b.Path(ws), journalSuffix, seq)
}

// read reads a workspace's document and journal.
func (b *Backend) read(ctx context.Context, ws string) (*view, error) {
	p := b.Path(ws)
	v := &view{}
	o, err := b.get(ctx, p)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return nil, err
	default:
		v.version = o.Version
		isTether, empty, err := statedoc.Sniff(o.Body)
		if err != nil {
			return nil, &CorruptError{Object: b.Name(p), Reason: err.Error()}
		}
		if !isTether {
			v.terraform, v.terraformEmpty = true, empty
			break
		}
		d, err := statedoc.Decode(o.Body, b.Name(p))
		var newer *statedoc.NewerFormatError
		if errors.As(err, &newer) {
			return nil, err
		}
		if err != nil {
			return nil, &CorruptError{Object: b.Name(p), Reason: "cannot be read: " + err.Error()}
		}
		v.doc = d
	}
	keys, err := b.list(ctx, p+journalSuffix)
	if err != nil {
		return nil, err
	}
	var done uint64
	if v.doc != nil {
		done = v.doc.Journal
	}
	want := done + 1
	for _, k := range keys {
		seq, err := strconv.ParseUint(strings.TrimPrefix(k, p+journalSuffix), 10, 64)
		if err != nil {
			return nil, &CorruptError{Object: b.Name(k), Reason: "is not named as a journal object is"}
		}
		if seq <= done {
			v.stale = append(v.stale, k)
			continue
		}
		if seq != want {
			return nil, &CorruptError{Object: b.Name(k), Reason: fmt.Sprintf("follows journal object %d, which is missing", want-1)}
		}
		o, err := b.get(ctx, k)
		if err != nil {
			return nil, err
		}
		e := &entry{}
		if err := json.Unmarshal(o.Body, e); err != nil || e.Seq != seq {
			return nil, &CorruptError{Object: b.Name(k), Reason: "is not a readable journal object"}
		}
		v.entries = append(v.entries, e)
		want++
	}
	return v, nil
}

// state folds the journal into the document.
func (v *view) state() *statedoc.Document {
	d := statedoc.New()
	if v.doc != nil {
		d = v.doc.Clone()
	}
	for _, e := range v.entries {
		for _, c := range e.Changes {
			d.Apply(c)
		}
		d.Journal = e.Seq
	}
	return d
}

// readState reads a workspace's state; allowTerraform reads Terraform's
// document at the path as no state at all (init's takeover, which writes
// Tether's state over it once it is copied aside).
func (b *Backend) readState(ctx context.Context, ws string, allowTerraform bool) (*statedoc.Document, error) {
	v, err := b.read(ctx, ws)
	if err != nil {
		return nil, err
	}
	if v.terraform && !v.terraformEmpty && len(v.entries) == 0 && !allowTerraform {
		return nil, &TerraformHereError{Object: b.Name(b.Path(ws))}
	}
	return v.state(), nil
}

// Store is one workspace's state.
type Store struct {
	b     *Backend
	ws    string
	where string
	w     *state.Writer[struct{}]

	mu      sync.Mutex
	held    *heldLock // the lock this store took, nil when none
	next    uint64    // the next journal sequence number, while held
	deleted bool
	// cur is the state while the lock is held: what Lock's compaction
	// read, with this store's commits applied since. Load returns it, so
	// that a run reads the state once (nobody else writes it while the
	// lock is held; a run whose lock was broken stops at its next
	// commit). nil when Lock found Terraform's document.
	cur *statedoc.Document
	// wrote is set once this store wrote a journal object under the lock.
	wrote bool
}

// Open opens a workspace's state; the default workspace's empty state is
// written on first use, as a local state file is created.
func (b *Backend) Open(ctx context.Context, ws string) (state.Store, error) {
	if ws != DefaultWorkspace {
		ok, err := b.HasWorkspace(ctx, ws)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrNoWorkspace, ws)
		}
	} else if ok, err := b.StateExists(ctx, ws); err != nil {
		return nil, err
	} else if !ok {
		if err := b.create(ctx, b.Path(ws), statedoc.New().Encode()); err != nil && !errors.Is(err, ErrExists) {
			return nil, err
		}
	}
	s := &Store{b: b, ws: ws, where: fmt.Sprintf("state %s (workspace %q)", b.Name(b.Path(ws)), ws)}
	s.w = state.NewWriter(256, fmt.Errorf("%s: %w", s.where, state.ErrClosed), s.commitGroup)
	return s, nil
}

// Load reads the state: the document and the journal after it.
func (s *Store) Load(ctx context.Context) (*state.Snapshot, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	s.mu.Lock()
	adopting := s.held != nil && s.held.info.Operation == "init"
	if s.held != nil && s.cur != nil {
		snap := s.cur.Clone().Snapshot()
		s.mu.Unlock()
		return snap, nil
	}
	s.mu.Unlock()
	d, err := s.b.readState(ctx, s.ws, adopting)
	if err != nil {
		return nil, err
	}
	return d.Snapshot(), nil
}

// Commit returns once c is in a journal object of its own group.
func (s *Store) Commit(ctx context.Context, c state.Changes) error {
	return statedoc.Commit(s.w, s.where, c)
}

// commitGroup writes one journal object holding the group's changes,
// after checking that this store's lock is still held.
func (s *Store) commitGroup(group []*state.Request[struct{}]) error {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		return fmt.Errorf("%s: commit without holding the state's lock", s.where)
	}
	if err := s.b.checkHeld(ctx, s.ws, s.held); err != nil {
		return err
	}
	e := &entry{Seq: s.next}
	for _, r := range group {
		e.Changes = append(e.Changes, r.Changes)
	}
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("%s: encoding the journal object: %w", s.where, err)
	}
	key := s.b.journalKey(s.ws, e.Seq)
	s.wrote = true
	if err := s.b.createOnce(ctx, key, body); err != nil {
		if errors.Is(err, ErrExists) {
			return &state.LockLostError{Path: s.b.Name(key) + " (written by another runner)", ID: s.held.info.ID}
		}
		// Whether it was written is not known: Load reads again.
		s.cur = nil
		return err
	}
	s.next++
	if s.cur != nil {
		for _, c := range e.Changes {
			s.cur.Apply(c)
		}
		s.cur.Journal = e.Seq
	}
	for _, r := range group {
		if r.Changes.Erase {
			s.eraseOld(ctx)
			break
		}
	}
	return nil
}

// eraseOld folds the journal into the document at once after a commit
// with Changes.Erase (a value state recorded in clear, now sealed), rather
// than at Unlock: the document and the journal objects of this run that
// held the clear value are replaced and deleted now, and a run killed
// later leaves no copy of it behind. The commit is durable already (its
// journal object is written), so a failure is only logged: Unlock, or the
// next Lock, folds the journal in as always. What the store itself keeps
// of replaced and deleted objects (S3 versioning, Azure soft delete and
// versions, GCS object versioning) is out of Tether's reach.
func (s *Store) eraseOld(ctx context.Context) {
	_, next, err := s.b.compact(ctx, s.ws)
	if err != nil {
		logging.Core().Warn("could not fold the journal into the state object after sealing a value state recorded in clear; the old copies go when the run ends",
			"where", s.where, "error", err)
		return
	}
	s.next = next
}

// compact folds the journal into the document at the workspace's path,
// copying Terraform's document aside first when it is there, then
// deletes the journal objects folded in. The caller holds the lock. It
// returns the state, nil when the path holds Terraform's document.
func (b *Backend) compact(ctx context.Context, ws string) (cur *statedoc.Document, next uint64, err error) {
	v, err := b.read(ctx, ws)
	if err != nil {
		return nil, 0, err
	}
	d := v.state()
	if !v.terraform {
		cur = d
	}
	if len(v.entries) == 0 && len(v.stale) == 0 {
		return cur, d.Journal + 1, nil
	}
	p := b.Path(ws)
	if len(v.entries) > 0 {
		if v.terraform {
			if _, err = b.setAside(ctx, p, v.version); err != nil {
				return nil, 0, err
			}
		}
		body := d.Encode()
		if err := b.Put(ctx, p, body); err != nil {
			return nil, 0, err
		}
		if b.cfg.Written != nil {
			if err := b.cfg.Written(ctx, p, body); err != nil {
				return nil, 0, err
			}
		}
		cur = d
	}
	for _, e := range v.entries {
		v.stale = append(v.stale, b.journalKey(ws, e.Seq))
	}
	if err := b.deleteAll(ctx, v.stale); err != nil {
		return nil, 0, err
	}
	return cur, d.Journal + 1, nil
}

// setAside copies Terraform's document at p, unchanged since it was read
// (version), to p.terraform-adopted-TIMESTAMP; the copy is what is left
// of it once Tether's document replaces it.
func (b *Backend) setAside(ctx context.Context, p, version string) (string, error) {
	dest := p + adoptedSuffix + timestamp(time.Now())
	o, err := b.cfg.Blobs.Get(ctx, p)
	if err == nil && version != "" && o.Version != version {
		err = fmt.Errorf("it changed since it was read (version %s, now %s)", version, o.Version)
	}
	if err == nil {
		// Written as Terraform wrote it: without a digest of Tether's.
		err = b.cfg.Blobs.Create(ctx, dest, o.Body, "")
	}
	if err != nil {
		return "", b.fail(fmt.Sprintf("copying Terraform's state %s aside to %s", b.Name(p), b.Name(dest)), err)
	}
	return b.Name(dest), nil
}

// Close waits for commits in flight and refuses calls after.
func (s *Store) Close() error {
	s.w.Close()
	return nil
}
