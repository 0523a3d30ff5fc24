package tether

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/providercheck"
	"github.com/tetherhq/tether/runtime/kv"
)

func TestKV(t *testing.T) {
	r := newRT(t)
	store := r.Up("tether_kv", nil, nil)
	endpoint := providercheck.String(t, store.State, "endpoint")
	ctx := context.Background()
	c, err := kv.Open(endpoint)
	if err != nil {
		t.Fatal(err)
	}

	// Keys a mux would clean or redirect are keys like any other.
	keys := []string{"greeting", "a/b", "a//b", "../x", ".", "%41", "sp ace", "ünï", "q?x=1#f", strings.Repeat("k", kv.MaxKeySize)}
	for i, k := range keys {
		if err := c.Put(ctx, k, []byte{byte(i), 'v'}); err != nil {
			t.Fatalf("put %q: %v", k, err)
		}
	}
	for i, k := range keys {
		v, err := c.Get(ctx, k)
		if err != nil || !bytes.Equal(v, []byte{byte(i), 'v'}) {
			t.Fatalf("get %q = %q, %v", k, v, err)
		}
	}
	if _, err := c.Get(ctx, "missing"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("get of a missing key: %v, want ErrNotFound", err)
	}
	if err := c.Delete(ctx, "greeting"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "greeting"); err != nil {
		t.Errorf("deleting a deleted key: %v", err)
	}
	if _, err := c.Get(ctx, "greeting"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	big := bytes.Repeat([]byte("x"), kv.MaxValueSize)
	if err := c.Put(ctx, "big", big); err != nil {
		t.Fatalf("a value of exactly 384 KiB: %v", err)
	}

	// Too large: the client refuses, and so does the server for clients
	// that do not check.
	long := strings.Repeat("k", kv.MaxKeySize+1)
	if err := c.Put(ctx, long, []byte("v")); err == nil || !strings.Contains(err.Error(), "keys may be at most 1024 bytes") {
		t.Errorf("client put of a long key: %v", err)
	}
	if code, body := get(t, "GET", endpoint+"/v1/kv/"+long); code != 400 || !strings.Contains(body, "keys may be at most 1024 bytes") {
		t.Errorf("server get of a long key: %d %q", code, body)
	}
	if err := c.Put(ctx, "huge", append(big, 'x')); err == nil || !strings.Contains(err.Error(), "at most 393216 bytes (384 KiB)") {
		t.Errorf("client put of a large value: %v", err)
	}
	for _, chunked := range []bool{false, true} {
		var body interface{ Read([]byte) (int, error) } = bytes.NewReader(append(big, 'x'))
		if chunked {
			body = struct{ *bytes.Reader }{bytes.NewReader(append(big, 'x'))} // hides the length
		}
		req, _ := http.NewRequest("PUT", endpoint+"/v1/kv/huge", body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("server put of a large value (chunked %v): %d", chunked, resp.StatusCode)
		}
	}
	if _, err := c.Get(ctx, "huge"); !errors.Is(err, kv.ErrNotFound) {
		t.Errorf("a refused value was stored: %v", err)
	}
	if code, _ := get(t, "GET", endpoint+"/other"); code != 404 {
		t.Errorf("a path outside the API answered %d", code)
	}
	if code, _ := get(t, "POST", endpoint+"/v1/kv/a"); code != 405 {
		t.Errorf("POST answered %d", code)
	}

	// Data outlives the process: a store that died restarts on its
	// endpoint with its values.
	pid := pidOf(t, store)
	killPID(t, pid)
	waitFor(ctx, 5*time.Second, func() bool { return !alive(pid) })
	stopped, _ := r.Refresh(store)
	store = r.Up("tether_kv", stopped, nil)
	if got := providercheck.String(t, store.State, "endpoint"); got != endpoint {
		t.Fatalf("the store came back on %s, not %s", got, endpoint)
	}
	if v, err := c.Get(ctx, "a//b"); err != nil || string(v) != "\x02v" {
		t.Fatalf("after a restart: %q %v", v, err)
	}

	pid = pidOf(t, store)
	r.Down(store)
	r.gone(pid, endpoint, filepath.Join(r.root, providercheck.String(t, store.State, "id")))
	if _, err := c.Get(ctx, "a/b"); err == nil {
		t.Error("a destroyed store still answers")
	}
}

func TestKVClientOpen(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:80", "ftp://x", "http://"} {
		if _, err := kv.Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	if _, err := kv.Open(os.Getenv("TETHER_KV_SURELY_UNSET_ENDPOINT")); err == nil || !strings.Contains(err.Error(), "environment variable") {
		t.Errorf("Open of an unset variable: %v", err)
	}
}
