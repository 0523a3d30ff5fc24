package gcsstate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"

	"github.com/tetherhq/tether/internal/state/objstate"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = objstate.DefaultWorkspace

const (
	stateSuffix = ".tfstate"
	lockSuffix  = ".tflock"
	idName      = ".tether-id"
	// digestMeta is the custom metadata every object Tether writes
	// carries: the SHA-256 of its body.
	digestMeta = "tether-sha256"
	// deleters is how many deletes run at once (GCS deletes one object
	// per request).
	deleters = 16
)

// The journal, the document and the workspaces are objstate's.
type (
	Store          = objstate.Store
	CorruptError   = objstate.CorruptError
	TerraformState = objstate.TerraformState
)

var (
	ErrNoWorkspace     = objstate.ErrNoWorkspace
	ErrWorkspaceExists = objstate.ErrWorkspaceExists
)

// Backend is one bucket and prefix, for what concerns all workspaces.
type Backend struct {
	*objstate.Backend
	cfg    Config
	client *storage.Client
}

// Connect makes the client, checks the bucket can be read, and reads the
// state's id, creating it on first use.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	client, err := cfg.newClient(ctx)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, client: client}
	where := fmt.Sprintf("GCS bucket %q, prefix %q", cfg.Bucket, cfg.Prefix)
	if _, err := client.Bucket(cfg.Bucket).Attrs(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("%s: cannot reach the bucket: %w", where, err)
	}
	b.Backend, err = objstate.New(ctx, objstate.Config{
		Kind: "gcs", Where: where, Blobs: &blobs{b: b},
		Path:            b.path,
		WorkspacePrefix: cfg.Prefix,
		// Workspace NAME is PREFIX/NAME.tfstate, as Terraform lists them.
		WorkspaceOf: func(k string) (string, bool) {
			name := strings.TrimPrefix(k, cfg.Prefix)
			if strings.Contains(name, "/") || !strings.HasSuffix(name, stateSuffix) {
				return "", false
			}
			return strings.TrimSuffix(name, stateSuffix), true
		},
		IDKey: cfg.Prefix + idName,
		// Terraform's lock file, whose ID is its generation.
		Lock: func(ob *objstate.Backend) objstate.Locker {
			return &objstate.LockFile{B: ob, Key: b.lockKey, Record: b.lockName, VersionIsID: true}
		},
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	return b, nil
}

// Close closes the client.
func (b *Backend) Close() error { return b.client.Close() }

func (b *Backend) path(ws string) string    { return b.cfg.Prefix + ws + stateSuffix }
func (b *Backend) lockKey(ws string) string { return b.cfg.Prefix + ws + lockSuffix }
func (b *Backend) lockName(ws string) string {
	return fmt.Sprintf("gs://%s/%s", b.cfg.Bucket, b.lockKey(ws))
}

// blobs are the bucket's objects, as objstate uses them.
type blobs struct{ b *Backend }

func (o *blobs) Name(key string) string { return fmt.Sprintf("gs://%s/%s", o.b.cfg.Bucket, key) }

// object is the handle of key, with the customer-supplied key for every
// object but the lock file, which Terraform reads without it.
func (o *blobs) object(key string) *storage.ObjectHandle {
	h := o.b.client.Bucket(o.b.cfg.Bucket).Object(key)
	if len(o.b.cfg.EncryptionKey) > 0 && !strings.HasSuffix(key, lockSuffix) {
		h = h.Key(o.b.cfg.EncryptionKey)
	}
	return h
}

// Get reads the attributes (the digest is custom metadata, which a read
// of the content does not return), then the content of that generation;
// an object replaced in between is read again.
func (o *blobs) Get(ctx context.Context, key string) (*objstate.Blob, error) {
	for try := 0; ; try++ {
		attrs, err := o.object(key).Attrs(ctx)
		if err != nil {
			return nil, classify(err)
		}
		r, err := o.object(key).Generation(attrs.Generation).NewReader(ctx)
		if errors.Is(err, storage.ErrObjectNotExist) && try < 3 {
			continue
		}
		if err != nil {
			return nil, classify(err)
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		return &objstate.Blob{Body: body, Version: strconv.FormatInt(attrs.Generation, 10), Digest: attrs.Metadata[digestMeta]}, nil
	}
}

// Create writes with the precondition DoesNotExist (ifGenerationMatch=0),
// as Terraform writes its lock file.
func (o *blobs) Create(ctx context.Context, key string, body []byte, digest string) error {
	return o.write(ctx, o.object(key).If(storage.Conditions{DoesNotExist: true}), key, body, digest)
}

func (o *blobs) Put(ctx context.Context, key string, body []byte, digest string) error {
	return o.write(ctx, o.object(key), key, body, digest)
}

func (o *blobs) write(ctx context.Context, h *storage.ObjectHandle, key string, body []byte, digest string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := h.NewWriter(ctx)
	// One request, not a resumable upload: the objects are small.
	w.ChunkSize = 0
	w.ContentType = "application/json"
	if digest != "" {
		w.Metadata = map[string]string{digestMeta: digest}
	}
	if o.b.cfg.KMSKeyName != "" && !strings.HasSuffix(key, lockSuffix) {
		w.KMSKeyName = o.b.cfg.KMSKeyName
	}
	if _, err := w.Write(body); err != nil {
		w.Close()
		return classify(err)
	}
	return classify(w.Close())
}

// Delete deletes keys, a few at once; an absent one is no error.
func (o *blobs) Delete(ctx context.Context, keys []string) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan string)
	)
	for i := 0; i < min(deleters, len(keys)); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				err := o.b.client.Bucket(o.b.cfg.Bucket).Object(k).Delete(ctx)
				if err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("deleting %s: %w", o.Name(k), err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
	return first
}

func (o *blobs) Exists(ctx context.Context, key string) (bool, error) {
	_, err := o.b.client.Bucket(o.b.cfg.Bucket).Object(key).Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (o *blobs) List(ctx context.Context, prefix string) ([]string, error) {
	q := &storage.Query{Prefix: prefix}
	if err := q.SetAttrSelection([]string{"Name"}); err != nil {
		return nil, err
	}
	var keys []string
	it := o.b.client.Bucket(o.b.cfg.Bucket).Objects(ctx, q)
	for {
		attrs, err := it.Next()
		if err == iterator.Done {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, attrs.Name)
	}
}

// classify marks GCS's not-found and precondition errors as objstate's.
func classify(err error) error {
	var ge *googleapi.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrObjectNotExist):
		return objstate.NotFound(err)
	case errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed:
		return objstate.Exists(err)
	}
	return err
}
