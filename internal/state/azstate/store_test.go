package azstate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	azlease "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/tetherhq/tether/internal/azurite"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/objstate"
)

const testKey = "app.terraform.tfstate"

func connectTest(t *testing.T) *Backend {
	t.Helper()
	s, env := testSettings(t)
	cfg, err := FromSettings(s, env)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func open(t *testing.T, b *Backend, ws string) *objstate.Store {
	t.Helper()
	st, err := b.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*objstate.Store)
}

func obj(addr string) *state.Object {
	return &state.Object{Address: addr, Mode: state.Managed, Type: "tether_file", Provider: "provider[\"registry.terraform.io/tetherhq/tether\"]", Value: []byte(`{"id":"` + addr + `"}`), Status: state.Ready}
}

// terraformLock locks the blob at key as Terraform 1.11 does.
func terraformLock(t *testing.T, b *Backend, key, id string) {
	t.Helper()
	rec := `{"ID":"` + id + `","Operation":"OperationTypeApply","Info":"","Who":"ci@runner","Version":"1.11.4","Created":"2026-01-02T03:04:05Z","Path":"` + b.cfg.ContainerName + "/" + key + `"}`
	if err := emulator.TerraformLock(b.cfg.ContainerName, key, []byte(rec)); err != nil {
		t.Fatal(err)
	}
}

