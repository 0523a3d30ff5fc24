package s3state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/canary"
	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

func obj(addr string) *state.Object {
	return &state.Object{Address: addr, Mode: state.Managed, Type: "tether_file", Provider: "provider[\"registry.terraform.io/tetherhq/tether\"]", Value: []byte(`{"id":"` + addr + `"}`), Status: state.Ready}
}

func open(t *testing.T, b *Backend, ws string) *Store {
	t.Helper()
	st, err := b.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*Store)
}

func lock(t *testing.T, st *Store, op string) state.Unlocker {
	t.Helper()
	u, err := st.Lock(context.Background(), state.LockInfo{Operation: op})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// commitN commits tether_file.f[0] to f[n-1], one commit each.
func commitN(t *testing.T, st *Store, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := st.Commit(context.Background(), state.Changes{Put: []*state.Object{obj(fmt.Sprintf("tether_file.f[%d]", i))}}); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *emulators) keys(t *testing.T, prefix string) []string {
	t.Helper()
	var out []string
	list, err := e.s3mem.ListBucket(testBucket, nil, gofakes3ListAll())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range list.Contents {
		if strings.HasPrefix(o.Key, prefix) {
			out = append(out, o.Key)
		}
	}
	return out
}

// Every Commit is its own journal object before Unlock; Load sees them
// in order; Unlock folds them into the one document and deletes them.
func TestJournalThenCompact(t *testing.T) {
	for _, table := range []string{"", "locks"} {
		t.Run("dynamodb_table="+table, func(t *testing.T) {
			e := startEmulators(t)
			b := e.connect(t, "dynamodb_table", table)
			st := open(t, b, DefaultWorkspace)
			u := lock(t, st, "up")
			ctx := context.Background()
			commitN(t, st, 3)
			if err := st.Commit(ctx, state.Changes{Delete: []string{"tether_file.f[1]"}}); err != nil {
				t.Fatal(err)
			}
			if got := e.keys(t, "app/terraform.tfstate.tether-journal/"); len(got) != 4 {
				t.Fatalf("journal objects before unlock: %v, want 4", got)
			}
			snap, err := st.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.Objects) != 2 || snap.Objects["tether_file.f[1]"] != nil || snap.Serial != 4 {
				t.Fatalf("before unlock: %d objects, serial %d", len(snap.Objects), snap.Serial)
			}
			if err := u.Unlock(); err != nil {
				t.Fatal(err)
			}
			if got := e.keys(t, "app/terraform.tfstate.tether-journal/"); len(got) != 0 {
				t.Fatalf("journal objects after unlock: %v", got)
			}
			if got := e.keys(t, "app/terraform.tfstate.tflock"); len(got) != 0 {
				t.Fatalf("lock file left: %v", got)
			}
			again := open(t, e.connect(t, "dynamodb_table", table), DefaultWorkspace)
			snap2, err := again.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(snap2.Objects) != 2 || snap2.Serial != 4 || snap2.Lineage != snap.Lineage {
				t.Errorf("after compaction: %d objects, serial %d, lineage %s (was %s)", len(snap2.Objects), snap2.Serial, snap2.Lineage, snap.Lineage)
			}
			if table != "" {
				if _, ok := e.ddb.Item("locks", testBucket+"/app/terraform.tfstate-md5"); !ok {
					t.Error("Terraform's digest item was not written")
				}
				if _, ok := e.ddb.Item("locks", testBucket+"/app/terraform.tfstate"); ok {
					t.Error("the lock item was left")
				}
			}
		})
	}
}

// A run killed after its commits (no Unlock) loses nothing: once its
// lock is broken, the next Lock folds its journal in.
func TestCrashLosesNothing(t *testing.T) {
	e := startEmulators(t)
	b := e.connect(t)
	ctx := context.Background()
	st := open(t, b, DefaultWorkspace)
	lock(t, st, "up")
	commitN(t, st, 2)
	// killed here: another process breaks the lock and runs.
	next := open(t, e.connect(t), DefaultWorkspace)
	if _, err := next.ForceUnlock(ctx, ""); err != nil {
		t.Fatal(err)
	}
	u := lock(t, next, "up")
	if got := e.keys(t, "app/terraform.tfstate.tether-journal/"); len(got) != 0 {
		t.Errorf("journal left after the next run's Lock: %v", got)
	}
	snap, err := next.Load(ctx)
	if err != nil || len(snap.Objects) != 2 {
		t.Fatalf("next run sees %v objects, err %v", snap, err)
	}
	if err := next.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.g")}}); err != nil {
		t.Fatal(err)
	}
	u.Unlock()
	// The killed run, back, must not write over it.
	err = st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.late")}})
	var lost *state.LockLostError
	if !errors.As(err, &lost) {
		t.Errorf("commit after the lock was broken: %v, want *state.LockLostError", err)
	}
}

