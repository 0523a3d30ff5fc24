package gcsstate

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A write GCS answers 503 is sent again, a bounded number of times, as
// cloud.google.com/go/storage did with WithMaxAttempts(5); the object
// written is the one a first answer would have made.
func TestTransientErrorsRetried(t *testing.T) {
	defer func(p time.Duration) { firstPause = p }(firstPause)
	firstPause = time.Millisecond
	for _, tc := range []struct {
		name       string
		failures   int32
		wantErr    bool
		wantWrites int32
	}{
		{name: "two 503s then success", failures: 2, wantWrites: 3},
		{name: "503 every time gives up after 5 attempts", failures: 100, wantErr: true, wantWrites: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t)
			// Armed once Connect, which writes the state's id, is done.
			var armed atomic.Bool
			var writes atomic.Int32
			front := f.front(t, func(w http.ResponseWriter, r *http.Request) bool {
				if armed.Load() && r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload/") && writes.Add(1) <= tc.failures {
					http.Error(w, `{"error":{"code":503,"message":"try again"}}`, http.StatusServiceUnavailable)
					return true
				}
				return false
			})
			b := f.connect(t, "storage_custom_endpoint", front)
			armed.Store(true)
			err := (&blobs{b: b}).Put(context.Background(), "app/doc", []byte(`{"a":1}`), "digest")
			if (err != nil) != tc.wantErr || writes.Load() != tc.wantWrites {
				t.Fatalf("Put: %v after %d requests, want error %v after %d", err, writes.Load(), tc.wantErr, tc.wantWrites)
			}
			if tc.wantErr {
				return
			}
			o := f.get(t, "app/doc")
			if string(o.Content) != `{"a":1}` || o.Metadata[digestMeta] != "digest" || o.ContentType != "application/json" {
				t.Errorf("object written: %q %v %q", o.Content, o.Metadata, o.ContentType)
			}
		})
	}
}

// The package links no gRPC xDS stack (envoy, cncf/xds), whose package
// initialisation every tether process would pay for.
func TestNoXDSLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/envoyproxy/", "github.com/cncf/", "google.golang.org/grpc/xds", "cloud.google.com/go/storage"} {
			if strings.HasPrefix(p, bad) {
				t.Errorf("gcsstate links %s", p)
			}
		}
	}
}
