package httpstate

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/tetherhq/tether/internal/durable"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = "default"

// ErrWorkspaceExists and ErrNoWorkspace are NewWorkspace's and Open's.
var (
	ErrWorkspaceExists = errors.New("workspace already exists")
	ErrNoWorkspace     = errors.New("workspace does not exist")
)

// Backend is one http backend.
type Backend struct {
	cfg Config
	hc  *http.Client
	// asideDir is where Terraform's state taken over is copied.
	asideDir string

	mu sync.Mutex
	// heldDefault is the store of the default workspace while this
	// process holds its lock.
	heldDefault *Store
	// pendingID is the id handed out while Terraform's state is in the
	// default workspace's place, written by its first commit.
	pendingID string
}

// Connect checks the address answers.
func Connect(ctx context.Context, cfg Config, asideDir string) (*Backend, error) {
	b := &Backend{cfg: cfg, hc: cfg.client(), asideDir: asideDir}
	if _, _, err := b.get(ctx, DefaultWorkspace); err != nil {
		return nil, err
	}
	return b, nil
}

// Where names the address without credentials.
func (b *Backend) Where() string { return "the http backend at " + redact(b.cfg.Address) }

func redact(u *url.URL) string { return u.Redacted() }

// Close releases nothing.
func (b *Backend) Close() error { return nil }

// at is u for workspace ws: workspace=NAME added to its query.
func at(u *url.URL, ws string) *url.URL {
	if u == nil || ws == DefaultWorkspace {
		return u
	}
	c := *u
	q := c.Query()
	q.Set("workspace", ws)
	c.RawQuery = q.Encode()
	return &c
}

// do sends one request, retrying as Terraform's client does (retry_max
// times, waiting retry_wait_min doubling up to retry_wait_max) on a
// connection error or a 5xx answer. The caller closes the body.
func (b *Backend) do(ctx context.Context, method string, u *url.URL, body []byte) (*http.Response, error) {
	wait := b.cfg.RetryWaitMin
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		if body != nil {
			sum := md5.Sum(body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
		}
		if b.cfg.Username != "" || b.cfg.Password != "" {
			req.SetBasicAuth(b.cfg.Username, b.cfg.Password)
		}
		resp, err := b.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if attempt >= b.cfg.RetryMax {
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, redact(u), err)
			}
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if wait *= 2; wait > b.cfg.RetryWaitMax {
			wait = b.cfg.RetryWaitMax
		}
	}
}

// get reads a workspace's document: nil when there is none.
func (b *Backend) get(ctx context.Context, ws string) ([]byte, string, error) {
	u := at(b.cfg.Address, ws)
	resp, err := b.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", b.fail("reading the state", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", b.fail("reading the state", err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if len(body) == 0 {
			return nil, "", nil
		}
		if raw := resp.Header.Get("Content-MD5"); raw != "" {
			sum := md5.Sum(body)
			if raw != base64.StdEncoding.EncodeToString(sum[:]) {
				return nil, "", fmt.Errorf("%s: the state at %s does not match its Content-MD5 %s; Tether will not use it", b.Where(), redact(u), raw)
			}
		}
		return body, "", nil
	case http.StatusNoContent, http.StatusNotFound:
		return nil, "", nil
	}
	return nil, "", fmt.Errorf("%s: GET %s: %s", b.Where(), redact(u), resp.Status)
}

