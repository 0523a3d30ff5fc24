package kv

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The client alone, against a fake store: how keys travel and how the
// store's refusals come back. The real store is tested in provider/tether.
func TestClient(t *testing.T) {
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.EscapedPath()
		switch {
		case strings.HasSuffix(gotPath, "/missing"):
			http.Error(w, "no value", http.StatusNotFound)
		case strings.HasSuffix(gotPath, "/refused"):
			http.Error(w, "tether kv: the value is too large", http.StatusRequestEntityTooLarge)
		case r.Method == http.MethodGet:
			w.Write([]byte("value"))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := Open(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, "a/b c"); err != nil || string(v) != "value" {
		t.Fatalf("Get: %q %v", v, err)
	}
	if gotPath != "/v1/kv/a%2Fb%20c" {
		t.Errorf("the key went as %s; it must be one escaped path segment", gotPath)
	}
	if _, err := c.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing key: %v", err)
	}
	err = c.Put(ctx, "refused", []byte("v"))
	if err == nil || !strings.Contains(err.Error(), "the value is too large (status 413)") {
		t.Errorf("a refused Put: %v", err)
	}
	if err := c.Delete(ctx, "k"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if err := c.Put(ctx, strings.Repeat("k", MaxKeySize+1), nil); err == nil || strings.Contains(err.Error(), "kkkk") {
		t.Errorf("a long key is refused without echoing it: %v", err)
	}
	if err := c.Put(ctx, "", nil); err == nil {
		t.Error("an empty key is accepted")
	}
}
