package s3state

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = "default"

const (
	journalSuffix = ".tether-journal/"
	lockSuffix    = ".tflock"
	idSuffix      = ".tether-id"
	adoptedSuffix = ".terraform-adopted-"
	// digestMeta is the user metadata (x-amz-meta-tether-sha256) every
	// object Tether writes carries: the SHA-256 of its body.
	digestMeta = "tether-sha256"
)

// ErrNoWorkspace is wrapped by Open for a workspace that was never created.
var ErrNoWorkspace = errors.New("workspace does not exist")

// Backend is one bucket and key, for what concerns all workspaces.
type Backend struct {
	cfg Config
	c   *clients
	id  string
}

// Connect makes the clients, checks the bucket can be read, and reads the
// state's id, creating it on first use.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	c, err := cfg.newClients(ctx)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, c: c}
	if _, err := c.s3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(cfg.Bucket)}); err != nil {
		return nil, fmt.Errorf("%s: cannot reach the bucket: %w", b.Where(), err)
	}
	if b.id, err = b.readID(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// Where names the bucket and key, for messages.
func (b *Backend) Where() string {
	return fmt.Sprintf("S3 bucket %q, key %q (region %s)", b.cfg.Bucket, b.cfg.Key, b.cfg.Region)
}

// Close releases nothing: the clients hold no session.
func (b *Backend) Close() error { return nil }

// ID is the state's id, which names its key (see internal/secrets).
func (b *Backend) ID() string { return b.id }

// path is where a workspace's state is, as Terraform places it.
func (b *Backend) path(ws string) string {
	if ws == DefaultWorkspace {
		return b.cfg.Key
	}
	return path.Join(b.cfg.WorkspaceKeyPrefix, ws, b.cfg.Key)
}

func (b *Backend) objectName(key string) string {
	return fmt.Sprintf("s3://%s/%s", b.cfg.Bucket, key)
}

func (b *Backend) idKey() string { return b.cfg.Key + idSuffix }

func (b *Backend) readID(ctx context.Context) (string, error) {
	for i := 0; i < 2; i++ {
		body, _, err := b.get(ctx, b.idKey())
		if err == nil {
			id := strings.TrimSpace(string(body))
			if len(id) != 32 {
				return "", fmt.Errorf("%s holds no valid state id; Tether will not use this state: restore it from a backup (versioning) or move it aside", b.objectName(b.idKey()))
			}
			return id, nil
		}
		if !isNotFound(err) {
			return "", err
		}
		var raw [16]byte
		rand.Read(raw[:])
		id := hex.EncodeToString(raw[:])
		if err := b.put(ctx, b.idKey(), []byte(id+"\n"), true); err == nil {
			return id, nil
		} else if !isPreconditionFailed(err) {
			return "", err
		}
		// Another runner created it first: read theirs.
	}
	return "", fmt.Errorf("%s: cannot read or create the state id", b.objectName(b.idKey()))
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
	if err := b.put(ctx, b.idKey(), []byte(id+"\n"), false); err != nil {
		return err
	}
	b.id = id
	return nil
}

// Workspaces lists the workspaces, sorted: default, and every NAME with an
// object at WORKSPACE_KEY_PREFIX/NAME/KEY (Terraform's as well as
// Tether's).
func (b *Backend) Workspaces(ctx context.Context) ([]string, error) {
	names := []string{DefaultWorkspace}
	prefix := ""
	if b.cfg.WorkspaceKeyPrefix != "" {
		prefix = b.cfg.WorkspaceKeyPrefix + "/"
	}
	keys, err := b.list(ctx, prefix)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		name, rest, ok := strings.Cut(strings.TrimPrefix(k, prefix), "/")
		if ok && rest == b.cfg.Key && name != DefaultWorkspace && name != "" {
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

// StateExists reports whether the workspace has a state object or journal.
func (b *Backend) StateExists(ctx context.Context, ws string) (bool, error) {
	if ok, err := b.exists(ctx, b.path(ws)); ok || err != nil {
		return ok, err
	}
	keys, err := b.list(ctx, b.path(ws)+journalSuffix)
	return len(keys) > 0, err
}

// ErrWorkspaceExists is returned by NewWorkspace for a name in use.
var ErrWorkspaceExists = errors.New("workspace already exists")

// NewWorkspace creates an empty workspace: an empty state at its path.
func (b *Backend) NewWorkspace(ctx context.Context, ws string) error {
	if ws == DefaultWorkspace {
		return ErrWorkspaceExists
	}
	err := b.put(ctx, b.path(ws), statedoc.New().Encode(), true)
	if isPreconditionFailed(err) {
		return ErrWorkspaceExists
	}
	return err
}

// DeleteWorkspace removes a workspace's state, its journal and nothing
// else; force is needed when it records managed resources. The caller
// holds the workspace's lock, whose file is left for the caller to drop.
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
	keys, err := b.list(ctx, b.path(ws)+journalSuffix)
	if err != nil {
		return err
	}
	if err := b.deleteAll(ctx, append(keys, b.path(ws))); err != nil {
		return err
	}
	st.(*Store).deleted = true
	return nil
}

// get reads an object and checks the digest Tether wrote with it.
func (b *Backend) get(ctx context.Context, key string) ([]byte, string, error) {
	out, err := b.c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		return nil, "", b.fail("reading "+b.objectName(key), err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", b.fail("reading "+b.objectName(key), err)
	}
	if want, ok := out.Metadata[digestMeta]; ok {
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) != want {
			return nil, "", &CorruptError{Object: b.objectName(key), Reason: fmt.Sprintf("does not match the SHA-256 digest written with it (%s)", want)}
		}
	}
	return body, aws.ToString(out.ETag), nil
}

// put writes an object with its digest, once only when create is set.
func (b *Backend) put(ctx context.Context, key string, body []byte, create bool) error {
	sum := sha256.Sum256(body)
	in := &s3.PutObjectInput{
		Bucket:      aws.String(b.cfg.Bucket),
		Key:         aws.String(key),
		Body:        bytes.NewReader(body),
		ContentType: aws.String("application/json"),
		Metadata:    map[string]string{digestMeta: hex.EncodeToString(sum[:])},
	}
	if create {
		in.IfNoneMatch = aws.String("*")
	}
	b.encryption(in)
	_, err := b.c.s3.PutObject(ctx, in)
	return b.fail("writing "+b.objectName(key), err)
}

// encryption sets what encrypt, kms_key_id, acl and skip_s3_checksum ask
// of every object written, as Terraform sets them on the state object.
func (b *Backend) encryption(in *s3.PutObjectInput) {
	if b.cfg.Encrypt {
		if b.cfg.KMSKeyID != "" {
			in.ServerSideEncryption = s3types.ServerSideEncryptionAwsKms
			in.SSEKMSKeyId = aws.String(b.cfg.KMSKeyID)
		} else {
			in.ServerSideEncryption = s3types.ServerSideEncryptionAes256
		}
	}
	if b.cfg.ACL != "" {
		in.ACL = s3types.ObjectCannedACL(b.cfg.ACL)
	}
	if !b.cfg.SkipS3Checksum {
		in.ChecksumAlgorithm = s3types.ChecksumAlgorithmSha256
	}
}

func (b *Backend) delete(ctx context.Context, key string) error {
	_, err := b.c.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.cfg.Bucket), Key: aws.String(key)})
	return b.fail("deleting "+b.objectName(key), err)
}