// post writes a workspace's document, with the lock's ID when held.
func (b *Backend) post(ctx context.Context, ws string, body []byte, lockID string) error {
	u := at(b.cfg.Address, ws)
	if lockID != "" {
		c := *u
		q := c.Query()
		q.Set("ID", lockID)
		c.RawQuery = q.Encode()
		u = &c
	}
	resp, err := b.do(ctx, b.cfg.UpdateMethod, u, body)
	if err != nil {
		return b.fail("writing the state", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated, http.StatusNoContent:
		return nil
	case http.StatusConflict, http.StatusLocked:
		return &state.LockLostError{Path: redact(at(b.cfg.Address, ws)), ID: lockID}
	}
	return fmt.Errorf("%s: %s %s: %s", b.Where(), b.cfg.UpdateMethod, redact(u), resp.Status)
}

func (b *Backend) fail(doing string, err error) error {
	return fmt.Errorf("%s: %s: %w", b.Where(), doing, err)
}

// read reads a workspace's document; terraform is set when it is
// Terraform's (and then doc is nil), empty when Terraform's records
// nothing.
func (b *Backend) read(ctx context.Context, ws string) (doc *statedoc.Document, raw []byte, terraform, empty bool, err error) {
	body, _, err := b.get(ctx, ws)
	if err != nil || body == nil {
		return nil, nil, false, false, err
	}
	isTether, empty, err := statedoc.Sniff(body)
	where := redact(at(b.cfg.Address, ws))
	if err != nil {
		return nil, nil, false, false, fmt.Errorf("the state at %s %v; Tether will not use or modify it", where, err)
	}
	if !isTether {
		return nil, body, true, empty, nil
	}
	doc, err = statedoc.Decode(body, "the state at "+where)
	return doc, body, false, false, err
}

// ID is the state's id, kept in the default workspace's document as its
// lineage is not: the first lineage, recorded once.
func (b *Backend) index(ctx context.Context) (*statedoc.Document, error) {
	doc, _, tf, _, err := b.read(ctx, DefaultWorkspace)
	if err != nil {
		return nil, err
	}
	if doc == nil || tf {
		return statedoc.New(), nil
	}
	return doc, nil
}

// Workspaces lists default and those the default document records.
func (b *Backend) Workspaces(ctx context.Context) ([]string, error) {
	doc, err := b.index(ctx)
	if err != nil {
		return nil, err
	}
	names := append([]string{DefaultWorkspace}, doc.Workspaces...)
	sort.Strings(names)
	return names, nil
}

// HasWorkspace reports whether a workspace exists.
func (b *Backend) HasWorkspace(ctx context.Context, ws string) (bool, error) {
	names, err := b.Workspaces(ctx)
	return slices.Contains(names, ws), err
}

// StateExists reports whether a workspace has a document.
func (b *Backend) StateExists(ctx context.Context, ws string) (bool, error) {
	body, _, err := b.get(ctx, ws)
	return body != nil, err
}

// editIndex changes the default document's list of workspaces under the
// default workspace's lock.
func (b *Backend) editIndex(ctx context.Context, op string, edit func(d *statedoc.Document) error) error {
	b.mu.Lock()
	held := b.heldDefault
	b.mu.Unlock()
	if held != nil {
		// This process holds the default workspace (a migration): edit
		// through its store, so that its next commit keeps the edit.
		held.mu.Lock()
		defer held.mu.Unlock()
		next := held.doc.Clone()
		if err := edit(next); err != nil {
			return err
		}
		if err := b.post(ctx, DefaultWorkspace, next.Encode(), held.held.ID); err != nil {
			return err
		}
		held.doc = next
		return nil
	}
	st := b.open(DefaultWorkspace)
	defer st.Close()
	u, err := st.Lock(ctx, state.LockInfo{Operation: op})
	if err != nil {
		return err
	}
	defer u.Unlock()
	doc, _, tf, _, err := b.read(ctx, DefaultWorkspace)
	if err != nil {
		return err
	}
	if tf {
		return &statedoc.TerraformHereError{Object: redact(b.cfg.Address)}
	}
	if doc == nil {
		doc = statedoc.New()
	}
	if err := edit(doc); err != nil {
		return err
	}
	return b.post(ctx, DefaultWorkspace, doc.Encode(), st.lockID())
}

// NewWorkspace records a workspace and writes its empty document.
func (b *Backend) NewWorkspace(ctx context.Context, ws string) error {
	if ws == DefaultWorkspace {
		return ErrWorkspaceExists
	}
	err := b.editIndex(ctx, "workspace new", func(d *statedoc.Document) error {
		if slices.Contains(d.Workspaces, ws) {
			return ErrWorkspaceExists
		}
		d.Workspaces = append(d.Workspaces, ws)
		return nil
	})
	if err != nil {
		return err
	}
	if body, _, err := b.get(ctx, ws); err != nil || body != nil {
		return err // Terraform's state there is offered by init
	}
	return b.post(ctx, ws, statedoc.New().Encode(), "")
}

// DeleteWorkspace deletes a workspace's document and its record; force is
// needed when it records managed resources.
func (b *Backend) DeleteWorkspace(ctx context.Context, ws string, force bool) error {
	if ws == DefaultWorkspace {
		return errors.New("the default workspace cannot be deleted")
	}
	st := b.open(ws)
	defer st.Close()
	u, err := st.Lock(ctx, state.LockInfo{Operation: "workspace delete"})
	if err != nil {
		return err
	}
	defer u.Unlock()
	snap, err := st.Load(ctx)
	if err != nil {
		return err
	}
	if err := statedoc.CheckDelete(ws, snap, force); err != nil {
		return err
	}
	resp, err := b.do(ctx, http.MethodDelete, at(b.cfg.Address, ws), nil)
	if err != nil {
		return b.fail("deleting the state", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusNotFound {
		return fmt.Errorf("%s: DELETE %s: %s", b.Where(), redact(at(b.cfg.Address, ws)), resp.Status)
	}
	return b.editIndex(ctx, "workspace delete", func(d *statedoc.Document) error {
		d.Workspaces = slices.DeleteFunc(d.Workspaces, func(n string) bool { return n == ws })
		return nil
	})
}

// ID is the state's id, kept in the default workspace's document and
// made on first use.
func (b *Backend) ID(ctx context.Context) (string, error) {
	doc, _, tf, _, err := b.read(ctx, DefaultWorkspace)
	if err != nil {
		return "", err
	}
	if doc != nil && doc.StateID != "" {
		return doc.StateID, nil
	}
	if tf {
		// Terraform's state is there until init takes it over: the id
		// is recorded by the first commit of Tether's, which replaces it.
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.pendingID == "" {
			b.pendingID = newID()
		}
		return b.pendingID, nil
	}
	var id string
	err = b.editIndex(ctx, "init", func(d *statedoc.Document) error {
		if d.StateID == "" {
			d.StateID = newID()
		}
		id = d.StateID
		return nil
	})
	return id, err
}

func newID() string {
	var raw [16]byte
	rand.Read(raw[:]) // never fails; see crypto/rand.Read
	return hex.EncodeToString(raw[:])
}

// SetID gives the state the id of state moved here, refused while the
// default workspace records anything.
func (b *Backend) SetID(ctx context.Context, id string) error {
	return b.editIndex(ctx, "init -migrate-state", func(d *statedoc.Document) error {
		if len(d.Objects) > 0 || len(d.Outputs) > 0 {
			return fmt.Errorf("%s already holds state; it cannot take the id of another state", b.Where())
		}
		d.StateID = id
		return nil
	})
}

// TerraformState is Terraform's state at a workspace's address.
type TerraformState struct {
	Data  []byte
	Where string
	b     *Backend
	ws    string
}

// TerraformState returns Terraform's document for ws, nil when the
// address holds Tether's or nothing.
func (b *Backend) TerraformState(ctx context.Context, ws string) (*TerraformState, error) {
	_, raw, tf, empty, err := b.read(ctx, ws)
	if err != nil || !tf || empty {
		return nil, err
	}
	return &TerraformState{Data: raw, Where: fmt.Sprintf("Terraform's state of workspace %q at %s", ws, redact(at(b.cfg.Address, ws))), b: b, ws: ws}, nil
}

// SetAside says where the copy of Terraform's document went: the store
// wrote it before its first write over it.
func (t *TerraformState) SetAside(ctx context.Context) (string, error) {
	return t.b.asidePath(t.ws), nil
}

func (b *Backend) asidePath(ws string) string {
	return filepath.Join(b.asideDir, "terraform-adopted-"+ws+".tfstate")
}

// Store is one workspace's state.
type Store struct {
	b  *Backend
	ws string
	w  *state.Writer[struct{}]

	mu   sync.Mutex
	held *statedoc.LockInfo
	body []byte
	doc  *statedoc.Document // the state as last written, while held
}

func (b *Backend) open(ws string) *Store {
	s := &Store{b: b, ws: ws}
	s.w = state.NewWriter(256, fmt.Errorf("%s (workspace %q): %w", b.Where(), ws, state.ErrClosed), s.commitGroup)
	return s
}

// Open opens a workspace's state, writing the default one's empty
// document on first use.
func (b *Backend) Open(ctx context.Context, ws string) (state.Store, error) {
	if ok, err := b.HasWorkspace(ctx, ws); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoWorkspace, ws)
	}
	return b.open(ws), nil
}

func (s *Store) lockID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		return ""
	}
	return s.held.ID
}

