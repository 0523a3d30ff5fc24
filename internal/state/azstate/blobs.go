package azstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

const (
	// digestMeta is the metadata (x-ms-meta-tethersha256) every blob
	// Tether writes carries: the SHA-256 of its body. Metadata names are
	// C# identifiers, so it has no dash.
	digestMeta = "tethersha256"
	// lockMeta is where Terraform keeps its lock info: base64 of the
	// JSON lock record, on the leased state blob.
	lockMeta = "terraformlockid"
)

// blobs is one container, as objstate sees it. A blob this process holds
// the lease of is written with the lease and with the lock record in its
// metadata, as Terraform writes its leased state blob.
type blobs struct {
	cfg Config
	c   *container.Client
}

// lease is a lease this process holds on a blob, and the lock record
// written with it.
type lease struct {
	id     string
	record string // base64 JSON, lockMeta's value
	// emptied is set when objstate deleted the blob while it was leased:
	// it was emptied instead, keeping the lock, and is deleted once the
	// lease is released.
	emptied bool
}

// leases are the leases this process holds, by blob (Name): init's
// takeover reads and sets aside Terraform's state through one backend
// while it holds the lock through another.
var leases = struct {
	sync.Mutex
	m map[string]*lease
}{m: map[string]*lease{}}

// connect makes the container's client with the key or SAS token.
func connect(cfg Config, transport policy.Transporter) (*blobs, error) {
	opts := &container.ClientOptions{}
	opts.Retry.MaxRetries = 3
	if transport != nil {
		opts.Transport = transport
	}
	u := cfg.Endpoint + cfg.ContainerName
	var c *container.Client
	var err error
	switch {
	case cfg.AccessKey != "":
		var cred *container.SharedKeyCredential
		if cred, err = container.NewSharedKeyCredential(cfg.StorageAccountName, cfg.AccessKey); err != nil {
			return nil, fmt.Errorf(`the "azurerm" backend: the access key: %w`, err)
		}
		c, err = container.NewClientWithSharedKeyCredential(u, cred, opts)
	case cfg.SASToken != "":
		c, err = container.NewClientWithNoCredential(u+"?"+cfg.SASToken, opts)
	default:
		var cred *azidentity.AzureCLICredential
		if cred, err = azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: cfg.TenantID}); err != nil {
			return nil, fmt.Errorf(`the "azurerm" backend: Azure AD through the Azure CLI: %w`, err)
		}
		c, err = container.NewClient(u, cred, opts)
	}
	if err != nil {
		return nil, fmt.Errorf(`the "azurerm" backend: %w`, err)
	}
	return &blobs{cfg: cfg, c: c}, nil
}

// Name names a blob as Terraform's messages do: container/key, with the
// account.
func (b *blobs) Name(key string) string {
	return fmt.Sprintf("azurerm://%s/%s/%s", b.cfg.StorageAccountName, b.cfg.ContainerName, key)
}

func (b *blobs) held(key string) *lease {
	leases.Lock()
	defer leases.Unlock()
	return leases.m[b.Name(key)]
}

func (b *blobs) setHeld(key string, l *lease) {
	leases.Lock()
	defer leases.Unlock()
	if l == nil {
		delete(leases.m, b.Name(key))
	} else {
		leases.m[b.Name(key)] = l
	}
}

func leaseCond(l *lease) *blob.LeaseAccessConditions {
	if l == nil {
		return nil
	}
	return &blob.LeaseAccessConditions{LeaseID: &l.id}
}

// blobData is a blob read: body, ETag and metadata (names lower-cased).
type blobData struct {
	body []byte
	etag string
	meta map[string]string
}

// get reads a blob. A blob with no body (what Terraform's lock creates
// where there was no state) reads as absent.
func (b *blobs) get(ctx context.Context, key string) (*blobData, error) {
	out, err := b.c.NewBlobClient(key).DownloadStream(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	d := &blobData{body: body, meta: lower(out.Metadata)}
	if out.ETag != nil {
		d.etag = string(*out.ETag)
	}
	return d, nil
}

func lower(m map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != nil {
			out[strings.ToLower(k)] = *v
		}
	}
	return out
}

