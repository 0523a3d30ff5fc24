package platform

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestAWSUpStore deploys the notes program (providertest.NotesProgram), a
// program with a store, with `up --platform aws` through the real
// hashicorp/aws provider to internal/awsfake: the store is a DynamoDB
// table in the fake, and the functions, run under the
// Lambda emulator with the credentials and DynamoDB endpoint the platform
// gives them, store a note through one route and read it through another
// and through a function URL; the note is in the fake's table. The second
// plan is clean, and destroy leaves the fake empty.
func TestAWSUpStore(t *testing.T) {
	t.Parallel()
	tt, fake := onAWSFake(t, func() string {
		repo, err := filepath.Abs("../../..")
		if err != nil {
			t.Fatal(err)
		}
		return providertest.NotesProgram(t, repo)
	})

	r := tt.Run("up", "--platform", "aws", "--yes")
	added := regexp.MustCompile(`Apply complete! Resources: (\d+) added`).FindStringSubmatch(r.Stdout)
	if r.Code != 0 || r.Err != nil || added == nil {
		t.Fatalf("tether up --platform aws: %v\n%s", r.Err, r)
	}
	var table string
	for _, o := range fake.Objects() {
		if n, ok := strings.CutPrefix(o, "dynamodb table "); ok {
			table = n
		}
	}
	if table == "" {
		t.Fatalf("no DynamoDB table in the fake:\n%s", strings.Join(fake.Objects(), "\n"))
	}
	output := func(name string) string {
		t.Helper()
		r := tt.Run("output", "--raw", name)
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "http://127.0.0.1:") {
			t.Fatalf("output %s: %s", name, r)
		}
		return strings.TrimSpace(r.Stdout)
	}
	get := func(url string) string {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s answered %d %s", url, resp.StatusCode, body)
		}
		return string(body)
	}
	api, worker := output("url"), output("worker")
	if got := get(api + "/put?text=été"); got != "stored été" {
		t.Errorf("GET /put answered %q, want %q", got, "stored été")
	}
	if got := get(api + "/get"); got != "été" {
		t.Errorf("GET /get answered %q, want %q", got, "été")
	}
	if got := get(worker + "/"); got != "worker été" {
		t.Errorf("the worker's function URL answered %q, want %q", got, "worker été")
	}
	if item, ok := fake.Item(table, "note"); !ok || !strings.Contains(item, `"value":{"B":"w6l0w6k="}`) {
		t.Errorf("the fake's table %s holds %q", table, item)
	}
	if r := tt.Run("plan", "--platform", "aws", "--detailed-exitcode"); r.Code != 0 || !strings.Contains(r.Stdout, "No changes.") {
		t.Errorf("second plan: %s", r)
	}
	if r := tt.Run("destroy", "--platform", "aws", "--yes"); r.Code != 0 || r.Err != nil || !strings.Contains(r.Stdout, "Resources: "+added[1]+" destroyed") {
		t.Errorf("tether destroy: %v\n%s", r.Err, r)
	}
	if left := fake.Objects(); len(left) > 0 {
		t.Errorf("destroy left in the fake:\n%s", strings.Join(left, "\n"))
	}
}
