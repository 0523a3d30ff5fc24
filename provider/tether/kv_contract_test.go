package tether

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/runtime/kv"
)

// kvBackend is a store a kv.Client can talk to, and the count of requests
// that reached it.
type kvBackend struct {
	client   *kv.Client
	requests func() int
}

// kvBackends are the stores of both platforms: the local store's server
// (in process, on loopback) and a DynamoDB table, in the fake DynamoDB
// that speaks its wire protocol.
var kvBackends = []struct {
	name  string
	start func(t *testing.T) kvBackend
}{
	{"local", func(t *testing.T) kvBackend {
		var n atomic.Int64
		store := &kvServer{data: t.TempDir(), logger: log.New(io.Discard, "", 0)}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			store.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return kvBackend{openKV(t, srv.URL), func() int { return int(n.Load()) }}
	}},
	{"dynamodb", func(t *testing.T) kvBackend {
		ddb := startDynamo(t, dynamofake.Options{Region: "eu-central-1"})
		return kvBackend{openKV(t, "dynamodb://tether-store?region=eu-central-1"), ddb.Requests}
	}},
}

// startDynamo starts a fake DynamoDB with the table tether-store, and
// points the AWS SDK at it.
func startDynamo(t *testing.T, opts dynamofake.Options) *dynamofake.Server {
	t.Helper()
	ddb, err := dynamofake.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ddb.Close() })
	if err := ddb.CreateTable("tether-store", "key", "S"); err != nil {
		t.Fatal(err)
	}
	setenv(t, ddb.Env()...)
	return ddb
}

func setenv(t *testing.T, env ...string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func openKV(t *testing.T, endpoint string) *kv.Client {
	t.Helper()
	c, err := kv.Open(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kvContract is what a store's client does, whichever the store: each
// case runs against every backend.
var kvContract = []struct {
	name string
	run  func(t *testing.T, b kvBackend)
}{
	{"not found", func(t *testing.T, b kvBackend) {
		_, err := b.client.Get(context.Background(), "missing")
		if !errors.Is(err, kv.ErrNotFound) || err.Error() != `kv: key not found: "missing"` {
			t.Errorf("Get of a missing key: %v", err)
		}
	}},
	{"round trip", func(t *testing.T, b kvBackend) {
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		for _, v := range [][]byte{[]byte("hello"), all, {}, nil} {
			mustPut(t, b.client, "k", v)
			mustGet(t, b.client, "k", v)
		}
	}},
	{"overwrite", func(t *testing.T, b kvBackend) {
		mustPut(t, b.client, "k", []byte("first"))
		mustPut(t, b.client, "k", []byte("second"))
		mustGet(t, b.client, "k", []byte("second"))
	}},
	{"delete", func(t *testing.T, b kvBackend) {
		ctx := context.Background()
		mustPut(t, b.client, "k", []byte("v"))
		mustPut(t, b.client, "other", []byte("stays"))
		for range 2 { // deleting a deleted key is not an error
			if err := b.client.Delete(ctx, "k"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := b.client.Get(ctx, "k"); !errors.Is(err, kv.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		mustGet(t, b.client, "other", []byte("stays"))
	}},
	{"keys", func(t *testing.T, b kvBackend) {
		// Keys a mux would clean or redirect, or a URL would split, are
		// keys like any other, each its own.
		keys := []string{"a/b", "a//b", "/a", "../x", ".", "%41", "A", "sp ace", "ünï", "日本", "😀", "q?x=1#f", "tab\there", strings.Repeat("k", kv.MaxKeySize)}
		for i, k := range keys {
			mustPut(t, b.client, k, []byte{byte(i)})
		}
		for i, k := range keys {
			mustGet(t, b.client, k, []byte{byte(i)})
		}
	}},
	{"size limits", func(t *testing.T, b kvBackend) {
		ctx := context.Background()
		longest := strings.Repeat("ü", kv.MaxKeySize/2)
		largest := bytes.Repeat([]byte{0xff}, kv.MaxValueSize)
		mustPut(t, b.client, longest, largest)
		mustGet(t, b.client, longest, largest)
		before := b.requests()
		for _, c := range []struct {
			key   string
			value []byte
			want  string
		}{
			{"", nil, "kv: put: the key is empty"},
			{longest + "k", nil, "kv: put: the key is 1025 bytes; keys may be at most 1024 bytes (1 KiB)"},
			{"bad\xff", nil, "kv: put: the key is not valid UTF-8"},
			{"k", append(largest, 0), `kv: put "k": the value is 393217 bytes; values may be at most 393216 bytes (384 KiB)`},
		} {
			if err := b.client.Put(ctx, c.key, c.value); err == nil || err.Error() != c.want {
				t.Errorf("Put of a %d-byte key and a %d-byte value: %v, want %s", len(c.key), len(c.value), err, c.want)
			}
			if c.value != nil {
				continue
			}
			if _, err := b.client.Get(ctx, c.key); err == nil || err.Error() != strings.Replace(c.want, "put", "get", 1) {
				t.Errorf("Get of a %d-byte key: %v", len(c.key), err)
			}
			if err := b.client.Delete(ctx, c.key); err == nil || err.Error() != strings.Replace(c.want, "put", "delete", 1) {
				t.Errorf("Delete of a %d-byte key: %v", len(c.key), err)
			}
		}
		if n := b.requests() - before; n != 0 {
			t.Errorf("%d refused requests reached the store", n)
		}
	}},
	{"concurrent use", func(t *testing.T, b kvBackend) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for w := range 8 {
			wg.Go(func() {
				for i := range 8 {
					k := fmt.Sprintf("w%d/%d", w, i)
					if err := b.client.Put(ctx, k, []byte(k)); err != nil {
						errs <- err
						return
					}
					if err := b.client.Put(ctx, "shared", []byte(k)); err != nil {
						errs <- err
						return
					}
					if v, err := b.client.Get(ctx, k); err != nil || string(v) != k {
						errs <- fmt.Errorf("get %s = %q, %v", k, v, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		v, err := b.client.Get(ctx, "shared")
		if err != nil || !strings.HasPrefix(string(v), "w") {
			t.Errorf("the key all wrote: %q %v", v, err)
		}
	}},
}

// TestKVContract runs the client's contract against the store of each
// platform.
func TestKVContract(t *testing.T) {
	for _, backend := range kvBackends {
		t.Run(backend.name, func(t *testing.T) {
			for _, c := range kvContract {
				t.Run(c.name, func(t *testing.T) { c.run(t, backend.start(t)) })
			}
		})
	}
}

func mustPut(t *testing.T, c *kv.Client, key string, value []byte) {
	t.Helper()
	if err := c.Put(context.Background(), key, value); err != nil {
		t.Fatalf("put %.20q: %v", key, err)
	}
}

func mustGet(t *testing.T, c *kv.Client, key string, want []byte) {
	t.Helper()
	got, err := c.Get(context.Background(), key)
	if err != nil || !bytes.Equal(got, want) || got == nil {
		t.Fatalf("get %.20q = %.20q (nil %v), %v; want %.20q", key, got, got == nil, err, want)
	}
}