// deleteAll deletes keys, a thousand per request (S3's limit).
func (b *Backend) deleteAll(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		var ids []s3types.ObjectIdentifier
		for _, k := range keys[:n] {
			ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(k)})
		}
		out, err := b.c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(b.cfg.Bucket), Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return b.fail(fmt.Sprintf("deleting %d objects under %s", n, b.objectName(keys[0])), err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("the \"s3\" backend: deleting %s: %s: %s", b.objectName(aws.ToString(e.Key)), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		keys = keys[n:]
	}
	return nil
}

func (b *Backend) exists(ctx context.Context, key string) (bool, error) {
	_, err := b.c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.cfg.Bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, b.fail("reading "+b.objectName(key), err)
}

// list returns every key under prefix, sorted.
func (b *Backend) list(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := s3.NewListObjectsV2Paginator(b.c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(b.cfg.Bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, b.fail(fmt.Sprintf("listing %s", b.objectName(prefix)), err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// fail names the backend and what it was doing; nil stays nil, and the
// API error stays matchable.
func (b *Backend) fail(doing string, err error) error {
	if err == nil {
		return nil
	}
	var ce *CorruptError
	if errors.As(err, &ce) {
		return err
	}
	return &opError{doing: doing, err: err}
}

type opError struct {
	doing string
	err   error
}

func (e *opError) Error() string { return "the \"s3\" backend: " + e.doing + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// CorruptError is an object Tether wrote that fails its check. Tether
// neither uses nor repairs it.
type CorruptError struct {
	Object string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s %s; Tether will not use or modify it: restore it from a backup (S3 versioning) or move it aside", e.Object, e.Reason)
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func isNotFound(err error) bool {
	var nk *s3types.NoSuchKey
	var nf *s3types.NotFound
	return err != nil && (errors.As(err, &nk) || errors.As(err, &nf) || apiCode(err) == "NoSuchKey" || apiCode(err) == "NotFound")
}

func isPreconditionFailed(err error) bool {
	return err != nil && (apiCode(err) == "PreconditionFailed" || apiCode(err) == "ConditionalRequestConflict")
}

func timestamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }
