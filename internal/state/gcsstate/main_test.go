package gcsstate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// fakeGCS is a GCS emulator (fake-gcs-server, in this process, on
// 127.0.0.1, over plain HTTP, serving path-style XML reads there too) with
// the bucket tfstate.
type fakeGCS struct {
	srv *fakestorage.Server
	// Endpoint is what storage_custom_endpoint takes.
	Endpoint string
}

const testBucket = "tfstate"

func startFake(t testing.TB) *fakeGCS {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Host: "127.0.0.1", Scheme: "http", PublicHost: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: testBucket})
	// The client reads no host credentials.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/dev/null")
	return &fakeGCS{srv: srv, Endpoint: srv.URL() + "/storage/v1/"}
}

func (f *fakeGCS) settings(extra ...string) map[string]string {
	s := map[string]string{"bucket": testBucket, "prefix": "app", "storage_custom_endpoint": f.Endpoint, "access_token": "fake-token"}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i]] = extra[i+1]
	}
	return s
}

func (f *fakeGCS) connect(t testing.TB, extra ...string) *Backend {
	t.Helper()
	cfg, err := FromSettings(f.settings(extra...), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// keys lists the bucket's object names under prefix, sorted.
func (f *fakeGCS) keys(t testing.TB, prefix string) []string {
	t.Helper()
	objs, _, err := f.srv.ListObjectsWithOptions(testBucket, fakestorage.ListOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	sort.Strings(out)
	return out
}

func (f *fakeGCS) put(name, body string) {
	f.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testBucket, Name: name, ContentType: "application/json"}, Content: []byte(body)})
}

func (f *fakeGCS) get(t testing.TB, name string) fakestorage.Object {
	t.Helper()
	o, err := f.srv.GetObject(testBucket, name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// front starts a proxy before the emulator, whose intercept sees every
// request first and answers it itself when it returns true; it returns
// the endpoint to give storage_custom_endpoint.
func (f *fakeGCS) front(t testing.TB, intercept func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	target, err := url.Parse(f.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s.URL + "/storage/v1/"
}
