package gcsstate

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The settings and the environment as Terraform's gcs backend reads them.
func TestFromSettings(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	credsFile := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(credsFile, []byte(`{"type":"service_account"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		env      map[string]string
		check    func(Config) bool
		err      string
	}{
		{name: "prefix as Terraform makes it", settings: map[string]string{"bucket": "b", "prefix": "/a/b"},
			check: func(c Config) bool { return c.Prefix == "a/b/" }},
		{name: "no prefix", settings: map[string]string{"bucket": "b"},
			check: func(c Config) bool { return c.Prefix == "" }},
		{name: "no bucket", settings: map[string]string{"prefix": "p"}, err: `"bucket" is required`},
		{name: "access token from the environment wins over credentials", settings: map[string]string{"bucket": "b", "credentials": credsFile},
			env:   map[string]string{"GOOGLE_OAUTH_ACCESS_TOKEN": "tok"},
			check: func(c Config) bool { return c.AccessToken == "tok" && c.Credentials == "" }},
		{name: "credentials from a file", settings: map[string]string{"bucket": "b", "credentials": credsFile},
			check: func(c Config) bool { return c.Credentials == `{"type":"service_account"}` }},
		{name: "GOOGLE_BACKEND_CREDENTIALS before GOOGLE_CREDENTIALS", settings: map[string]string{"bucket": "b"},
			env:   map[string]string{"GOOGLE_BACKEND_CREDENTIALS": `{"a":1}`, "GOOGLE_CREDENTIALS": `{"b":2}`},
			check: func(c Config) bool { return c.Credentials == `{"a":1}` }},
		{name: "credentials neither JSON nor a file", settings: map[string]string{"bucket": "b", "credentials": "/no/such/file"}, err: "neither a JSON document nor the path"},
		{name: "endpoint from the backend variable first", settings: map[string]string{"bucket": "b"},
			env:   map[string]string{"GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT": "http://a/", "GOOGLE_STORAGE_CUSTOM_ENDPOINT": "http://b/"},
			check: func(c Config) bool { return c.Endpoint == "http://a/" }},
		{name: "impersonation from the environment", settings: map[string]string{"bucket": "b", "impersonate_service_account_delegates": `["d1","d2"]`},
			env: map[string]string{"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT": "sa@p.iam.gserviceaccount.com"},
			check: func(c Config) bool {
				return c.ImpersonateServiceAccount == "sa@p.iam.gserviceaccount.com" && len(c.ImpersonateDelegates) == 2
			}},
		{name: "customer-supplied key", settings: map[string]string{"bucket": "b", "encryption_key": key},
			check: func(c Config) bool { return len(c.EncryptionKey) == 32 }},
		{name: "a short key", settings: map[string]string{"bucket": "b", "encryption_key": base64.StdEncoding.EncodeToString([]byte("short"))}, err: "must be 32 bytes"},
		{name: "both keys in the block", settings: map[string]string{"bucket": "b", "encryption_key": "", "kms_encryption_key": ""}, err: "cannot both be set"},
		{name: "a key from the environment and a KMS key", settings: map[string]string{"bucket": "b", "kms_encryption_key": "projects/p/locations/l/keyRings/r/cryptoKeys/k"},
			env: map[string]string{"GOOGLE_ENCRYPTION_KEY": key}, err: "cannot both be set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FromSettings(tc.settings, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `the "gcs" backend`) {
					t.Fatalf("got %v, want an error naming the gcs backend and %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(c) {
				t.Fatalf("got %+v, %v", c, err)
			}
		})
	}
}
