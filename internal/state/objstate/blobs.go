package objstate

import (
	"context"
	"errors"
	"fmt"
)

// Blobs is the object store a backend keeps state in. doc.go says what
// each operation must guarantee.
type Blobs interface {
	// Get reads the object at key.
	Get(ctx context.Context, key string) (*Blob, error)
	// Create writes the object at key only if there is none, atomically.
	Create(ctx context.Context, key string, body []byte, digest string) error
	// Put writes the object at key, replacing any.
	Put(ctx context.Context, key string, body []byte, digest string) error
	// Delete deletes the objects at keys; absent ones are no error.
	Delete(ctx context.Context, keys []string) error
	// List returns every key that starts with prefix, in any order.
	List(ctx context.Context, prefix string) ([]string, error)
	// Exists reports whether there is an object at key.
	Exists(ctx context.Context, key string) (bool, error)
	// Name names the object at key in messages, as its users write it
	// (s3://bucket/key, gs://bucket/key).
	Name(key string) string
}

// Blob is an object read.
type Blob struct {
	Body []byte
	// Version changes with every write of the object: an ETag or a
	// generation.
	Version string
	// Digest is what was written with the object, "" when nothing was
	// (objects Terraform wrote).
	Digest string
}

// ErrNotFound and ErrExists classify a Blobs' errors; NotFound and
// Exists mark an error of the store's client as one of them.
var (
	ErrNotFound = errors.New("no such object")
	ErrExists   = errors.New("the object already exists")
)

// NotFound marks err as the error of a read of an absent object.
func NotFound(err error) error { return &classified{kind: ErrNotFound, err: err} }

// Exists marks err as the refusal of a Create of a key in use.
func Exists(err error) error { return &classified{kind: ErrExists, err: err} }

type classified struct{ kind, err error }

func (c *classified) Error() string        { return c.err.Error() }
func (c *classified) Unwrap() error        { return c.err }
func (c *classified) Is(target error) bool { return target == c.kind }

// CorruptError is an object Tether wrote that fails its check. Tether
// neither uses nor repairs it.
type CorruptError struct {
	Object string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s %s; Tether will not use or modify it: restore it from a backup (the bucket's object versioning) or move it aside", e.Object, e.Reason)
}

// opError names the backend and what it was doing.
type opError struct {
	kind, doing string
	err         error
}

func (e *opError) Error() string {
	return fmt.Sprintf("the %q backend: %s: %s", e.kind, e.doing, e.err)
}
func (e *opError) Unwrap() error { return e.err }

// fail names the backend and what it was doing; nil stays nil, a
// CorruptError stays as it is, and the store's error stays matchable.
func (b *Backend) fail(doing string, err error) error {
	if err == nil {
		return nil
	}
	var ce *CorruptError
	if errors.As(err, &ce) {
		return err
	}
	return &opError{kind: b.cfg.Kind, doing: doing, err: err}
}