// Load reads the state.
func (s *Store) Load(ctx context.Context) (*state.Snapshot, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	doc, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	return doc.Snapshot(), nil
}

func (s *Store) load(ctx context.Context) (*statedoc.Document, error) {
	doc, raw, tf, empty, err := s.b.read(ctx, s.ws)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	adopting := s.held != nil && s.held.Operation == "init"
	s.mu.Unlock()
	switch {
	case tf && !empty && !adopting:
		return nil, &statedoc.TerraformHereError{Object: redact(at(s.b.cfg.Address, s.ws))}
	case tf && !empty:
		// init takes it over: a copy goes aside before anything is
		// written over it.
		if err := os.MkdirAll(s.b.asideDir, 0o700); err != nil {
			return nil, err
		}
		if err := durable.WriteFile(s.b.asidePath(s.ws), raw, 0o600); err != nil {
			return nil, err
		}
	}
	if doc == nil {
		doc = statedoc.New()
	}
	return doc, nil
}

// Commit returns once the state with c is written to the address.
func (s *Store) Commit(ctx context.Context, c state.Changes) error {
	return statedoc.Commit(s.w, fmt.Sprintf("%s (workspace %q)", s.b.Where(), s.ws), c)
}

// commitGroup writes the whole document with the group's changes.
func (s *Store) commitGroup(group []*state.Request[struct{}]) error {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		return fmt.Errorf("%s (workspace %q): commit without holding the state's lock", s.b.Where(), s.ws)
	}
	next := s.doc.Clone()
	for _, r := range group {
		next.Apply(r.Changes)
	}
	if s.ws == DefaultWorkspace && next.StateID == "" {
		s.b.mu.Lock()
		next.StateID = s.b.pendingID
		s.b.mu.Unlock()
	}
	if err := s.b.post(ctx, s.ws, next.Encode(), s.held.ID); err != nil {
		return err
	}
	s.doc = next
	return nil
}

