package s3state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/tetherhq/tether/internal/state/objstate"
)

// DefaultWorkspace always exists and cannot be deleted.
const DefaultWorkspace = objstate.DefaultWorkspace

const (
	lockSuffix = ".tflock"
	idSuffix   = ".tether-id"
	// digestMeta is the user metadata (x-amz-meta-tether-sha256) every
	// object Tether writes carries: the SHA-256 of its body.
	digestMeta = "tether-sha256"
)

// The journal, the document and the workspaces are objstate's.
type (
	Store              = objstate.Store
	CorruptError       = objstate.CorruptError
	TerraformHereError = objstate.TerraformHereError
	TerraformState     = objstate.TerraformState
)

var (
	ErrNoWorkspace     = objstate.ErrNoWorkspace
	ErrWorkspaceExists = objstate.ErrWorkspaceExists
	ErrTerraformHere   = objstate.ErrTerraformHere
)

// Backend is one bucket and key, for what concerns all workspaces.
type Backend struct {
	*objstate.Backend
	cfg Config
	c   *clients
}

// Connect makes the clients, checks the bucket can be read, and reads the
// state's id, creating it on first use.
func Connect(ctx context.Context, cfg Config) (*Backend, error) {
	c, err := cfg.newClients(ctx)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, c: c}
	where := fmt.Sprintf("S3 bucket %q, key %q (region %s)", cfg.Bucket, cfg.Key, cfg.Region)
	if _, err := c.s3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(cfg.Bucket)}); err != nil {
		return nil, fmt.Errorf("%s: cannot reach the bucket: %w", where, err)
	}
	prefix := ""
	if cfg.WorkspaceKeyPrefix != "" {
		prefix = cfg.WorkspaceKeyPrefix + "/"
	}
	b.Backend, err = objstate.New(ctx, objstate.Config{
		Kind: "s3", Where: where, Blobs: &blobs{b: b},
		Path: b.path,
		// Workspace NAME is at WORKSPACE_KEY_PREFIX/NAME/KEY.
		WorkspacePrefix: prefix,
		WorkspaceOf: func(k string) (string, bool) {
			name, rest, ok := strings.Cut(strings.TrimPrefix(k, prefix), "/")
			return name, ok && rest == cfg.Key
		},
		IDKey:   cfg.Key + idSuffix,
		Lock:    b.locker,
		Written: b.putDigest,
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
	return path.Join(b.cfg.WorkspaceKeyPrefix, ws, b.cfg.Key)
}

// blobs are the bucket's objects, as objstate uses them.
type blobs struct{ b *Backend }

func (o *blobs) Name(key string) string { return fmt.Sprintf("s3://%s/%s", o.b.cfg.Bucket, key) }

func (o *blobs) Get(ctx context.Context, key string) (*objstate.Blob, error) {
	out, err := o.b.c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(o.b.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		return nil, classify(err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	return &objstate.Blob{Body: body, Version: aws.ToString(out.ETag), Digest: out.Metadata[digestMeta]}, nil
}

func (o *blobs) Create(ctx context.Context, key string, body []byte, digest string) error {
	return o.put(ctx, key, body, digest, true)
}

func (o *blobs) Put(ctx context.Context, key string, body []byte, digest string) error {
	return o.put(ctx, key, body, digest, false)
}

func (o *blobs) put(ctx context.Context, key string, body []byte, digest string, create bool) error {
	in := &s3.PutObjectInput{
		Bucket:      aws.String(o.b.cfg.Bucket),
		Key:         aws.String(key),
		Body:        bytes.NewReader(body),
		ContentType: aws.String("application/json"),
	}
	if digest != "" {
		in.Metadata = map[string]string{digestMeta: digest}
	}
	if create {
		in.IfNoneMatch = aws.String("*")
	}
	o.b.encryption(in)
	_, err := o.b.c.s3.PutObject(ctx, in)
	return classify(err)
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

// Delete deletes keys, a thousand per request (S3's limit).
func (o *blobs) Delete(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		var ids []s3types.ObjectIdentifier
		for _, k := range keys[:n] {
			ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(k)})
		}
		out, err := o.b.c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(o.b.cfg.Bucket), Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return err
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("deleting %s: %s: %s", o.Name(aws.ToString(e.Key)), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		keys = keys[n:]
	}
	return nil
}

func (o *blobs) Exists(ctx context.Context, key string) (bool, error) {
	_, err := o.b.c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(o.b.cfg.Bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (o *blobs) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := s3.NewListObjectsV2Paginator(o.b.c.s3, &s3.ListObjectsV2Input{Bucket: aws.String(o.b.cfg.Bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys, nil
}

// classify marks S3's not-found and precondition errors as objstate's.
func classify(err error) error {
	switch {
	case isNotFound(err):
		return objstate.NotFound(err)
	case isPreconditionFailed(err):
		return objstate.Exists(err)
	}
	return err
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
