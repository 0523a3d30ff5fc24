package azstate

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	azlease "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/tetherhq/tether/internal/state/statedoc"
)

// terraformLock leases the blob at key and writes the lock record as
// Terraform 1.11's azurerm backend does (RemoteClient.Lock).
func terraformLock(t *testing.T, b *blobs, key, id string) {
	t.Helper()
	ctx := context.Background()
	bc := b.c.NewBlobClient(key)
	if _, err := bc.GetProperties(ctx, nil); isNotFound(err) {
		if _, err := b.c.NewBlockBlobClient(key).UploadBuffer(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	lc, err := azlease.NewBlobClient(bc, &azlease.BlobClientOptions{LeaseID: &id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	rec := base64.StdEncoding.EncodeToString([]byte(`{"ID":"` + id + `","Operation":"OperationTypeApply","Info":"","Who":"ci@runner","Version":"1.11.4","Created":"2026-01-02T03:04:05Z","Path":"` + b.cfg.ContainerName + "/" + key + `"}`))
	if _, err := bc.SetMetadata(ctx, map[string]*string{lockMeta: &rec}, &blob.SetMetadataOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &id}}}); err != nil {
		t.Fatal(err)
	}
}

func testBlobs(t *testing.T) *blobs {
	t.Helper()
	s, env := testSettings(t)
	cfg, err := FromSettings(s, env)
	if err != nil {
		t.Fatal(err)
	}
	b, err := connect(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Tether's lease and Terraform's exclude each other, each naming the other.
func TestLeaseExcludesTerraform(t *testing.T) {
	ctx := context.Background()
	b := testBlobs(t)
	const tfID = "0b9e6f0c-1111-4222-8333-444455556666"
	terraformLock(t, b, "app.terraform.tfstate", tfID)
	mine := statedoc.LockInfo{ID: "5d1e2f30-aaaa-4bbb-8ccc-ddddeeeeffff", Operation: "up", Version: "tether"}
	if err := b.acquireLease(ctx, "app.terraform.tfstate", mine); !errors.Is(err, errLeased) {
		t.Fatalf("lease held by terraform: want errLeased, got %v", err)
	}
	h, err := b.holder(ctx, "app.terraform.tfstate")
	if err != nil || h == nil || h.ID != tfID || h.Operation != "OperationTypeApply" || h.Who != "ci@runner" {
		t.Fatalf("holder: want terraform's record, got %+v, %v", h, err)
	}
	// force-unlock as Tether does it, then Tether locks; Terraform's
	// attempt (a lease on a leased blob) is refused.
	if err := b.breakLease(ctx, "app.terraform.tfstate"); err != nil {
		t.Fatal(err)
	}
	if err := b.acquireLease(ctx, "app.terraform.tfstate", mine); err != nil {
		t.Fatal(err)
	}
	h, err = b.holder(ctx, "app.terraform.tfstate")
	if err != nil || h == nil || h.ID != mine.ID {
		t.Fatalf("holder: want tether's record, got %+v, %v", h, err)
	}
	id := "0b9e6f0c-1111-4222-8333-444455557777"
	lc, _ := azlease.NewBlobClient(b.c.NewBlobClient("app.terraform.tfstate"), &azlease.BlobClientOptions{LeaseID: &id})
	if _, err := lc.AcquireLease(ctx, -1, nil); err == nil {
		t.Fatal("terraform's lease while tether holds one: want a refusal")
	}
	if err := b.checkLease(ctx, "app.terraform.tfstate"); err != nil {
		t.Fatal(err)
	}
	if err := b.releaseLease(ctx, "app.terraform.tfstate"); err != nil {
		t.Fatal(err)
	}
	if h, err := b.holder(ctx, "app.terraform.tfstate"); err != nil || h != nil {
		t.Fatalf("after release: want no holder, got %+v, %v", h, err)
	}
}
