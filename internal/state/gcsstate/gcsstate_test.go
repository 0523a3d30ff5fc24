package gcsstate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/tetherhq/tether/internal/state"
	"github.com/tetherhq/tether/internal/state/statedoc"
)

func obj(addr string) *state.Object {
	return &state.Object{Address: addr, Mode: state.Managed, Type: "tether_file", Provider: "provider[\"registry.terraform.io/tetherhq/tether\"]", Value: []byte(`{"id":"` + addr + `"}`), Status: state.Ready}
}

func open(t *testing.T, b *Backend, ws string) state.Store {
	t.Helper()
	st, err := b.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func lock(t *testing.T, st state.Store, op string) state.Unlocker {
	t.Helper()
	u, err := st.Lock(context.Background(), state.LockInfo{Operation: op})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func commit(t *testing.T, st state.Store, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		if err := st.Commit(context.Background(), state.Changes{Put: []*state.Object{obj(a)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// Objects are where Terraform's gcs backend keeps them: PREFIX/NAME.tfstate
// and PREFIX/NAME.tflock; every commit is a journal object of its own
// until Unlock folds them into the document.
func TestLayoutJournalThenCompact(t *testing.T) {
	f := startFake(t)
	b := f.connect(t)
	ctx := context.Background()
	st := open(t, b, DefaultWorkspace)
	u := lock(t, st, "up")
	commit(t, st, "tether_file.a", "tether_file.b", "tether_file.c")
	if got := f.keys(t, "app/default.tfstate.tether-journal/"); len(got) != 3 {
		t.Fatalf("journal objects before unlock: %v, want 3", got)
	}
	if got := f.keys(t, "app/default.tflock"); len(got) != 1 {
		t.Fatalf("lock file while locked: %v", got)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.keys(t, "")); got != "[app/.tether-id app/default.tfstate]" {
		t.Errorf("objects after unlock: %s", got)
	}
	doc := f.get(t, "app/default.tfstate")
	if doc.Metadata[digestMeta] == "" {
		t.Errorf("the document carries no digest: %v", doc.Metadata)
	}
	snap, err := open(t, f.connect(t), DefaultWorkspace).Load(ctx)
	if err != nil || len(snap.Objects) != 3 || snap.Serial != 3 {
		t.Fatalf("after compaction: %v, %v", snap, err)
	}
}

// A run killed after its commits loses nothing: once its lock is broken,
// the next Lock folds its journal in; the killed run, back, cannot write.
func TestCrashLosesNothing(t *testing.T) {
	f := startFake(t)
	ctx := context.Background()
	st := open(t, f.connect(t), DefaultWorkspace)
	lock(t, st, "up")
	commit(t, st, "tether_file.a", "tether_file.b")
	next := open(t, f.connect(t), DefaultWorkspace)
	if _, err := next.ForceUnlock(ctx, ""); err != nil {
		t.Fatal(err)
	}
	u := lock(t, next, "up")
	if got := f.keys(t, "app/default.tfstate.tether-journal/"); len(got) != 0 {
		t.Errorf("journal left after the next run's Lock: %v", got)
	}
	snap, err := next.Load(ctx)
	if err != nil || len(snap.Objects) != 2 {
		t.Fatalf("next run sees %v, err %v", snap, err)
	}
	u.Unlock()
	err = st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.late")}})
	if !errors.As(err, new(*state.LockLostError)) {
		t.Errorf("commit after the lock was broken: %v, want *state.LockLostError", err)
	}
}

// The lock file excludes Terraform and Tether both ways. Its ID is its
// generation, as Terraform's gcs backend makes it, so the ID Tether names
// is the one terraform force-unlock takes, and the other way round.
func TestLockFileAsTerraform(t *testing.T) {
	f := startFake(t)
	ctx := context.Background()
	st := open(t, f.connect(t), DefaultWorkspace)
	u := lock(t, st, "up")
	_, err := open(t, f.connect(t), DefaultWorkspace).Lock(ctx, state.LockInfo{Operation: "plan"})
	var le *state.LockedError
	lf := f.get(t, "app/default.tflock")
	gen := strconv.FormatInt(lf.Generation, 10)
	if !errors.As(err, &le) || le.Holder.Operation != "up" || le.Holder.ID != gen || !contains(err.Error(), "gs://tfstate/app/default.tflock") {
		t.Fatalf("second lock: %v (holder %+v), want the holder with ID %s", err, le, gen)
	}
	var rec statedoc.LockInfo
	if err := json.Unmarshal(lf.Content, &rec); err != nil || rec.Path != "gs://tfstate/app/default.tflock" || rec.Operation != "up" {
		t.Errorf("lock file %s: want Terraform's lock info with Path gs://tfstate/app/default.tflock", lf.Content)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}

	// Terraform holds the lock: its record, written as Terraform writes it.
	info, _ := json.Marshal(statedoc.LockInfo{ID: "uuid-in-body", Operation: "OperationTypeApply", Who: "ci@runner-7", Version: "1.11.4", Created: time.Now(), Path: "gs://tfstate/app/default.tflock"})
	f.put("app/default.tflock", string(info))
	tfGen := strconv.FormatInt(f.get(t, "app/default.tflock").Generation, 10)
	_, err = st.Lock(ctx, state.LockInfo{Operation: "up"})
	if !errors.As(err, &le) || le.Holder.Operation != "terraform OperationTypeApply" || le.Holder.ID != tfGen || le.Holder.Host != "runner-7" {
		t.Fatalf("lock held by Terraform: %v", err)
	}
	if _, err := st.ForceUnlock(ctx, "uuid-in-body"); !errors.As(err, new(*state.LockIDError)) {
		t.Errorf("force-unlock by the body's ID, not the generation: %v", err)
	}
	if h, err := st.ForceUnlock(ctx, tfGen); err != nil || h == nil || h.ID != tfGen {
		t.Fatalf("force-unlock: %v %v", h, err)
	}
	lock(t, st, "up").Unlock()
}

// A journal object (left by a run that crashed) that does not match its
// digest, or a gap in the journal, is an error naming the object when the
// next run reads it.
func TestCorruptJournal(t *testing.T) {
	f := startFake(t)
	ctx := context.Background()
	st := open(t, f.connect(t), DefaultWorkspace)
	lock(t, st, "up")
	commit(t, st, "tether_file.a", "tether_file.b")
	key := "app/default.tfstate.tether-journal/00000000000000000001"
	o := f.get(t, key)
	f.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testBucket, Name: key, Metadata: o.Metadata}, Content: []byte(`{"seq":1,"changes":[]}`)})
	_, err := open(t, f.connect(t), DefaultWorkspace).Load(ctx)
	var ce *CorruptError
	if !errors.As(err, &ce) || !contains(err.Error(), "gs://tfstate/"+key) || !contains(err.Error(), "SHA-256") {
		t.Errorf("tampered journal object: %v", err)
	}
	if err := f.srv.Backend().DeleteObject(testBucket, key); err != nil {
		t.Fatal(err)
	}
	if _, err = open(t, f.connect(t), DefaultWorkspace).Load(ctx); !errors.As(err, &ce) || !contains(err.Error(), "missing") {
		t.Errorf("journal with a gap: %v", err)
	}
}

// Workspaces are PREFIX/NAME.tfstate; Terraform's as well as Tether's.
func TestWorkspaces(t *testing.T) {
	f := startFake(t)
	b := f.connect(t)
	ctx := context.Background()
	if err := b.NewWorkspace(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	if err := b.NewWorkspace(ctx, "staging"); !errors.Is(err, ErrWorkspaceExists) {
		t.Errorf("again: %v", err)
	}
	f.put("app/prod.tfstate", `{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"l","outputs":{},"resources":[]}`)
	names, err := b.Workspaces(ctx)
	if err != nil || fmt.Sprint(names) != "[default prod staging]" {
		t.Fatalf("workspaces %v %v", names, err)
	}
	st := open(t, b, "staging")
	u := lock(t, st, "up")
	commit(t, st, "tether_file.f")
	u.Unlock()
	st.Close()
	if names, _ := b.Workspaces(ctx); fmt.Sprint(names) != "[default prod staging]" {
		t.Errorf("workspaces after a commit: %v", names)
	}
	if err := b.DeleteWorkspace(ctx, "staging", false); err == nil || !contains(err.Error(), "records 1 resource") {
		t.Errorf("delete of a workspace with resources: %v", err)
	}
	if err := b.DeleteWorkspace(ctx, "staging", true); err != nil {
		t.Fatal(err)
	}
	if got := f.keys(t, "app/staging"); len(got) != 0 {
		t.Errorf("left after delete: %v", got)
	}
}

// Terraform's state at PREFIX/default.tfstate is not read as Tether's;
// init's takeover reads past it, and the first compaction copies it aside.
func TestTerraformStateTakeover(t *testing.T) {
	f := startFake(t)
	ctx := context.Background()
	tf := `{"version":4,"terraform_version":"1.11.4","serial":3,"lineage":"tf-lineage","outputs":{"o":{"value":"x","type":"string"}},"resources":[]}`
	f.put("app/default.tfstate", tf)
	b := f.connect(t)
	ts, err := b.TerraformState(ctx, DefaultWorkspace)
	if err != nil || ts == nil || string(ts.Data) != tf {
		t.Fatalf("Terraform's state: %v %v", ts, err)
	}
	st := open(t, b, DefaultWorkspace)
	if _, err := st.Load(ctx); !errors.As(err, new(*statedoc.TerraformHereError)) {
		t.Fatalf("Load over Terraform's state: %v", err)
	}
	u := lock(t, st, "init")
	commit(t, st, "tether_file.f")
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	aside := f.keys(t, "app/default.tfstate.terraform-adopted-")
	if len(aside) != 1 || string(f.get(t, aside[0]).Content) != tf {
		t.Fatalf("copies aside: %v", aside)
	}
	snap, err := open(t, f.connect(t), DefaultWorkspace).Load(ctx)
	if err != nil || len(snap.Objects) != 1 {
		t.Fatalf("after takeover: %v %v", snap, err)
	}
}

// A bucket that does not exist is an error naming it; a GCS that goes
// away mid-run fails the commit naming the backend, and what was
// committed stays.
func TestBadBucketAndLostConnection(t *testing.T) {
	f := startFake(t)
	cfg, err := FromSettings(f.settings("bucket", "nope"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Connect(context.Background(), cfg); err == nil || !contains(err.Error(), `GCS bucket "nope"`) {
		t.Errorf("missing bucket: %v", err)
	}
	st := open(t, f.connect(t), DefaultWorkspace)
	lock(t, st, "up")
	commit(t, st, "tether_file.a")
	keys := f.keys(t, "app/default.tfstate.tether-journal/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.srv.Stop()
	err = st.Commit(ctx, state.Changes{Put: []*state.Object{obj("tether_file.late")}})
	if err == nil || !contains(err.Error(), `the "gcs" backend`) {
		t.Fatalf("commit with GCS gone: %v", err)
	}
	if len(keys) != 1 {
		t.Errorf("journal before the failed commit: %v", keys)
	}
}

// encryption_key goes with every upload and read of every object but the
// lock file, which Terraform reads without it; kms_encryption_key with
// every upload but the lock file's.
func TestEncryptionKeysAsTerraform(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	sum := sha256.Sum256([]byte("0123456789abcdef0123456789abcdef"))
	kms := "projects/p/locations/l/keyRings/r/cryptoKeys/k"
	for _, tc := range []struct {
		name, arg, value string
		// keyed tells whether a request for object carries the key.
		keyed func(r *http.Request) bool
	}{
		{name: "customer-supplied", arg: "encryption_key", value: key, keyed: func(r *http.Request) bool {
			return r.Header.Get("x-goog-encryption-algorithm") == "AES256" && r.Header.Get("x-goog-encryption-key") == key &&
				r.Header.Get("x-goog-encryption-key-sha256") == base64.StdEncoding.EncodeToString(sum[:])
		}},
		{name: "kms", arg: "kms_encryption_key", value: kms, keyed: func(r *http.Request) bool {
			return r.URL.Query().Get("kmsKeyName") == kms
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t)
			var (
				mu   sync.Mutex
				seen = map[string]bool{} // "upload NAME" or "read NAME": keyed
			)
			front := f.front(t, func(w http.ResponseWriter, r *http.Request) bool {
				var what string
				switch {
				case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload/"):
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					m := regexp.MustCompile(`"name":"([^"]+)"`).FindSubmatch(body)
					if m == nil {
						t.Errorf("an upload naming no object: %s", body)
						return false
					}
					what = "upload " + string(m[1])
				case r.Method == http.MethodGet && r.URL.Query().Get("alt") == "media":
					name, _ := url.PathUnescape(r.URL.EscapedPath()[strings.LastIndex(r.URL.EscapedPath(), "/o/")+3:])
					what = "read " + name
				default:
					return false
				}
				mu.Lock()
				seen[what] = tc.keyed(r)
				mu.Unlock()
				return false
			})
			st := open(t, f.connect(t, tc.arg, tc.value, "storage_custom_endpoint", front), DefaultWorkspace)
			u := lock(t, st, "up")
			commit(t, st, "tether_file.a")
			if err := u.Unlock(); err != nil {
				t.Fatal(err)
			}
			if _, err := open(t, f.connect(t, tc.arg, tc.value, "storage_custom_endpoint", front), DefaultWorkspace).Load(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, what := range []string{"upload app/default.tflock", "upload app/default.tfstate", "upload app/.tether-id", "read app/default.tfstate", "upload app/default.tfstate.tether-journal/00000000000000000001"} {
				keyed, ok := seen[what]
				want := !strings.HasSuffix(what, lockSuffix)
				if tc.arg == "kms_encryption_key" && strings.HasPrefix(what, "read ") {
					want = false // GCS decrypts with the key the object names
				}
				if !ok || keyed != want {
					t.Errorf("%s: made %v, with the key %v, want with the key %v (all: %v)", what, ok, keyed, want, seen)
				}
			}
		})
	}
}