// The lock excludes another Tether and Terraform, naming the holder;
// Terraform's lock file and DynamoDB item are taken as Terraform takes them.
func TestLockExcludes(t *testing.T) {
	e := startEmulators(t)
	ctx := context.Background()
	b := e.connect(t, "dynamodb_table", "locks")
	first := open(t, b, DefaultWorkspace)
	u := lock(t, first, "up")
	_, err := open(t, e.connect(t, "dynamodb_table", "locks"), DefaultWorkspace).Lock(ctx, state.LockInfo{Operation: "plan"})
	var le *state.LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "up" || !strings.Contains(err.Error(), "tflock") {
		t.Fatalf("second lock: %v", err)
	}
	item, ok := e.ddb.Item("locks", testBucket+"/app/terraform.tfstate")
	if !ok || !strings.Contains(item, `\"Operation\":\"up\"`) {
		t.Errorf("DynamoDB lock item %q, want Terraform's LockID item with Info", item)
	}
	u.Unlock()

	// Terraform holding only the DynamoDB item (use_lockfile unset).
	info, _ := json.Marshal(statedoc.LockInfo{ID: "tf-lock-id", Operation: "OperationTypeApply", Who: "ci@runner-7", Version: "1.11.4", Created: time.Now(), Path: testBucket + "/app/terraform.tfstate"})
	if _, err := b.c.ddb.PutItem(ctx, ddbPut("locks", testBucket+"/app/terraform.tfstate", string(info))); err != nil {
		t.Fatal(err)
	}
	_, err = first.Lock(ctx, state.LockInfo{Operation: "up"})
	if !errors.As(err, &le) || le.Holder.Operation != "terraform OperationTypeApply" || le.Holder.ID != "tf-lock-id" || le.Holder.Host != "runner-7" {
		t.Fatalf("lock held by Terraform: %v", err)
	}
	if got := e.keys(t, "app/terraform.tfstate.tflock"); len(got) != 0 {
		t.Errorf("the refused lock left its lock file: %v", got)
	}
	if _, err := first.ForceUnlock(ctx, "other"); !errors.As(err, new(*state.LockIDError)) {
		t.Errorf("force-unlock of another id: %v", err)
	}
	if h, err := first.ForceUnlock(ctx, "tf-lock-id"); err != nil || h == nil || h.ID != "tf-lock-id" {
		t.Fatalf("force-unlock: %v %v", h, err)
	}
	lock(t, first, "up").Unlock()
}

// A journal object (left by a run that crashed) that does not match its
// digest, or a gap in the journal, is an error naming the object when the
// next run reads it; nothing is written.
func TestCorruptJournal(t *testing.T) {
	e := startEmulators(t)
	b := e.connect(t)
	ctx := context.Background()
	st := open(t, b, DefaultWorkspace)
	lock(t, st, "up")
	commitN(t, st, 2)
	key := "app/terraform.tfstate.tether-journal/00000000000000000001"
	o, err := e.s3mem.GetObject(testBucket, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := o.Metadata
	o.Contents.Close()
	if _, err := e.s3mem.PutObject(testBucket, key, meta, strings.NewReader(`{"seq":1,"changes":[]}`), 22, nil); err != nil {
		t.Fatal(err)
	}
	_, err = open(t, e.connect(t), DefaultWorkspace).Load(ctx)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("tampered journal object: %v", err)
	}
	if _, err := e.s3mem.DeleteMulti(testBucket, key); err != nil {
		t.Fatal(err)
	}
	if _, err = open(t, e.connect(t), DefaultWorkspace).Load(ctx); !errors.As(err, &ce) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("journal with a gap: %v", err)
	}
}

// Workspaces live where Terraform keeps them.
func TestWorkspaces(t *testing.T) {
	e := startEmulators(t)
	b := e.connect(t, "workspace_key_prefix", "envs")
	ctx := context.Background()
	if err := b.NewWorkspace(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	if err := b.NewWorkspace(ctx, "staging"); !errors.Is(err, ErrWorkspaceExists) {
		t.Errorf("again: %v", err)
	}
	names, err := b.Workspaces(ctx)
	if err != nil || fmt.Sprint(names) != "[default staging]" {
		t.Fatalf("workspaces %v %v", names, err)
	}
	if got := e.keys(t, "envs/staging/app/terraform.tfstate"); len(got) != 1 {
		t.Errorf("workspace objects %v", got)
	}
	st := open(t, b, "staging")
	u := lock(t, st, "up")
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.f")}}); err != nil {
		t.Fatal(err)
	}
	u.Unlock()
	st.Close()
	if err := b.DeleteWorkspace(ctx, "staging", false); err == nil || !strings.Contains(err.Error(), "records 1 resource") {
		t.Errorf("delete of a workspace with resources: %v", err)
	}
	if err := b.DeleteWorkspace(ctx, "staging", true); err != nil {
		t.Fatal(err)
	}
	if got := e.keys(t, "envs/"); len(got) != 0 {
		t.Errorf("left after delete: %v", got)
	}
}