// terraformCanLock tries Terraform's lease on the blob at key and
// releases it when it got it.
func terraformCanLock(t *testing.T, b *Backend, key string) bool {
	t.Helper()
	id := "0b9e6f0c-1111-4222-8333-444455557777"
	lc, err := azlease.NewBlobClient(b.blobs.c.NewBlobClient(key), &azlease.BlobClientOptions{LeaseID: &id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(context.Background(), -1, nil); err != nil {
		return false
	}
	lc.ReleaseLease(context.Background(), nil)
	return true
}

// Commits are journal blobs until Unlock folds them into the state blob
// at the key; Load reads both.
func TestJournalThenCompact(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj(fmt.Sprintf("tether_file.f[%d]", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	journal, _ := b.blobs.list(ctx, testKey+".tether-journal/")
	if len(journal) != 3 {
		t.Fatalf("journal blobs before unlock: %v, want 3", journal)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	journal, _ = b.blobs.list(ctx, testKey+".tether-journal/")
	if len(journal) != 0 {
		t.Fatalf("journal blobs after unlock: %v, want none", journal)
	}
	snap, err := open(t, connectAgain(t, b), DefaultWorkspace).Load(ctx)
	if err != nil || len(snap.Objects) != 3 {
		t.Fatalf("Load after unlock: %d objects, %v; want 3", len(snap.Objects), err)
	}
	if h, err := b.blobs.holder(ctx, testKey); err != nil || h != nil {
		t.Fatalf("after unlock: want the lease released, got holder %+v, %v", h, err)
	}
}

func connectAgain(t *testing.T, b *Backend) *Backend {
	t.Helper()
	b2, err := Connect(context.Background(), b.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b2
}

// Terraform's lease and Tether's exclude each other, each naming the
// other; tether's force-unlock breaks Terraform's.
func TestLockExcludesTerraform(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	const tfID = "0b9e6f0c-1111-4222-8333-444455556666"
	terraformLock(t, b, testKey, tfID)
	_, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Holder.ID != tfID || le.Holder.Operation != "terraform OperationTypeApply" || le.Holder.Who != "ci@runner" {
		t.Fatalf("lock while terraform holds the lease: want a LockedError naming terraform's lock, got %v", err)
	}
	if !strings.Contains(err.Error(), "azurerm://devstoreaccount1/") {
		t.Errorf("the refusal does not name the blob: %v", err)
	}
	if _, err := st.ForceUnlock(ctx, "wrong-id"); err == nil {
		t.Fatal("force-unlock with another ID: want a refusal")
	}
	if h, err := st.ForceUnlock(ctx, tfID); err != nil || h == nil || h.ID != tfID {
		t.Fatalf("force-unlock of terraform's lock: %+v, %v", h, err)
	}
	const mine = "5d1e2f30-aaaa-4bbb-8ccc-ddddeeeeffff"
	u, err := st.Lock(ctx, state.LockInfo{ID: mine, Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	if terraformCanLock(t, b, testKey) {
		t.Fatal("terraform took the lease while tether holds it")
	}
	h, err := b.blobs.holder(ctx, testKey)
	if err != nil || h == nil || h.ID != mine || h.Path != b.cfg.ContainerName+"/"+testKey {
		t.Fatalf("the lock record terraform reads: %+v, %v", h, err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	if !terraformCanLock(t, b, testKey) {
		t.Fatal("terraform cannot lease the blob after tether's unlock")
	}
}

// A lease broken under a run (terraform force-unlock) stops its next
// commit instead of writing.
func TestLeaseLostStopsCommit(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	if _, err := st.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	if err := b.blobs.breakLease(ctx, testKey); err != nil {
		t.Fatal(err)
	}
	err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}})
	var lost *state.LockLostError
	if !errors.As(err, &lost) {
		t.Fatalf("commit after the lease was broken: want a LockLostError, got %v", err)
	}
}

// Workspaces are KEYenv:NAME blobs, Terraform's and Tether's alike.
func TestWorkspacesAsTerraform(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	if err := b.blobs.upload(ctx, testKey+"env:tfws", []byte(`{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"x","outputs":{},"resources":[]}`), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.NewWorkspace(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.blobs.exists(ctx, testKey+"env:dev"); !ok {
		t.Fatal("workspace dev: no blob at KEYenv:dev")
	}
	names, err := b.Workspaces(ctx)
	if err != nil || strings.Join(names, ",") != "default,dev,tfws" {
		t.Fatalf("Workspaces: %v, %v", names, err)
	}
}

// A journal blob that no longer matches the digest written with it stops
// the next reader, naming the blob; nothing is folded or written.
func TestCorruptJournalBlob(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	if _, err := st.Lock(ctx, state.LockInfo{Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	journal, _ := b.blobs.list(ctx, testKey+".tether-journal/")
	if len(journal) != 1 {
		t.Fatalf("journal: %v", journal)
	}
	d, err := b.blobs.get(ctx, journal[0])
	if err != nil {
		t.Fatal(err)
	}
	// Same metadata (the digest), another body.
	if err := b.blobs.upload(ctx, journal[0], []byte(strings.Replace(string(d.body), "tether_file.a", "tether_file.b", 1)), d.meta, nil); err != nil {
		t.Fatal(err)
	}
	_, err = open(t, connectAgain(t, b), DefaultWorkspace).Load(ctx)
	var ce *objstate.CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "azurerm://devstoreaccount1/") || !strings.Contains(err.Error(), "does not match the SHA-256 digest") {
		t.Fatalf("Load of a corrupted journal blob: want a CorruptError naming it, got %v", err)
	}
}

// snapshot = true snapshots the state blob before each write of it, as
// Terraform does.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	s, env := testSettings(t)
	s["snapshot"] = "true"
	cfg, err := FromSettings(s, env)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := open(t, b, DefaultWorkspace)
	for _, addr := range []string{"tether_file.a", "tether_file.b"} {
		u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj(addr)}}); err != nil {
			t.Fatal(err)
		}
		if err := u.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
	snaps := 0
	pager := b.blobs.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to(testKey), Include: container.ListBlobsInclude{Snapshots: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Segment.BlobItems {
			if *item.Name == testKey && item.Snapshot != nil && *item.Snapshot != "" {
				snaps++
			}
		}
	}
	if snaps != 2 {
		t.Fatalf("snapshots of the state blob after two runs: %d, want 2 (one before each write)", snaps)
	}
}

func to[T any](v T) *T { return &v }

// A run that stops without unlocking (kill -9) leaves its lease and its
// journal: the next run is refused naming it, and once the lock is
// broken, its Lock folds the journal in; nothing committed is lost.
func TestCrashedRunKeepsItsCommits(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	const crashed = "3c3c3c3c-0000-4000-8000-00000000dead"
	if _, err := st.Lock(ctx, state.LockInfo{ID: crashed, Operation: "up"}); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"tether_file.a", "tether_file.b"} {
		if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj(addr)}}); err != nil {
			t.Fatal(err)
		}
	}
	// The process is gone: another connects.
	leases.Lock()
	leases.m = map[string]*lease{}
	leases.Unlock()
	next := open(t, connectAgain(t, b), DefaultWorkspace)
	_, err := next.Lock(ctx, state.LockInfo{Operation: "up"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Holder.ID != crashed {
		t.Fatalf("lock after a crash: want a refusal naming %s, got %v", crashed, err)
	}
	if _, err := next.ForceUnlock(ctx, crashed); err != nil {
		t.Fatal(err)
	}
	u, err := next.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	if journal, _ := b.blobs.list(ctx, testKey+".tether-journal/"); len(journal) != 0 {
		t.Fatalf("journal after the next Lock: %v, want it folded into the state blob", journal)
	}
	snap, err := next.Load(ctx)
	if err != nil || len(snap.Objects) != 2 {
		t.Fatalf("after the crash: %d objects, %v; want the 2 committed", len(snap.Objects), err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
}

// use_azuread_auth authenticates as the Azure CLI's signed-in account:
// the token az account get-access-token prints (here a stand-in az, and
// Azurite's OAuth mode) is the bearer of every request.
func TestAzureADThroughCLI(t *testing.T) {
	if errors.Is(startErr, azurite.ErrMissing) {
		t.Skip(startErr)
	}
	srv, err := azurite.StartOAuth("tfstate")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const tenant = "ab1f708d-50f6-404c-a006-d71b2ac7a606"
	token, exp := azurite.Token(tenant)
	bin := t.TempDir()
	log := filepath.Join(bin, "az.log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s\necho '{\"accessToken\":\"%s\",\"expires_on\":%d,\"tokenType\":\"Bearer\"}'\n", log, token, exp.Unix())
	if err := os.WriteFile(filepath.Join(bin, "az"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := map[string]string{EndpointVariable: srv.Endpoint, "ARM_USE_AZUREAD": "true", "ARM_TENANT_ID": tenant}
	cfg, err := FromSettings(map[string]string{"storage_account_name": azurite.Account, "container_name": "tfstate", "key": testKey}, func(n string) string { return env[n] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := connectWith(ctx, cfg, srv.Client)
	if err != nil {
		t.Fatal(err)
	}
	st := open(t, b, DefaultWorkspace)
	u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Load(ctx)
	if err != nil || len(snap.Objects) != 1 {
		t.Fatalf("Load: %d objects, %v; want 1", len(snap.Objects), err)
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "account get-access-token") || !strings.Contains(string(calls), "--tenant "+tenant) {
		t.Fatalf("az was not asked for a token in tenant %s: %q", tenant, calls)
	}
}

// Tether's writes of the leased state blob keep the metadata others set
// on it, as Terraform's do.
func TestStateBlobKeepsMetadata(t *testing.T) {
	ctx := context.Background()
	b := connectTest(t)
	st := open(t, b, DefaultWorkspace)
	owner := "team-a"
	if _, err := b.blobs.c.NewBlobClient(testKey).SetMetadata(ctx, map[string]*string{"owner": &owner}, nil); err != nil {
		t.Fatal(err)
	}
	u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.a")}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	d, err := b.blobs.get(ctx, testKey)
	if err != nil || d.meta["owner"] != "team-a" || d.meta[digestMeta] == "" || d.meta[lockMeta] != "" {
		t.Fatalf("state blob's metadata after a run: %v, %v; want owner kept, the digest, no lock record", d.meta, err)
	}
}
