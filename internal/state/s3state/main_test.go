package s3state

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tetherhq/tether/internal/dynamofake"
)

// emulators are an S3 (gofakes3, in this process: it serves the
// conditional writes the lock file needs) and a DynamoDB (dynamofake),
// both on 127.0.0.1.
type emulators struct {
	S3, DynamoDB string
	ddb          *dynamofake.Server
	s3mem        *s3mem.Backend
	closeS3      func()

	mu     sync.Mutex
	s3Keys []string // the access key of each S3 request, in order
}

var credentialScope = regexp.MustCompile(`Credential=([^/]+)/`)

// signedBy is the access key ids that signed the S3 requests so far.
func (e *emulators) signedBy() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(e.s3Keys)))
}

const testBucket = "tfstate"

func startEmulators(t testing.TB) *emulators {
	t.Helper()
	mem := s3mem.New()
	e := &emulators{s3mem: mem}
	s3 := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// gofakes3 checks no signature; the key that signed is recorded
		// so that tests see whose credentials reached S3.
		key := ""
		if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
			key = m[1]
		}
		e.mu.Lock()
		e.s3Keys = append(e.s3Keys, key)
		e.mu.Unlock()
		s3.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if err := mem.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ddb.Close() })
	if err := ddb.CreateTable("locks", "LockID", "S"); err != nil {
		t.Fatal(err)
	}
	// The SDK reads no host configuration.
	for _, kv := range [][2]string{{"AWS_CONFIG_FILE", "/dev/null"}, {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"}, {"AWS_PROFILE", ""}, {"AWS_EC2_METADATA_DISABLED", "true"}} {
		t.Setenv(kv[0], kv[1])
	}
	e.S3, e.DynamoDB, e.ddb, e.closeS3 = srv.URL, ddb.URL, ddb, srv.Close
	return e
}

// settings are a backend "s3" block's settings for the emulators.
func (e *emulators) settings(extra ...string) map[string]string {
	o := e.ddb.Options()
	s := map[string]string{
		"bucket": testBucket, "key": "app/terraform.tfstate", "region": "eu-west-1",
		"endpoints":      `{"s3":"` + e.S3 + `","dynamodb":"` + e.DynamoDB + `"}`,
		"use_path_style": "true", "skip_credentials_validation": "true", "skip_requesting_account_id": "true",
		"skip_metadata_api_check": "true", "skip_region_validation": "true",
		"access_key": o.AccessKeyID, "secret_key": o.SecretAccessKey,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i]] = extra[i+1]
	}
	return s
}

func (e *emulators) connect(t testing.TB, extra ...string) *Backend {
	t.Helper()
	cfg, err := FromSettings(e.settings(extra...), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
