package objstate

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = "default"

const (
	journalSuffix = ".tether-journal/"
	adoptedSuffix = ".terraform-adopted-"
)

// ErrNoWorkspace is wrapped by Open for a workspace that was never created.
var ErrNoWorkspace = errors.New("workspace does not exist")

// ErrWorkspaceExists is returned by NewWorkspace for a name in use.
var ErrWorkspaceExists = errors.New("workspace already exists")

// TerraformHereError and ErrTerraformHere are statedoc's.
type TerraformHereError = statedoc.TerraformHereError

var ErrTerraformHere = statedoc.ErrTerraformHere

// Config is what a backend's adapter gives.
type Config struct {
	// Kind is the backend's type ("s3"), and Where names the bucket and
	// path without credentials: both for messages.
	Kind, Where string
	Blobs       Blobs
	// Path is where workspace ws's document is, as Terraform places its
	// state.
	Path func(ws string) string
	// Workspaces lists the keys under WorkspacePrefix; WorkspaceOf names
	// the workspace whose document a key is (ok false for other keys).
	WorkspacePrefix string
	WorkspaceOf     func(key string) (ws string, ok bool)
	// IDKey is where the state's id is.
	IDKey string
	// Lock makes the Locker that takes a workspace's lock; it may use
	// the backend's objects (a LockFile).
	Lock func(*Backend) Locker
	// Written, when set, is called after every document written at a
	// workspace's path (the s3 backend keeps Terraform's digest item).
	Written func(ctx context.Context, path string, body []byte) error
}

// Backend is one backend's state, for what concerns all workspaces.
type Backend struct {
	cfg  Config
	lock Locker
	id   string
}

