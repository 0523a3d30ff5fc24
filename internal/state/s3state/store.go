package s3state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tetherhq/tether/internal/state"
)

// formatVersion is the version of the compacted document this build
// writes and the newest it reads.
const formatVersion = 1

// document is the compacted state of one workspace.
type document struct {
	Format  int    `json:"tether_state"`
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
	// Journal is the sequence number of the last journal object folded
	// in; Load applies only the ones after it.
	Journal uint64                   `json:"journal"`
	Objects map[string]*state.Object `json:"objects"`
	Outputs map[string]*state.Output `json:"outputs"`
	Checks  []byte                   `json:"checks,omitempty"`
}

func newDoc() *document {
	return &document{Format: formatVersion, Lineage: state.NewLineage(), Objects: map[string]*state.Object{}, Outputs: map[string]*state.Output{}}
}

func encodeDoc(d *document) []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // only maps, strings and bytes: cannot fail
	}
	return b
}

// entry is one journal object: the changes of one group of commits.
type entry struct {
	Seq     uint64          `json:"seq"`
	Changes []state.Changes `json:"changes"`
}

// apply applies c to d as a store's Commit does: deletions before puts.
func (d *document) apply(c state.Changes) {
	for _, a := range c.Delete {
		delete(d.Objects, a)
	}
	for _, o := range c.Put {
		d.Objects[o.Address] = o
	}
	for _, n := range c.DeleteOutputs {
		delete(d.Outputs, n)
	}
	for _, o := range c.PutOutputs {
		d.Outputs[o.Name] = o
	}
	if c.Checks != nil {
		d.Checks = c.Checks
		if len(c.Checks) == 0 {
			d.Checks = nil
		}
	}
	if c.Lineage != "" {
		d.Lineage, d.Serial = c.Lineage, c.Serial
	} else {
		d.Serial++
	}
}

// TerraformHereError is Load's refusal of a workspace whose path holds
// Terraform's state rather than Tether's.
type TerraformHereError struct{ Object string }

// ErrTerraformHere is matched by a *TerraformHereError.
var ErrTerraformHere = errors.New("Terraform's state is where Tether's would be")

func (e *TerraformHereError) Is(target error) bool { return target == ErrTerraformHere }

func (e *TerraformHereError) Error() string {
	return fmt.Sprintf("%s holds Terraform's state, not Tether's; tether init takes it over (it asks, or -force-copy), or move it aside to leave it to Terraform", e.Object)
}

// view is what a workspace's objects say: the document (nil when there is
// none), whether Terraform's state is there instead, and the journal.
type view struct {
	doc       *document
	terraform bool
	// terraformEmpty is set for a Terraform document that records
	// nothing (Terraform writes one when it creates a workspace).
	terraformEmpty bool
	etag           string
	entries        []*entry
	stale          []string // journal objects already folded into doc
}

// read reads a workspace's document and journal.
func (b *Backend) read(ctx context.Context, ws string) (*view, error) {
	p := b.path(ws)
	v := &view{}
	body, etag, err := b.get(ctx, p)
	switch {
	case isNotFound(err):
	case err != nil:
		return nil, err
	default:
		v.etag = etag
		isTether, empty, err := sniff(body)
		if err != nil {
			return nil, &CorruptError{Object: b.objectName(p), Reason: err.Error()}
		}
		if !isTether {
			v.terraform, v.terraformEmpty = true, empty
			break
		}
		d := &document{}
		if err := json.Unmarshal(body, d); err != nil {
			return nil, &CorruptError{Object: b.objectName(p), Reason: "is not a readable Tether state: " + err.Error()}
		}
		if d.Format > formatVersion {
			return nil, fmt.Errorf("%s was written by a newer Tether (format %d; this build reads up to %d); upgrade Tether", b.objectName(p), d.Format, formatVersion)
		}
		if d.Objects == nil {
			d.Objects = map[string]*state.Object{}
		}
		if d.Outputs == nil {
			d.Outputs = map[string]*state.Output{}
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
			return nil, &CorruptError{Object: b.objectName(k), Reason: "is not named as a journal object is"}
		}
		if seq <= done {
			v.stale = append(v.stale, k)
			continue
		}
		if seq != want {
			return nil, &CorruptError{Object: b.objectName(k), Reason: fmt.Sprintf("follows journal object %d, which is missing", want-1)}
		}
		body, _, err := b.get(ctx, k)
		if err != nil {
			return nil, err
		}
		e := &entry{}
		if err := json.Unmarshal(body, e); err != nil || e.Seq != seq {
			return nil, &CorruptError{Object: b.objectName(k), Reason: "is not a readable journal object"}
		}
		v.entries = append(v.entries, e)
		want++
	}
	return v, nil
}

