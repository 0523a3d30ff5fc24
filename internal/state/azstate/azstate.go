package azstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tetherhq/tether/internal/state/objstate"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = objstate.DefaultWorkspace

const (
	// workspaceInfix follows the key in the name of another workspace's
	// blob, as Terraform names it.
	workspaceInfix = "env:"
	idSuffix       = ".tether-id"
	adoptedInfix   = ".terraform-adopted-"
)

// Backend is one container and key, for what concerns all workspaces.
type Backend struct {
	*objstate.Backend
	cfg   Config
	blobs *blobs
}

// Connect makes the container's client, checks the container can be
// read, and reads the state's id, creating it on first use.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	return connectWith(ctx, cfg, nil)
}

func connectWith(ctx context.Context, cfg Config, transport policy.Transporter) (*Backend, error) {
	bl, err := connect(cfg, transport)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, blobs: bl}
	where := fmt.Sprintf("Azure storage account %q, container %q, key %q", cfg.StorageAccountName, cfg.ContainerName, cfg.Key)
	if _, err := bl.c.GetProperties(ctx, nil); err != nil {
		return nil, fmt.Errorf("%s: cannot reach the container (%s): %w", where, cfg.Endpoint+cfg.ContainerName, err)
	}
	prefix := cfg.Key + workspaceInfix
	b.Backend, err = objstate.New(ctx, objstate.Config{
		Kind: "azurerm", Where: where, Blobs: adapter{bl},
		Path: b.path,
		// Workspace NAME is at KEYenv:NAME; Terraform skips names with
		// a slash, which Tether's journal objects have, and Tether skips
		// the copies of Terraform's state it set aside too.
		WorkspacePrefix: prefix,
		WorkspaceOf: func(k string) (string, bool) {
			name := strings.TrimPrefix(k, prefix)
			return name, !strings.Contains(name, "/") && !strings.Contains(name, adoptedInfix)
		},
		IDKey: cfg.Key + idSuffix,
		Lock:  func(*objstate.Backend) objstate.Locker { return locker{b} },
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// path is where a workspace's state is, as Terraform places it.
func (b *Backend) path(ws string) string {
	if ws == DefaultWorkspace {
		return b.cfg.Key
	}
	return b.cfg.Key + workspaceInfix + ws
}

// adapter is the container as objstate.Blobs.
type adapter struct{ b *blobs }

func (a adapter) Name(key string) string { return a.b.Name(key) }

func (a adapter) Get(ctx context.Context, key string) (*objstate.Blob, error) {
	d, err := a.b.get(ctx, key)
	if isNotFound(err) {
		return nil, objstate.NotFound(err)
	}
	if err != nil {
		return nil, err
	}
	if len(d.body) == 0 {
		// What Terraform's lock leaves where there was no state.
		return nil, objstate.NotFound(fmt.Errorf("%s is empty", a.b.Name(key)))
	}
	// The version is the body's: the blob's ETag changes with its
	// metadata too, which a lock writes.
	sum := sha256.Sum256(d.body)
	return &objstate.Blob{Body: d.body, Version: hex.EncodeToString(sum[:]), Digest: d.meta[digestMeta]}, nil
}

func meta(digest string) map[string]string {
	if digest == "" {
		return nil
	}
	return map[string]string{digestMeta: digest}
}

func (a adapter) Create(ctx context.Context, key string, body []byte, digest string) error {
	err := a.b.create(ctx, key, body, meta(digest))
	if isExists(err) {
		return objstate.Exists(err)
	}
	return err
}

// Put writes a blob; the state blob, leased, is snapshotted first when
// the block asks for it, as Terraform does before each write.
func (a adapter) Put(ctx context.Context, key string, body []byte, digest string) error {
	if a.b.cfg.Snapshot && a.b.held(key) != nil {
		if err := a.b.snapshot(ctx, key); err != nil {
			return fmt.Errorf("snapshotting %s before writing it (snapshot = true): %w", a.b.Name(key), err)
		}
	}
	return a.b.upload(ctx, key, body, meta(digest), nil)
}

func (a adapter) Delete(ctx context.Context, keys []string) error { return a.b.delete(ctx, keys) }

func (a adapter) List(ctx context.Context, prefix string) ([]string, error) {
	return a.b.list(ctx, prefix)
}

func (a adapter) Exists(ctx context.Context, key string) (bool, error) { return a.b.exists(ctx, key) }

// locker is Terraform's azurerm lock: the lease of the workspace's state
// blob (lease.go).
type locker struct{ b *Backend }

func (l locker) RecordPath(ws string) string { return l.b.cfg.ContainerName + "/" + l.b.path(ws) }

func (l locker) Take(ctx context.Context, ws string, record []byte) error {
	err := l.b.blobs.acquireLease(ctx, l.b.path(ws), record)
	if errors.Is(err, errLeased) {
		return &objstate.HeldError{Where: "the lease of " + l.b.blobs.Name(l.b.path(ws))}
	}
	return err
}

func (l locker) Holder(ctx context.Context, ws string) (*statedoc.LockInfo, error) {
	return l.b.blobs.holder(ctx, l.b.path(ws))
}

func (l locker) Holds(ctx context.Context, ws string, record []byte) (bool, error) {
	p := l.b.path(ws)
	h := l.b.blobs.held(p)
	var info statedoc.LockInfo
	if h == nil || json.Unmarshal(record, &info) != nil || info.ID != h.id {
		return false, nil
	}
	err := l.b.blobs.checkLease(ctx, p)
	if errors.Is(err, errLeaseLost) {
		return false, nil
	}
	return err == nil, err
}

// Drop releases this process's lease; another's (force-unlock) is broken.
func (l locker) Drop(ctx context.Context, ws string) error {
	p := l.b.path(ws)
	if l.b.blobs.held(p) != nil {
		return l.b.blobs.releaseLease(ctx, p)
	}
	return l.b.blobs.breakLease(ctx, p)
}