// Terraform's state at the key is not read as Tether's; init's takeover
// reads past it, and the first compaction copies it aside first.
func TestTerraformStateAtKey(t *testing.T) {
	e := startEmulators(t)
	b := e.connect(t)
	ctx := context.Background()
	tf := `{"version":4,"terraform_version":"1.11.4","serial":3,"lineage":"tf-lineage","outputs":{"o":{"value":"x","type":"string"}},"resources":[]}`
	if err := b.Put(ctx, "app/terraform.tfstate", []byte(tf)); err != nil {
		t.Fatal(err)
	}
	st := open(t, b, DefaultWorkspace)
	if _, err := st.Load(ctx); !errors.As(err, new(*TerraformHereError)) {
		t.Fatalf("Load over Terraform's state: %v", err)
	}
	u := lock(t, st, "init")
	if _, err := st.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.f")}, Lineage: "tf-lineage", Serial: 3}); err != nil {
		t.Fatal(err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	aside := e.keys(t, "app/terraform.tfstate.terraform-adopted-")
	if len(aside) != 1 {
		t.Fatalf("copies aside: %v", aside)
	}
	o, err := e.s3mem.GetObject(testBucket, aside[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Contents.Close()
	snap, err := open(t, e.connect(t), DefaultWorkspace).Load(ctx)
	if err != nil || len(snap.Objects) != 1 || snap.Lineage != "tf-lineage" {
		t.Fatalf("after takeover: %v %v", snap, err)
	}
}

// A document written by a newer Tether is refused untouched; an S3 that
// goes away mid-run fails the commit naming the backend and the object,
// and what was committed before is still there after.
func TestNewerFormatAndLostConnection(t *testing.T) {
	e := startEmulators(t)
	b := e.connect(t)
	ctx := context.Background()
	newer := []byte(`{"tether_state":2,"lineage":"l","serial":1,"objects":{},"outputs":{}}`)
	if err := b.Put(ctx, "app/terraform.tfstate", newer); err != nil {
		t.Fatal(err)
	}
	st := open(t, b, DefaultWorkspace)
	if _, err := st.Load(ctx); err == nil || !strings.Contains(err.Error(), "written by a newer Tether (format 2") || !strings.Contains(err.Error(), "s3://tfstate/app/terraform.tfstate") {
		t.Fatalf("newer document: %v", err)
	}
	if _, err := st.Lock(ctx, state.LockInfo{Operation: "up"}); err == nil || !strings.Contains(err.Error(), "newer Tether") || strings.Contains(err.Error(), "backup") {
		t.Fatalf("lock over a newer document: %v, want the newer-format refusal", err)
	}
	if got := e.keys(t, "app/terraform.tfstate.tflock"); len(got) != 0 {
		t.Errorf("the refused lock was left: %v", got)
	}
	if o, err := e.s3mem.GetObject(testBucket, "app/terraform.tfstate", nil); err != nil {
		t.Fatal(err)
	} else {
		o.Contents.Close()
		if o.Size != int64(len(newer)) {
			t.Errorf("the newer document was rewritten")
		}
	}

	e2 := startEmulators(t)
	b2 := e2.connect(t)
	st2 := open(t, b2, DefaultWorkspace)
	lock(t, st2, "up")
	commitN(t, st2, 1)
	e2.closeS3()
	err := st2.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.late")}})
	if err == nil || !strings.Contains(err.Error(), `the "s3" backend`) {
		t.Fatalf("commit with S3 gone: %v", err)
	}
	if got := e2.keys(t, "app/terraform.tfstate.tether-journal/"); len(got) != 1 {
		t.Errorf("journal after the failed commit: %v", got)
	}
}

// A commit with Changes.Erase (a value state recorded in clear, now
// sealed) leaves no object in the bucket holding the clear value, before
// the run ends: the document that held it is replaced, and the journal
// objects deleted, at once.
func TestEraseCompactsAtOnce(t *testing.T) {
	const secret = "CANARY-s3-erase-3f9a2c7d"
	e := startEmulators(t)
	st := open(t, e.connect(t), DefaultWorkspace)
	ctx := context.Background()
	clear := obj("tether_file.a")
	clear.Value = []byte(`{"id":"a","content":"` + secret + `"}`)
	u := lock(t, st, "up")
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{clear}}); err != nil {
		t.Fatal(err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	u = lock(t, st, "up")
	defer u.Unlock()
	sealed := obj("tether_file.a")
	sealed.Value = []byte(`{"id":"a","content":"(sealed)"}`)
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{sealed}, Erase: true}); err != nil {
		t.Fatal(err)
	}
	for _, key := range e.keys(t, "") {
		o, err := e.s3mem.GetObject(testBucket, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(o.Contents)
		o.Contents.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, how, found := canary.Find(body, secret); found {
			t.Errorf("%s still holds the value sealed since (%s)", key, how)
		}
	}
	snap, err := st.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(snap.Objects["tether_file.a"].Value); got != string(sealed.Value) {
		t.Errorf("after the erase: %s", got)
	}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.b")}}); err != nil {
		t.Fatalf("a commit after the erase: %v", err)
	}
}
