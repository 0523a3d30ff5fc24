package gcsstate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/api/googleapi"
	storage "google.golang.org/api/storage/v1"

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
	client *storage.Service
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
	err = retry(ctx, func() error {
		_, err := client.Buckets.Get(cfg.Bucket).Fields("name").Context(ctx).Do()
		return err
	})
	if err != nil {
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
		return nil, err
	}
	return b, nil
}

// Close releases nothing: the client holds only idle HTTP connections.
func (b *Backend) Close() error { return nil }

func (b *Backend) path(ws string) string    { return b.cfg.Prefix + ws + stateSuffix }
func (b *Backend) lockKey(ws string) string { return b.cfg.Prefix + ws + lockSuffix }
func (b *Backend) lockName(ws string) string {
	return fmt.Sprintf("gs://%s/%s", b.cfg.Bucket, b.lockKey(ws))
}

// blobs are the bucket's objects, as objstate uses them.
type blobs struct{ b *Backend }

func (o *blobs) Name(key string) string { return fmt.Sprintf("gs://%s/%s", o.b.cfg.Bucket, key) }

// encrypt sets the headers of the customer-supplied key on a request for
// key, for every object but the lock file, which Terraform reads without
// it.
func (o *blobs) encrypt(h http.Header, key string) {
	k := o.b.cfg.EncryptionKey
	if len(k) == 0 || strings.HasSuffix(key, lockSuffix) {
		return
	}
	sum := sha256.Sum256(k)
	h.Set("x-goog-encryption-algorithm", "AES256")
	h.Set("x-goog-encryption-key", base64.StdEncoding.EncodeToString(k))
	h.Set("x-goog-encryption-key-sha256", base64.StdEncoding.EncodeToString(sum[:]))
}

// attrs reads key's metadata (fields names those wanted), with the
// customer-supplied key when withKey.
func (o *blobs) attrs(ctx context.Context, key string, withKey bool, fields ...googleapi.Field) (*storage.Object, error) {
	var obj *storage.Object
	err := retry(ctx, func() (err error) {
		call := o.b.client.Objects.Get(o.b.cfg.Bucket, key).Fields(fields...).Context(ctx)
		if withKey {
			o.encrypt(call.Header(), key)
		}
		obj, err = call.Do()
		return err
	})
	return obj, err
}

// Get reads the attributes (the digest is custom metadata, which a read
// of the content does not return), then the content of that generation;
// an object replaced in between is read again.
func (o *blobs) Get(ctx context.Context, key string) (*objstate.Blob, error) {
	for try := 0; ; try++ {
		attrs, err := o.attrs(ctx, key, true, "generation", "metadata")
		if err != nil {
			return nil, classify(err)
		}
		var body []byte
		err = retry(ctx, func() error {
			call := o.b.client.Objects.Get(o.b.cfg.Bucket, key).Generation(attrs.Generation).Context(ctx)
			o.encrypt(call.Header(), key)
			resp, err := call.Download()
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, err = io.ReadAll(resp.Body)
			return err
		})
		if isNotFound(err) && try < 3 {
			continue
		}
		if err != nil {
			return nil, classify(err)
		}
		return &objstate.Blob{Body: body, Version: strconv.FormatInt(attrs.Generation, 10), Digest: attrs.Metadata[digestMeta]}, nil
	}
}

// Create writes with the precondition DoesNotExist (ifGenerationMatch=0),
// as Terraform writes its lock file.
func (o *blobs) Create(ctx context.Context, key string, body []byte, digest string) error {
	return o.write(ctx, key, body, digest, true)
}

func (o *blobs) Put(ctx context.Context, key string, body []byte, digest string) error {
	return o.write(ctx, key, body, digest, false)
}

// write uploads body in one request (the objects are small), with its
// CRC32C for GCS to check, as the storage client's writer did.
func (o *blobs) write(ctx context.Context, key string, body []byte, digest string, create bool) error {
	const contentType = "application/json"
	return classify(retry(ctx, func() error {
		obj := &storage.Object{Name: key, ContentType: contentType}
		if digest != "" {
			obj.Metadata = map[string]string{digestMeta: digest}
		}
		call := o.b.client.Objects.Insert(o.b.cfg.Bucket, obj).
			Media(bytes.NewReader(body), googleapi.ContentType(contentType), googleapi.ChunkSize(0), googleapi.EnableAutoChecksum()).
			Fields("name").Context(ctx)
		if create {
			call.IfGenerationMatch(0)
		}
		if o.b.cfg.KMSKeyName != "" && !strings.HasSuffix(key, lockSuffix) {
			call.KmsKeyName(o.b.cfg.KMSKeyName)
		}
		o.encrypt(call.Header(), key)
		_, err := call.Do()
		return err
	}))
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
				err := retry(ctx, func() error {
					return o.b.client.Objects.Delete(o.b.cfg.Bucket, k).Context(ctx).Do()
				})
				if err != nil && !isNotFound(err) {
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
	_, err := o.attrs(ctx, key, false, "name")
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (o *blobs) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	err := retry(ctx, func() error {
		keys = keys[:0]
		return o.b.client.Objects.List(o.b.cfg.Bucket).Prefix(prefix).Fields("items(name)", "nextPageToken").
			Pages(ctx, func(page *storage.Objects) error {
				for _, obj := range page.Items {
					keys = append(keys, obj.Name)
				}
				return nil
			})
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// isNotFound is GCS's answer for an object (or bucket) that is not there.
func isNotFound(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusNotFound
}

// classify marks GCS's not-found and precondition errors as objstate's.
func classify(err error) error {
	var ge *googleapi.Error
	switch {
	case err == nil:
		return nil
	case isNotFound(err):
		return objstate.NotFound(err)
	case errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed:
		return objstate.Exists(err)
	}
	return err
}
