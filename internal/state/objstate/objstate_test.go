package objstate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tetherhq/tether/internal/state"
)

// memBlobs is a Blobs in memory. lostAnswers makes that many Creates
// store their object and then fail as if their answer had been lost and
// the client's retry had found the object there.
type memBlobs struct {
	mu          sync.Mutex
	objs        map[string]Blob
	gen         int
	lostAnswers int
	gets        map[string]int // Gets by key
}

func (m *memBlobs) Name(key string) string { return "mem://" + key }

func (m *memBlobs) Get(_ context.Context, key string) (*Blob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gets[key]++
	o, ok := m.objs[key]
	if !ok {
		return nil, NotFound(errors.New("404"))
	}
	return &o, nil
}

func (m *memBlobs) Create(_ context.Context, key string, body []byte, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; ok {
		return Exists(errors.New("412"))
	}
	m.store(key, body, digest)
	if m.lostAnswers > 0 {
		m.lostAnswers--
		return Exists(errors.New("412 on the retry of a write whose answer was lost"))
	}
	return nil
}

func (m *memBlobs) Put(_ context.Context, key string, body []byte, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store(key, body, digest)
	return nil
}

func (m *memBlobs) store(key string, body []byte, digest string) {
	m.gen++
	m.objs[key] = Blob{Body: append([]byte(nil), body...), Version: fmt.Sprint(m.gen), Digest: digest}
}

func (m *memBlobs) Delete(_ context.Context, keys []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.objs, k)
	}
	return nil
}

func (m *memBlobs) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *memBlobs) Exists(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objs[key]
	return ok, nil
}

func newMem(t *testing.T) (*Backend, *memBlobs) {
	t.Helper()
	m := &memBlobs{objs: map[string]Blob{}, gets: map[string]int{}}
	b, err := New(context.Background(), Config{
		Kind: "mem", Where: "memory", Blobs: m,
		Path: func(ws string) string { return ws + ".tfstate" },
		WorkspaceOf: func(k string) (string, bool) {
			return strings.TrimSuffix(k, ".tfstate"), strings.HasSuffix(k, ".tfstate")
		},
		IDKey: ".tether-id",
		Lock: func(b *Backend) Locker {
			return &LockFile{B: b, Key: func(ws string) string { return ws + ".tflock" }, Record: func(ws string) string { return ws }}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, m
}

// A Create the store carried out but whose answer was lost, retried by
// the client and refused because the object is there, wrote this
// runner's own object: the lock is taken and the commit durable, not
// refused as held by another or lost.
func TestLostAnswerOfCreate(t *testing.T) {
	b, m := newMem(t)
	ctx := context.Background()
	st, err := b.Open(ctx, DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m.lostAnswers = 1
	u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatalf("lock whose answer was lost: %v", err)
	}
	m.lostAnswers = 1
	obj := &state.Object{Address: "tether_file.a", Mode: state.Managed, Type: "tether_file", Provider: "p", Value: []byte(`{}`), Status: state.Ready}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj}}); err != nil {
		t.Fatalf("commit whose journal object's answer was lost: %v", err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Load(ctx)
	if err != nil || len(snap.Objects) != 1 {
		t.Fatalf("after: %v %v", snap, err)
	}
}

// A run that only reads (a no-op plan: Lock, Load, Unlock) reads the
// state document once, and one that commits sees its commits in Load
// without reading again.
func TestOnePass(t *testing.T) {
	b, m := newMem(t)
	ctx := context.Background()
	st, err := b.Open(ctx, DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.Lock(ctx, state.LockInfo{Operation: "up"})
	if err != nil {
		t.Fatal(err)
	}
	obj := &state.Object{Address: "tether_file.a", Mode: state.Managed, Type: "tether_file", Provider: "p", Value: []byte(`{}`), Status: state.Ready}
	if err := st.Commit(ctx, state.Changes{Put: []*state.Object{obj}}); err != nil {
		t.Fatal(err)
	}
	if snap, err := st.Load(ctx); err != nil || len(snap.Objects) != 1 || snap.Serial != 1 {
		t.Fatalf("Load under the lock after a commit: %v %v", snap, err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	m.gets = map[string]int{}
	u, err = st.Lock(ctx, state.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := st.Load(ctx)
	if err != nil || len(snap.Objects) != 1 {
		t.Fatalf("plan's Load: %v %v", snap, err)
	}
	if err := u.Unlock(); err != nil {
		t.Fatal(err)
	}
	if n := m.gets["default.tfstate"]; n != 1 {
		t.Errorf("a no-op plan read the state document %d times, want 1", n)
	}
}
