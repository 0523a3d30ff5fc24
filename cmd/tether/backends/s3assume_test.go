package backends

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tetherhq/tether/internal/awsfake"
	"github.com/tetherhq/tether/internal/e2e"
)

const s3AssumeTF = `terraform {
  backend "s3" {
    bucket         = "tfstate"
    key            = "KEY"
    region         = "eu-west-1"
    use_path_style = true
    use_lockfile   = true

    skip_requesting_account_id = true
    skip_metadata_api_check    = true

    assume_role = {
      role_arn            = "ARN"
      session_name        = "ci-run"
      external_id         = "ext-7"
      duration            = "30m"
      tags                = { team = "infra" }
      transitive_tag_keys = ["team"]
    }
  }
}
`

// terraform 1.11 and tether, on the same S3 (gofakes3) and STS (awsfake),
// with assume_role in the block and the endpoints in a -backend-config
// file: both assume the role with the same arguments, sign S3 with the
// role's temporary key only, and both stop when STS refuses the role.
func TestTerraformS3AssumeRole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the s3 backend's assume_role is compared with terraform 1.11")
	}
	tools := e2e.BuildDiffTools(t)
	mem := s3mem.New()
	if err := mem.CreateBucket("tfstate"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var s3Keys []string
	scope := regexp.MustCompile(`Credential=([^/]+)/`)
	s3 := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := scope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
			mu.Lock()
			s3Keys = append(s3Keys, m[1])
			mu.Unlock()
		}
		s3.ServeHTTP(w, r)
	}))
	defer srv.Close()
	fake, err := awsfake.Start(awsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	arn := fake.AddRole("tfstate-writer")
	env := append(e2e.DiffEnv(tools), "AWS_ACCESS_KEY_ID=AKIDTETHERFAKE", "AWS_SECRET_ACCESS_KEY=tether-fake-secret",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_PROFILE=", "AWS_REGION=")
	endpoints := "endpoints = {\n  s3  = \"" + srv.URL + "\"\n  sts = \"" + fake.URL + "\"\n}\n"

	run := func(name, bin, role string) e2e.CmdResult {
		dir := t.TempDir()
		block := strings.NewReplacer("KEY", name+"/terraform.tfstate", "ARN", role).Replace(s3AssumeTF)
		for f, body := range map[string]string{"backend.tf": block, "endpoints.hcl": endpoints} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mu.Lock()
		s3Keys = nil
		mu.Unlock()
		return e2e.Side{Name: name, Bin: bin, Dir: dir, Env: env}.Run("init", "-input=false", "-no-color", "-backend-config=endpoints.hcl")
	}
	var sessions, first []awsfake.Session
	for _, tool := range []struct{ name, bin string }{{"terraform", tools.Terraform}, {"tether", tools.Tether}} {
		if r := run(tool.name, tool.bin, arn); r.Err != nil || r.Code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		// Terraform may assume the role more than once (aws-sdk-go-base
		// checks the credentials with a client of its own).
		all := fake.Sessions()
		added := all[len(sessions):]
		sessions = all
		if len(added) == 0 {
			t.Fatalf("%s did not assume the role", tool.name)
		}
		first = append(first, added[0])
		temporary := map[string]bool{}
		for _, x := range added {
			temporary[x.AccessKeyID] = true
		}
		mu.Lock()
		keys := append([]string{}, s3Keys...)
		mu.Unlock()
		if len(keys) == 0 {
			t.Errorf("%s made no S3 request", tool.name)
		}
		for _, k := range keys {
			if !temporary[k] {
				t.Errorf("%s signed an S3 request with %s, not the role's temporary key", tool.name, k)
				break
			}
		}
	}
	tf, tt := first[0], first[1]
	tf.AccessKeyID, tt.AccessKeyID = "", ""
	if !reflect.DeepEqual(tf, tt) {
		t.Errorf("sts:AssumeRole differs:\nterraform %+v\ntether    %+v", tf, tt)
	}

	refused := "arn:aws:iam::" + awsfake.Account + ":role/nosuch"
	for _, tool := range []struct{ name, bin string }{{"terraform", tools.Terraform}, {"tether", tools.Tether}} {
		r := run(tool.name, tool.bin, refused)
		if r.Code != 1 || !strings.Contains(r.Stderr, "AccessDenied") && !strings.Contains(r.Stderr, "not authorized to perform: sts:AssumeRole") {
			t.Errorf("%s with a role STS refuses: want exit 1 naming the refusal\n%s", tool.name, r)
		}
	}
}
