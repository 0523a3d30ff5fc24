package s3state

import (
	"strings"
	"testing"
)

// The settings and the environment as Terraform's s3 backend reads them:
// the block over the current variable over the deprecated one.
func TestFromSettings(t *testing.T) {
	base := map[string]string{"bucket": "b", "key": "k/terraform.tfstate"}
	with := func(extra ...string) map[string]string {
		s := map[string]string{}
		for k, v := range base {
			s[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			s[extra[i]] = extra[i+1]
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		env      map[string]string
		check    func(Config) bool
		err      string
	}{
		{name: "region from AWS_REGION before AWS_DEFAULT_REGION", settings: with(), env: map[string]string{"AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "us-east-1"},
			check: func(c Config) bool { return c.Region == "eu-west-3" && c.WorkspaceKeyPrefix == "env:" }},
		{name: "no region", settings: with(), err: `"region" or the environment variable AWS_REGION`},
		{name: "endpoint from the block first", settings: with("region", "us-east-1", "endpoints", `{"s3":"http://block"}`), env: map[string]string{"AWS_ENDPOINT_URL_S3": "http://env", "AWS_S3_ENDPOINT": "http://old"},
			check: func(c Config) bool { return c.Endpoints.S3 == "http://block" }},
		{name: "current variable before the deprecated one", settings: with("region", "us-east-1"), env: map[string]string{"AWS_ENDPOINT_URL_S3": "http://env", "AWS_S3_ENDPOINT": "http://old", "AWS_DYNAMODB_ENDPOINT": "http://ddb"},
			check: func(c Config) bool { return c.Endpoints.S3 == "http://env" && c.Endpoints.DynamoDB == "http://ddb" }},
		{name: "empty workspace_key_prefix kept", settings: with("region", "us-east-1", "workspace_key_prefix", ""),
			check: func(c Config) bool { return c.WorkspaceKeyPrefix == "" }},
		{name: "key with a leading slash", settings: with("region", "us-east-1", "key", "/k"), err: `"key" must not start or end with '/'`},
		{name: "kms_key_id without encrypt", settings: with("region", "us-east-1", "kms_key_id", "arn:k"), err: `"kms_key_id" needs encrypt = true`},
		{name: "assume_role without role_arn", settings: with("region", "us-east-1", "assume_role", `{"session_name":"s"}`), err: `"role_arn" is required`},
		{name: "a customer key in the environment", settings: with("region", "us-east-1"), env: map[string]string{"AWS_SSE_CUSTOMER_KEY": "x"}, err: "AWS_SSE_CUSTOMER_KEY"},
		{name: "a region no list knows", settings: with("region", "us-nowhere-1"), err: `invalid AWS Region: us-nowhere-1`},
		{name: "a region past the list, let through", settings: with("region", "us-nowhere-1", "skip_region_validation", "true"),
			check: func(c Config) bool { return c.Region == "us-nowhere-1" }},
		{name: "a region from the environment taken as it is", settings: with(), env: map[string]string{"AWS_REGION": "us-nowhere-1"},
			check: func(c Config) bool { return c.Region == "us-nowhere-1" }},
		{name: "no bucket", settings: map[string]string{"key": "k", "region": "us-east-1"}, err: `"bucket" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FromSettings(tc.settings, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `the "s3" backend`) {
					t.Fatalf("got %v, want an error naming the s3 backend and %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(c) {
				t.Fatalf("got %+v, %v", c, err)
			}
		})
	}
}
