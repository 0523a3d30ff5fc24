package gcsstate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/oauth2"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"
)

// Config is a backend "gcs" block's settings, with the environment
// variables Terraform reads in place of the arguments left out.
type Config struct {
	Bucket string
	// Prefix is the block's prefix without a leading '/', ending in '/'
	// unless empty, as Terraform makes it.
	Prefix string
	// Credentials is a credentials JSON document (the argument may name
	// a file holding it); AccessToken, when set, is used instead.
	Credentials, AccessToken  string
	ImpersonateServiceAccount string
	ImpersonateDelegates      []string
	// EncryptionKey is a customer-supplied key (32 bytes), KMSKeyName a
	// customer-managed one; at most one is set.
	EncryptionKey []byte
	KMSKeyName    string
	// Endpoint is storage_custom_endpoint.
	Endpoint string
}

// FromSettings reads the settings of a backend "gcs" block (lists as
// JSON) and, where they leave an argument out, the environment, as
// Terraform's gcs backend does.
func FromSettings(s map[string]string, getenv func(string) string) (Config, error) {
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf(`the "gcs" backend: `+format, args...)
	}
	// The first of the block's value and the variables that is set.
	first := func(arg string, vars ...string) string {
		if v := s[arg]; v != "" {
			return v
		}
		for _, n := range vars {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	c := Config{
		Bucket:                    s["bucket"],
		AccessToken:               first("access_token", "GOOGLE_OAUTH_ACCESS_TOKEN"),
		ImpersonateServiceAccount: first("impersonate_service_account", "GOOGLE_BACKEND_IMPERSONATE_SERVICE_ACCOUNT", "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT"),
		KMSKeyName:                first("kms_encryption_key", "GOOGLE_KMS_ENCRYPTION_KEY"),
		Endpoint:                  first("storage_custom_endpoint", "GOOGLE_BACKEND_STORAGE_CUSTOM_ENDPOINT", "GOOGLE_STORAGE_CUSTOM_ENDPOINT"),
	}
	if c.Bucket == "" {
		return fail(`the argument "bucket" is required`)
	}
	c.Prefix = strings.TrimLeft(s["prefix"], "/")
	if c.Prefix != "" && !strings.HasSuffix(c.Prefix, "/") {
		c.Prefix += "/"
	}
	if raw := s["impersonate_service_account_delegates"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &c.ImpersonateDelegates); err != nil {
			return fail(`the argument "impersonate_service_account_delegates": %v`, err)
		}
	}
	// Terraform refuses both arguments in the block even when empty, and
	// both keys however they were given.
	_, blockKey := s["encryption_key"]
	_, blockKMS := s["kms_encryption_key"]
	key := first("encryption_key", "GOOGLE_ENCRYPTION_KEY")
	if (blockKey && blockKMS) || (key != "" && c.KMSKeyName != "") {
		return fail(`"encryption_key" and "kms_encryption_key" cannot both be set`)
	}
	if key != "" {
		contents, err := readPathOrContents(key)
		if err != nil {
			return fail(`reading the encryption key: %v`, err)
		}
		k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(contents))
		if err != nil {
			return fail(`the encryption key is not base64: %v`, err)
		}
		if len(k) != 32 {
			return fail(`the encryption key must be 32 bytes (AES-256), base64-encoded; it is %d bytes`, len(k))
		}
		c.EncryptionKey = k
	}
	if c.AccessToken == "" {
		creds := first("credentials", "GOOGLE_BACKEND_CREDENTIALS", "GOOGLE_CREDENTIALS")
		if creds != "" {
			contents, err := readPathOrContents(creds)
			if err != nil {
				return fail(`reading the credentials: %v`, err)
			}
			if !json.Valid([]byte(contents)) {
				return fail(`the credentials are neither a JSON document nor the path of a file holding one`)
			}
			c.Credentials = contents
		}
	}
	return c, nil
}

// readPathOrContents reads the file s names (~ is the home folder), or
// returns s when no such file exists: Terraform takes credentials and
// keys either way.
func readPathOrContents(s string) (string, error) {
	p := s
	if strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[2:])
	}
	if _, err := os.Stat(p); err != nil {
		return s, nil
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

// newClient makes the storage client as Terraform's gcs backend does: the
// access token, else the credentials, else Application Default
// Credentials; impersonation on top; the custom endpoint. It is Google's
// generated JSON API client, not cloud.google.com/go/storage, whose gRPC
// transport links xDS packages that every tether process would initialise;
// so it retries nothing itself, and every call goes through retry.
func (c Config) newClient(ctx context.Context) (*storage.Service, error) {
	var creds, opts []option.ClientOption
	switch {
	case c.AccessToken != "":
		creds = append(creds, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.AccessToken})))
	case c.Credentials != "":
		creds = append(creds, option.WithCredentialsJSON([]byte(c.Credentials))) //nolint:staticcheck // any credential type, as Terraform takes
	}
	if c.ImpersonateServiceAccount != "" {
		ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
			TargetPrincipal: c.ImpersonateServiceAccount,
			Scopes:          []string{storage.DevstorageReadWriteScope},
			Delegates:       c.ImpersonateDelegates,
		}, creds...)
		if err != nil {
			return nil, fmt.Errorf(`the "gcs" backend: impersonating %s: %w`, c.ImpersonateServiceAccount, err)
		}
		opts = append(opts, option.WithTokenSource(ts))
	} else {
		opts = append(opts, creds...)
	}
	if c.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.Endpoint))
	}
	client, err := storage.NewService(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf(`the "gcs" backend: making the storage client: %w`, err)
	}
	return client, nil
}
