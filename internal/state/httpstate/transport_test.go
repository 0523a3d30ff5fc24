package httpstate

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tetherhq/tether/internal/httpstatefake"
)

// retry_max and the waits are acted on: a 5xx answer is retried, and the
// last one is the error once they are spent.
func TestRetries(t *testing.T) {
	inner := httpstatefake.Start("", "")
	defer inner.Close()
	var failures atomic.Int32
	failures.Store(2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failures.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		r.URL.Host, r.URL.Scheme = strings.TrimPrefix(inner.URL, "http://"), "http"
		req, _ := http.NewRequest(r.Method, r.URL.String(), r.Body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	}))
	defer srv.Close()
	connect := func(retries string) error {
		cfg, err := FromSettings(map[string]string{"address": srv.URL + "/state", "retry_max": retries, "retry_wait_min": "0", "retry_wait_max": "0"}, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		_, err = Connect(context.Background(), cfg, t.TempDir())
		return err
	}
	if err := connect("1"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("two failures with retry_max = 1: %v, want the 503", err)
	}
	failures.Store(2)
	if err := connect("2"); err != nil {
		t.Errorf("two failures with retry_max = 2: %v", err)
	}
}

// The client TLS settings are acted on: the server's certificate is
// refused until client_ca_certificate_pem names it, or with
// skip_cert_verification.
func TestClientTLS(t *testing.T) {
	fake := httpstatefake.Start("", "")
	defer fake.Close()
	srv := httptest.NewTLSServer(fake)
	defer srv.Close()
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	for _, tc := range []struct {
		name     string
		settings map[string]string
		ok       bool
	}{
		{"unknown authority", map[string]string{}, false},
		{"client_ca_certificate_pem", map[string]string{"client_ca_certificate_pem": ca}, true},
		{"skip_cert_verification", map[string]string{"skip_cert_verification": "true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.settings["address"] = srv.URL + "/state"
			tc.settings["retry_max"] = "0"
			cfg, err := FromSettings(tc.settings, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			_, err = Connect(context.Background(), cfg, t.TempDir())
			if (err == nil) != tc.ok {
				t.Errorf("connect: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