// New reads the state's id, creating it on first use.
func New(ctx context.Context, cfg Config) (*Backend, error) {
	b := &Backend{cfg: cfg}
	b.lock = cfg.Lock(b)
	var err error
	if b.id, err = b.readID(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// Where names the backend's place, for messages.
func (b *Backend) Where() string { return b.cfg.Where }

// Close releases nothing: a store's client holds no session.
func (b *Backend) Close() error { return nil }

// ID is the state's id, which names its key (see internal/secrets).
func (b *Backend) ID() string { return b.id }

// Path is where workspace ws's document is.
func (b *Backend) Path(ws string) string { return b.cfg.Path(ws) }

// Name names the object at key, for messages.
func (b *Backend) Name(key string) string { return b.cfg.Blobs.Name(key) }

func (b *Backend) readID(ctx context.Context) (string, error) {
	key := b.cfg.IDKey
	for i := 0; i < 2; i++ {
		body, err := b.get(ctx, key)
		if err == nil {
			id := strings.TrimSpace(string(body.Body))
			if len(id) != 32 {
				return "", fmt.Errorf("%s holds no valid state id; Tether will not use this state: restore it from a backup (object versioning) or move it aside", b.Name(key))
			}
			return id, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return "", err
		}
		var raw [16]byte
		rand.Read(raw[:])
		id := hex.EncodeToString(raw[:])
		if err := b.create(ctx, key, []byte(id+"\n")); err == nil {
			return id, nil
		} else if !errors.Is(err, ErrExists) {
			return "", err
		}
		// Another runner created it first: read theirs.
	}
	return "", fmt.Errorf("%s: cannot read or create the state id", b.Name(key))
}

// SetID gives the state the id of state moved here from another store,
// so that the key its sealed values were made with still opens them. It
// refuses while any workspace holds anything.
func (b *Backend) SetID(ctx context.Context, id string) error {
	names, err := b.Workspaces(ctx)
	if err != nil {
		return err
	}
	for _, ws := range names {
		doc, err := b.readState(ctx, ws, true)
		if err != nil {
			return err
		}
		if len(doc.Objects) > 0 || len(doc.Outputs) > 0 {
			return fmt.Errorf("%s already holds state in workspace %q; it cannot take the id of another state", b.Where(), ws)
		}
	}
	if err := b.Put(ctx, b.cfg.IDKey, []byte(id+"\n")); err != nil {
		return err
	}
	b.id = id
	return nil
}

// Workspaces lists the workspaces, sorted: default, and every one with a
// document where Terraform keeps its workspaces (Terraform's as well as
// Tether's).
func (b *Backend) Workspaces(ctx context.Context) ([]string, error) {
	names := []string{DefaultWorkspace}
	keys, err := b.list(ctx, b.cfg.WorkspacePrefix)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if name, ok := b.cfg.WorkspaceOf(k); ok && name != DefaultWorkspace && name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// HasWorkspace reports whether the workspace exists.
func (b *Backend) HasWorkspace(ctx context.Context, ws string) (bool, error) {
	if ws == DefaultWorkspace {
		return true, nil
	}
	// A journal alone is a workspace whose Terraform state was set
	// aside and whose document a crash kept from being written.
	return b.StateExists(ctx, ws)
}

// StateExists reports whether the workspace has a document or journal.
func (b *Backend) StateExists(ctx context.Context, ws string) (bool, error) {
	p := b.Path(ws)
	ok, err := b.cfg.Blobs.Exists(ctx, p)
	if ok || err != nil {
		return ok, b.fail("reading "+b.Name(p), err)
	}
	keys, err := b.list(ctx, p+journalSuffix)
	return len(keys) > 0, err
}

// NewWorkspace creates an empty workspace: an empty state at its path.
func (b *Backend) NewWorkspace(ctx context.Context, ws string) error {
	if ws == DefaultWorkspace {
		return ErrWorkspaceExists
	}
	err := b.create(ctx, b.Path(ws), statedoc.New().Encode())
	if errors.Is(err, ErrExists) {
		return ErrWorkspaceExists
	}
	return err
}

// DeleteWorkspace removes a workspace's state, its journal and nothing
// else; force is needed when it records managed resources.
func (b *Backend) DeleteWorkspace(ctx context.Context, ws string, force bool) error {
	if ws == DefaultWorkspace {
		return errors.New("the default workspace cannot be deleted")
	}
	st, err := b.Open(ctx, ws)
	if err != nil {
		return err
	}
	defer st.Close()
	unlock, err := st.Lock(ctx, lockInfoFor("workspace delete"))
	if err != nil {
		return err
	}
	defer unlock.Unlock()
	snap, err := st.Load(ctx)
	if err != nil {
		return err
	}
	if err := statedoc.CheckDelete(ws, snap, force); err != nil {
		return err
	}
	keys, err := b.list(ctx, b.Path(ws)+journalSuffix)
	if err != nil {
		return err
	}
	if err := b.deleteAll(ctx, append(keys, b.Path(ws))); err != nil {
		return err
	}
	st.(*Store).deleted = true
	return nil
}

// get reads an object and checks the digest Tether wrote with it.
func (b *Backend) get(ctx context.Context, key string) (*Blob, error) {
	o, err := b.cfg.Blobs.Get(ctx, key)
	if err != nil {
		return nil, b.fail("reading "+b.Name(key), err)
	}
	if o.Digest != "" && digest(o.Body) != o.Digest {
		return nil, &CorruptError{Object: b.Name(key), Reason: fmt.Sprintf("does not match the SHA-256 digest written with it (%s)", o.Digest)}
	}
	return o, nil
}

// create writes an object with its digest, only if there is none.
func (b *Backend) create(ctx context.Context, key string, body []byte) error {
	return b.fail("writing "+b.Name(key), b.cfg.Blobs.Create(ctx, key, body, digest(body)))
}

// createOnce is create, for an object this runner may already have
// written: a write whose answer was lost and that the client retried
// finds its own object there. The same body there is not a refusal.
func (b *Backend) createOnce(ctx context.Context, key string, body []byte) error {
	err := b.create(ctx, key, body)
	if errors.Is(err, ErrExists) {
		if o, gerr := b.get(ctx, key); gerr == nil && string(o.Body) == string(body) {
			return nil
		}
	}
	return err
}

// Put writes an object with its digest.
func (b *Backend) Put(ctx context.Context, key string, body []byte) error {
	return b.fail("writing "+b.Name(key), b.cfg.Blobs.Put(ctx, key, body, digest(body)))
}

func (b *Backend) deleteAll(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	return b.fail(fmt.Sprintf("deleting %d objects from %s", len(keys), b.Name(keys[0])), b.cfg.Blobs.Delete(ctx, keys))
}

// list returns every key under prefix, sorted.
func (b *Backend) list(ctx context.Context, prefix string) ([]string, error) {
	keys, err := b.cfg.Blobs.List(ctx, prefix)
	if err != nil {
		return nil, b.fail("listing "+b.Name(prefix), err)
	}
	sort.Strings(keys)
	return keys, nil
}

func digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

func timestamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }
