package s3state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/awsfake"
)

// assumeSettings are the emulators' settings with STS at awsfake and the
// credentials check on.
func assumeSettings(t *testing.T, e *emulators, fake *awsfake.Server, extra ...string) map[string]string {
	t.Helper()
	s := e.settings(extra...)
	s["endpoints"] = `{"s3":"` + e.S3 + `","sts":"` + fake.URL + `"}`
	s["access_key"], s["secret_key"] = "AKIDTETHERFAKE", "tether-fake-secret"
	s["skip_credentials_validation"] = "false"
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i]] = extra[i+1]
	}
	return s
}

// startSTS starts awsfake, whose STS the tests point endpoints.sts at.
func startSTS(t *testing.T) *awsfake.Server {
	t.Helper()
	fake, err := awsfake.Start(awsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	return fake
}

func connectWith(s map[string]string) (*Backend, error) {
	cfg, err := FromSettings(s, func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	return Connect(context.Background(), cfg)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assume_role as Terraform passes it to sts:AssumeRole, and S3 then
// signed with the role's temporary key, not the block's.
func TestAssumeRole(t *testing.T) {
	e := startEmulators(t)
	fake := startSTS(t)
	arn := fake.AddRole("tfstate-writer")
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`
	b, err := connectWith(assumeSettings(t, e, fake, "assume_role", jsonOf(t, map[string]any{
		"role_arn": arn, "session_name": "ci-run", "external_id": "ext-7", "duration": "30m",
		"policy": "  " + policy + "\n", "policy_arns": []string{"arn:aws:iam::aws:policy/ReadOnlyAccess"},
		"source_identity": "alice", "tags": map[string]string{"team": "infra", "env": "prod"}, "transitive_tag_keys": []string{"team"},
	})))
	if err != nil {
		t.Fatal(err)
	}
	st := open(t, b, DefaultWorkspace)
	if err := lock(t, st, "apply").Unlock(); err != nil {
		t.Fatal(err)
	}

	sessions := fake.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("got %d role sessions, want 1: %+v", len(sessions), sessions)
	}
	got := sessions[0]
	want := awsfake.Session{Action: "AssumeRole", RoleARN: arn, SessionName: "ci-run", ExternalID: "ext-7", Policy: policy, SourceIdentity: "alice",
		PolicyARNs: []string{"arn:aws:iam::aws:policy/ReadOnlyAccess"}, TransitiveTagKeys: []string{"team"},
		Tags: map[string]string{"team": "infra", "env": "prod"}, Duration: 30 * time.Minute, CalledBy: "AKIDTETHERFAKE", AccessKeyID: got.AccessKeyID}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sts:AssumeRole got\n%+v\nwant\n%+v", got, want)
	}
	if keys := e.signedBy(); !reflect.DeepEqual(keys, []string{got.AccessKeyID}) {
		t.Errorf("S3 requests signed by %v, want only the role's temporary key %s", keys, got.AccessKeyID)
	}
}

// A role the caller may not assume, and keys STS does not know: the
// backend stops before touching S3, naming what failed.
func TestAssumeRoleRefused(t *testing.T) {
	e := startEmulators(t)
	fake := startSTS(t)
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"role refused", []string{"assume_role", `{"role_arn":"arn:aws:iam::123456789012:role/nosuch"}`},
			[]string{`the "s3" backend: validating the AWS credentials`, "AccessDenied", "not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/nosuch"}},
		{"unknown keys", []string{"access_key", "AKIDWRONG"},
			[]string{`the "s3" backend: validating the AWS credentials (sts:GetCallerIdentity; skip_credentials_validation = true skips it)`, "InvalidClientTokenId"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := connectWith(assumeSettings(t, e, fake, tc.extra...))
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("got %v, want an error with %q", err, w)
				}
			}
			if keys := e.signedBy(); len(keys) != 0 {
				t.Errorf("S3 got requests signed by %v before the credentials were checked", keys)
			}
		})
	}
}

// assume_role_with_web_identity: the token from the block or a file,
// sent to sts:AssumeRoleWithWebIdentity, S3 signed with its key.
func TestAssumeRoleWithWebIdentity(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(awsfake.WebIdentityToken), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, token string }{
		{"token", `"web_identity_token":"` + awsfake.WebIdentityToken + `"`},
		{"token file", `"web_identity_token_file":"` + tokenFile + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startEmulators(t)
			fake := startSTS(t)
			arn := fake.AddRole("oidc")
			s := assumeSettings(t, e, fake, "assume_role_with_web_identity", `{"role_arn":"`+arn+`","session_name":"gha",`+tc.token+`}`)
			delete(s, "access_key")
			delete(s, "secret_key")
			if _, err := connectWith(s); err != nil {
				t.Fatal(err)
			}
			sessions := fake.Sessions()
			if len(sessions) != 1 || sessions[0].Action != "AssumeRoleWithWebIdentity" || sessions[0].RoleARN != arn || sessions[0].SessionName != "gha" {
				t.Fatalf("got sessions %+v", sessions)
			}
			if keys := e.signedBy(); !reflect.DeepEqual(keys, []string{sessions[0].AccessKeyID}) {
				t.Errorf("S3 requests signed by %v, want %s", keys, sessions[0].AccessKeyID)
			}
		})
	}
}

