package azstate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	azlease "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// The lock is Terraform's: an infinite lease on the state blob whose id
// is the lock's ID, and the lock record, base64-encoded JSON, in the
// blob's metadata under terraformlockid. Terraform and Tether each refuse
// a blob another holds the lease of, and either can break the other's
// lock (force-unlock), which releases the lease named in the record.

var guid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// errLeased is acquireLease's refusal: another holds the blob's lease.
var errLeased = errors.New("the state blob is leased")

// acquireLease takes the lease of the blob at key with the lock's ID and
// writes the lock record into its metadata, as Terraform does; a blob not
// there yet is created empty first, as Terraform creates it.
func (b *blobs) acquireLease(ctx context.Context, key string, record []byte) error {
	var info statedoc.LockInfo
	if err := json.Unmarshal(record, &info); err != nil {
		return err
	}
	if !guid.MatchString(info.ID) {
		return fmt.Errorf("the lock ID %q is not a GUID, which an Azure blob lease needs", info.ID)
	}
	bc := b.c.NewBlobClient(key)
	p, err := bc.GetProperties(ctx, nil)
	if isNotFound(err) {
		any := azcore.ETagAny
		_, err = b.c.NewBlockBlobClient(key).UploadBuffer(ctx, nil, &blockblob.UploadBufferOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &any}},
		})
		if err != nil && !isExists(err) {
			return err
		}
		p, err = bc.GetProperties(ctx, nil)
	}
	if err != nil {
		return err
	}
	if p.LeaseState != nil && *p.LeaseState == "leased" {
		return errLeased
	}
	lc, err := azlease.NewBlobClient(bc, &azlease.BlobClientOptions{LeaseID: &info.ID})
	if err != nil {
		return err
	}
	if _, err := lc.AcquireLease(ctx, -1, nil); err != nil {
		if bloberror.HasCode(err, bloberror.LeaseAlreadyPresent) {
			return errLeased
		}
		return err
	}
	l := &lease{id: info.ID, record: base64.StdEncoding.EncodeToString(record)}
	md := p.Metadata
	if md == nil {
		md = map[string]*string{}
	}
	for k := range md {
		if strings.EqualFold(k, lockMeta) {
			delete(md, k)
		}
	}
	md[lockMeta] = &l.record
	if _, err := bc.SetMetadata(ctx, md, &blob.SetMetadataOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}}); err != nil {
		lc.ReleaseLease(context.Background(), nil)
		return err
	}
	b.setHeld(key, l)
	return nil
}

// holder reads the lock record of the blob at key: nil when the blob is
// not leased. A leased blob without a record (Terraform between taking the
// lease and writing it) holds a record with only its path.
func (b *blobs) holder(ctx context.Context, key string) (*statedoc.LockInfo, error) {
	p, err := b.c.NewBlobClient(key).GetProperties(ctx, nil)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p.LeaseState == nil || *p.LeaseState != "leased" {
		return nil, nil
	}
	raw := lower(p.Metadata)[lockMeta]
	l := &statedoc.LockInfo{Path: b.cfg.ContainerName + "/" + key}
	if raw == "" {
		return l, nil
	}
	data, err := base64.StdEncoding.DecodeString(raw)
	if err == nil {
		err = json.Unmarshal(data, l)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is leased, and its lock record (metadata %s) cannot be read: %v", b.Name(key), lockMeta, err)
	}
	return l, nil
}

// checkLease fails with errLeaseLost unless this process's lease on the
// blob at key is still the blob's lease.
func (b *blobs) checkLease(ctx context.Context, key string) error {
	l := b.held(key)
	if l == nil {
		return errLeaseLost
	}
	_, err := b.c.NewBlobClient(key).GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}})
	if bloberror.HasCode(err, bloberror.LeaseIDMismatchWithBlobOperation, bloberror.LeaseNotPresentWithBlobOperation, bloberror.BlobNotFound) {
		return errLeaseLost
	}
	return err
}

var errLeaseLost = errors.New("the lease on the state blob is no longer this run's")

// releaseLease removes the lock record and releases the lease, as
// Terraform's unlock does.
func (b *blobs) releaseLease(ctx context.Context, key string) error {
	l := b.held(key)
	if l == nil {
		return errLeaseLost
	}
	b.setHeld(key, nil)
	bc := b.c.NewBlobClient(key)
	p, err := bc.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}})
	if err != nil {
		return err
	}
	if _, err := bc.SetMetadata(ctx, withoutLock(p.Metadata), &blob.SetMetadataOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: leaseCond(l)}}); err != nil {
		return err
	}
	lc, err := azlease.NewBlobClient(bc, &azlease.BlobClientOptions{LeaseID: &l.id})
	if err != nil {
		return err
	}
	if _, err = lc.ReleaseLease(ctx, nil); err != nil || !l.emptied {
		return err
	}
	// objstate deleted the blob while it was leased: delete it now,
	// unless someone wrote to it since.
	p, err = bc.GetProperties(ctx, nil)
	if isNotFound(err) || err == nil && (p.ContentLength == nil || *p.ContentLength != 0 || p.ETag == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = bc.Delete(ctx, &blob.DeleteOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: p.ETag}}})
	if isNotFound(err) || bloberror.HasCode(err, bloberror.ConditionNotMet, bloberror.LeaseIDMissing) {
		return nil
	}
	return err
}

// breakLease breaks whoever's lease the blob at key has, at once, and
// removes the lock record.
func (b *blobs) breakLease(ctx context.Context, key string) error {
	bc := b.c.NewBlobClient(key)
	lc, err := azlease.NewBlobClient(bc, nil)
	if err != nil {
		return err
	}
	var zero int32
	if _, err := lc.BreakLease(ctx, &azlease.BlobBreakOptions{BreakPeriod: &zero}); err != nil && !bloberror.HasCode(err, bloberror.LeaseNotPresentWithLeaseOperation) {
		return err
	}
	p, err := bc.GetProperties(ctx, nil)
	if err != nil {
		return err
	}
	_, err = bc.SetMetadata(ctx, withoutLock(p.Metadata), nil)
	return err
}

func withoutLock(md map[string]*string) map[string]*string {
	out := map[string]*string{}
	for k, v := range md {
		if !strings.EqualFold(k, lockMeta) {
			out[k] = v
		}
	}
	return out
}