// upload writes a blob with meta and cond. The state blob this process
// holds the lease of is written with the lease, the lock record and the
// rest of its metadata kept, as Terraform writes it.
func (b *blobs) upload(ctx context.Context, key string, body []byte, meta map[string]string, cond *blob.AccessConditions) error {
	l := b.held(key)
	md := map[string]*string{}
	if l != nil {
		p, err := b.c.NewBlobClient(key).GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}})
		if err != nil {
			return err
		}
		for k, v := range p.Metadata {
			if !strings.EqualFold(k, digestMeta) && !strings.EqualFold(k, lockMeta) {
				md[strings.ToLower(k)] = v
			}
		}
	}
	for k, v := range meta {
		md[k] = &v
	}
	if l != nil {
		rec := l.record
		md[lockMeta] = &rec
		if cond == nil {
			cond = &blob.AccessConditions{}
		}
		cond.LeaseAccessConditions = leaseCond(l)
	}
	ct := "application/json"
	_, err := b.c.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(body)), &blockblob.UploadOptions{
		HTTPHeaders:      &blob.HTTPHeaders{BlobContentType: &ct},
		Metadata:         md,
		AccessConditions: cond,
	})
	return err
}

// create writes a blob only where there is none, or only an empty one
// no one leases (Terraform's lock leaves one where there was no state).
func (b *blobs) create(ctx context.Context, key string, body []byte, meta map[string]string) error {
	any := azcore.ETagAny
	err := b.upload(ctx, key, body, meta, &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &any}})
	if !isExists(err) {
		return err
	}
	p, perr := b.c.NewBlobClient(key).GetProperties(ctx, nil)
	if perr != nil || p.ContentLength == nil || *p.ContentLength != 0 || p.ETag == nil || (p.LeaseState != nil && *p.LeaseState == "leased") {
		return err
	}
	etag := *p.ETag
	return b.upload(ctx, key, body, meta, &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag}})
}

// delete deletes blobs; absent ones are no error. A blob this process
// leases is deleted with its lease.
func (b *blobs) delete(ctx context.Context, keys []string) error {
	sem := make(chan struct{}, 8)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func(k string) {
			defer func() { <-sem; wg.Done() }()
			var err error
			if l := b.held(k); l != nil {
				// Deleting the blob would end the lease, and the
				// lock with it: it is emptied, and deleted once the
				// lease is released.
				if err = b.upload(ctx, k, nil, nil, nil); err == nil {
					l.emptied = true
				}
			} else {
				_, err = b.c.NewBlobClient(k).Delete(ctx, nil)
			}
			if err != nil && !isNotFound(err) {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("deleting %s: %w", b.Name(k), err)
				}
				mu.Unlock()
			}
		}(k)
	}
	wg.Wait()
	return first
}

// list returns every blob name under prefix, sorted.
func (b *blobs) list(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := b.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Segment.BlobItems {
			if item.Name != nil {
				keys = append(keys, *item.Name)
			}
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (b *blobs) exists(ctx context.Context, key string) (bool, error) {
	p, err := b.c.NewBlobClient(key).GetProperties(ctx, nil)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// An empty blob is where Terraform's lock found no state.
	return p.ContentLength == nil || *p.ContentLength > 0, nil
}

// snapshot snapshots a blob before it is replaced, as Terraform's
// snapshot = true does; a blob not there yet has nothing to keep.
func (b *blobs) snapshot(ctx context.Context, key string) error {
	var opts *blob.CreateSnapshotOptions
	if l := b.held(key); l != nil {
		opts = &blob.CreateSnapshotOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}}
	}
	_, err := b.c.NewBlobClient(key).CreateSnapshot(ctx, opts)
	if isNotFound(err) {
		return nil
	}
	return err
}

func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

func isNotFound(err error) bool {
	return err != nil && (bloberror.HasCode(err, bloberror.BlobNotFound) || statusOf(err) == http.StatusNotFound && !bloberror.HasCode(err, bloberror.ContainerNotFound))
}

func isExists(err error) bool {
	return err != nil && (bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) ||
		statusOf(err) == http.StatusPreconditionFailed && !bloberror.HasCode(err, bloberror.LeaseIDMismatchWithBlobOperation, bloberror.LeaseNotPresentWithBlobOperation, bloberror.LeaseIDMissing))
}