// The profile and shared files, from the block and from the environment
// Terraform reads, as a temporary credentials file names them: S3 is
// signed with the profile's key, and a profile that assumes a role (in a
// config file) goes through STS.
func TestProfileAndSharedFiles(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, []byte("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s\n\n"+
		"[ci]\naws_access_key_id = AKIDTETHERFAKE\naws_secret_access_key = tether-fake-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		extra   []string
		env     map[string]string
		roleCfg bool // a config file whose profile assumes a role
		want    string
	}{
		{name: "profile and shared_credentials_files", extra: []string{"profile", "ci", "shared_credentials_files", jsonOf(t, []string{creds})}, want: "AKIDTETHERFAKE"},
		// AWS_SHARED_CREDENTIALS_FILE would win over it, as in Terraform.
		{name: "deprecated shared_credentials_file", extra: []string{"profile", "ci", "shared_credentials_file", creds}, env: map[string]string{"AWS_SHARED_CREDENTIALS_FILE": ""}, want: "AKIDTETHERFAKE"},
		{name: "AWS_PROFILE and AWS_SHARED_CREDENTIALS_FILE", env: map[string]string{"AWS_PROFILE": "ci", "AWS_SHARED_CREDENTIALS_FILE": creds}, want: "AKIDTETHERFAKE"},
		{name: "default profile", env: map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds}, want: "AKIDDEFAULT"},
		{name: "profile assuming a role from AWS_CONFIG_FILE", extra: []string{"profile", "deploy"}, env: map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds}, roleCfg: true, want: "session"},
		{name: "profile assuming a role from AWS_SHARED_CONFIG_FILE", extra: []string{"profile", "deploy"}, env: map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": "", "AWS_SHARED_CONFIG_FILE": "set below"}, roleCfg: true, want: "session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startEmulators(t)
			fake := startSTS(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.roleCfg {
				cfg := filepath.Join(t.TempDir(), "config")
				body := "[profile deploy]\nrole_arn = " + fake.AddRole("deploy") + "\nsource_profile = ci\nrole_session_name = from-profile\nregion = eu-west-1\n"
				if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
				if tc.env["AWS_SHARED_CONFIG_FILE"] != "" {
					t.Setenv("AWS_SHARED_CONFIG_FILE", cfg)
				} else {
					t.Setenv("AWS_CONFIG_FILE", cfg)
				}
			}
			s := assumeSettings(t, e, fake, tc.extra...)
			delete(s, "access_key")
			delete(s, "secret_key")
			if tc.want == "AKIDDEFAULT" {
				s["skip_credentials_validation"] = "true" // STS knows only the fake's key
			}
			cfg, err := FromSettings(s, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Connect(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "session" {
				sessions := fake.Sessions()
				if len(sessions) != 1 || sessions[0].SessionName != "from-profile" || sessions[0].CalledBy != "AKIDTETHERFAKE" {
					t.Fatalf("got role sessions %+v, want the profile's role assumed with the ci profile's key", sessions)
				}
				want = sessions[0].AccessKeyID
			}
			if keys := e.signedBy(); !reflect.DeepEqual(keys, []string{want}) {
				t.Errorf("S3 requests signed by %v, want %s", keys, want)
			}
		})
	}
}