// sniff tells Tether's document from Terraform's, and whether Terraform's
// records nothing.
func sniff(body []byte) (isTether, empty bool, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return false, false, fmt.Errorf("is not a JSON state document: %v", err)
	}
	if _, ok := top["tether_state"]; ok {
		return true, false, nil
	}
	if _, ok := top["version"]; !ok {
		return false, false, errors.New("is neither Tether's state nor Terraform's")
	}
	var tf struct {
		Resources []json.RawMessage
		Outputs   map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &tf); err != nil {
		return false, false, fmt.Errorf("is not a readable Terraform state: %v", err)
	}
	return false, len(tf.Resources) == 0 && len(tf.Outputs) == 0, nil
}

// state folds the journal into the document.
func (v *view) state() *document {
	d := v.doc
	if d == nil {
		d = newDoc()
	} else {
		c := *d
		c.Objects, c.Outputs = map[string]*state.Object{}, map[string]*state.Output{}
		for k, o := range d.Objects {
			c.Objects[k] = o
		}
		for k, o := range d.Outputs {
			c.Outputs[k] = o
		}
		d = &c
	}
	for _, e := range v.entries {
		for _, c := range e.Changes {
			d.apply(c)
		}
		d.Journal = e.Seq
	}
	return d
}

// readState reads a workspace's state; allowTerraform reads Terraform's
// document at the path as no state at all (init's takeover, which writes
// Tether's state over it once it is copied aside).
func (b *Backend) readState(ctx context.Context, ws string, allowTerraform bool) (*document, error) {
	v, err := b.read(ctx, ws)
	if err != nil {
		return nil, err
	}
	if v.terraform && !v.terraformEmpty && len(v.entries) == 0 && !allowTerraform {
		return nil, &TerraformHereError{Object: b.objectName(b.path(ws))}
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
		if err := b.put(ctx, b.path(ws), encodeDoc(newDoc()), true); err != nil && !isPreconditionFailed(err) {
			return nil, err
		}
	}
	s := &Store{b: b, ws: ws, where: fmt.Sprintf("state %s (workspace %q)", b.objectName(b.path(ws)), ws)}
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
	s.mu.Unlock()
	d, err := s.b.readState(ctx, s.ws, adopting)
	if err != nil {
		return nil, err
	}
	return &state.Snapshot{Objects: d.Objects, Outputs: d.Outputs, Checks: d.Checks, Lineage: d.Lineage, Serial: d.Serial}, nil
}

// Commit returns once c is in a journal object of its own group.
func (s *Store) Commit(ctx context.Context, c state.Changes) error {
	if _, err := c.Prepare(); err != nil {
		return fmt.Errorf("%s: %w", s.where, err)
	}
	return s.w.Commit(c, struct{}{})
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
	key := fmt.Sprintf("%s%s%020d", s.b.path(s.ws), journalSuffix, e.Seq)
	if err := s.b.put(ctx, key, body, true); err != nil {
		if isPreconditionFailed(err) {
			return &state.LockLostError{Path: s.b.objectName(key) + " (written by another runner)", ID: s.held.info.ID}
		}
		return err
	}
	s.next++
	return nil
}

// compact folds the journal into the document at the workspace's path,
// copying Terraform's document aside first when it is there, then
// deletes the journal objects folded in. The caller holds the lock.
func (b *Backend) compact(ctx context.Context, ws string) (next uint64, aside string, err error) {
	v, err := b.read(ctx, ws)
	if err != nil {
		return 0, "", err
	}
	d := v.state()
	if len(v.entries) == 0 && len(v.stale) == 0 {
		return d.Journal + 1, "", nil
	}
	p := b.path(ws)
	if len(v.entries) > 0 {
		if v.terraform {
			if aside, err = b.setAside(ctx, p, v.etag); err != nil {
				return 0, "", err
			}
		}
		body := encodeDoc(d)
		if err := b.put(ctx, p, body, false); err != nil {
			return 0, "", err
		}
		if err := b.putDigest(ctx, p, body); err != nil {
			return 0, "", err
		}
	}
	for _, e := range v.entries {
		v.stale = append(v.stale, fmt.Sprintf("%s%s%020d", p, journalSuffix, e.Seq))
	}
	for _, k := range v.stale {
		if err := b.delete(ctx, k); err != nil {
			return 0, "", err
		}
	}
	return d.Journal + 1, aside, nil
}

// setAside copies Terraform's document at p, unchanged since it was read
// (etag), to p.terraform-adopted-TIMESTAMP; the copy is what is left of
// it once Tether's document replaces it.
func (b *Backend) setAside(ctx context.Context, p, etag string) (string, error) {
	dest := p + adoptedSuffix + timestamp(time.Now())
	_, err := b.c.s3.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket:            aws.String(b.cfg.Bucket),
		Key:               aws.String(dest),
		CopySource:        aws.String(url.PathEscape(b.cfg.Bucket) + "/" + escapeKey(p)),
		CopySourceIfMatch: nilIfEmpty(etag),
	})
	if err != nil {
		return "", b.fail(fmt.Sprintf("copying Terraform's state %s aside to %s", b.objectName(p), dest), err)
	}
	return b.objectName(dest), nil
}

func escapeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// Close waits for commits in flight and refuses calls after.
func (s *Store) Close() error {
	s.w.Close()
	return nil
}