// Close waits for commits in flight and refuses calls after.
func (s *Store) Close() error {
	s.w.Close()
	return nil
}

// Lock sends lock_method to lock_address with Terraform's lock record;
// 409 or 423 is the lock held, named from the record the server returns.
// Without a lock_address there is no lock, which Tether refuses to run
// without.
func (s *Store) Lock(ctx context.Context, info state.LockInfo) (state.Unlocker, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	if s.b.cfg.LockAddress == nil {
		return nil, fmt.Errorf("%s has no lock_address, so nothing keeps two runs (of Tether or Terraform) from writing the state at once; Tether does not run without a lock: set lock_address (and unlock_address)", s.b.Where())
	}
	info = info.Filled()
	rec := statedoc.NewLockInfo(info, redact(at(s.b.cfg.Address, s.ws)))
	body, _ := json.Marshal(rec)
	held, err := s.b.lock(ctx, s.ws, body)
	if err != nil {
		return nil, err
	}
	if held != nil {
		return nil, statedoc.LockedError(fmt.Sprintf("%s (workspace %q)", s.b.Where(), s.ws), *held)
	}
	s.mu.Lock()
	s.held, s.body = &rec, body
	s.mu.Unlock()
	doc, err := s.load(ctx)
	if err != nil {
		s.b.unlock(context.Background(), s.ws, body)
		s.mu.Lock()
		s.held = nil
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Lock()
	s.doc = doc
	s.mu.Unlock()
	if s.ws == DefaultWorkspace {
		s.b.mu.Lock()
		s.b.heldDefault = s
		s.b.mu.Unlock()
	}
	return &unlocker{s: s, rec: &rec}, nil
}

// lock sends the lock request: the holder when it is held by another.
func (b *Backend) lock(ctx context.Context, ws string, body []byte) (*statedoc.LockInfo, error) {
	u := at(b.cfg.LockAddress, ws)
	resp, err := b.do(ctx, b.cfg.LockMethod, u, body)
	if err != nil {
		return nil, b.fail("taking the lock", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		return nil, nil
	case http.StatusConflict, http.StatusLocked:
		h := &statedoc.LockInfo{}
		if err := json.Unmarshal(raw, h); err != nil {
			return nil, fmt.Errorf("%s: the lock at %s is held, by a holder the server does not name (%v)", b.Where(), redact(u), err)
		}
		return h, nil
	}
	return nil, fmt.Errorf("%s: %s %s: %s", b.Where(), b.cfg.LockMethod, redact(u), resp.Status)
}

func (b *Backend) unlock(ctx context.Context, ws string, body []byte) error {
	u := b.cfg.UnlockAddress
	if u == nil {
		u = b.cfg.LockAddress
	}
	u = at(u, ws)
	resp, err := b.do(ctx, b.cfg.UnlockMethod, u, body)
	if err != nil {
		return b.fail("releasing the lock", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s %s: %s", b.Where(), b.cfg.UnlockMethod, redact(u), resp.Status)
	}
	return nil
}

type unlocker struct {
	s   *Store
	rec *statedoc.LockInfo
}

func (u *unlocker) Unlock() error {
	s := u.s
	s.mu.Lock()
	if s.held != u.rec {
		s.mu.Unlock()
		return nil
	}
	body := s.body
	s.held, s.doc = nil, nil
	s.mu.Unlock()
	s.b.mu.Lock()
	if s.b.heldDefault == s {
		s.b.heldDefault = nil
	}
	s.b.mu.Unlock()
	return s.b.unlock(context.Background(), s.ws, body)
}

// ForceUnlock finds the holder by asking for the lock, then releases it
// with the holder's own record, as its holder would.
func (s *Store) ForceUnlock(ctx context.Context, id string) (*state.LockInfo, error) {
	if err := s.w.Enter(); err != nil {
		return nil, err
	}
	defer s.w.Leave()
	if s.b.cfg.LockAddress == nil {
		return nil, nil
	}
	probe, _ := json.Marshal(statedoc.NewLockInfo(state.LockInfo{Operation: "force-unlock"}.Filled(), redact(at(s.b.cfg.Address, s.ws))))
	h, err := s.b.lock(ctx, s.ws, probe)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, s.b.unlock(ctx, s.ws, probe)
	}
	hl := h.Holder()
	if id != "" && h.ID != id {
		return nil, &state.LockIDError{ID: id, Holder: hl}
	}
	body, _ := json.Marshal(h)
	if err := s.b.unlock(ctx, s.ws, body); err != nil {
		return nil, err
	}
	return &hl, nil
}
