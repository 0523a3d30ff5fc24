package awslambda_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/internal/providertest"
)

// notesProgram is a Go program whose handler keeps a note in its store.
const notesProgram = `package main

import (
	"net/http"

	"github.com/tetherhq/tether"
	"github.com/tetherhq/tether/builtin"
)

func main() {
	tether.Main(func(s *tether.Stack) error {
		store := builtin.NewKv(s, "notes", builtin.KvArgs{})
		router := builtin.NewRouter(s, "main", builtin.RouterArgs{})
		router.Get("/note", func(w http.ResponseWriter, r *http.Request) {
			c, err := store.Client()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			if err := c.Put(r.Context(), "note", []byte(r.URL.Query().Get("text"))); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			v, err := c.Get(r.Context(), "note")
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Write(v)
		})
		return nil
	})
}
`

// TestStoreUnderLambdaEmulator runs a handler that uses its store, built
// as a Lambda function's bootstrap, under the Lambda runtime interface
// emulator with the environment the aws platform gives it: the store's
// endpoint a DynamoDB table, credentials as Lambda sets them from the
// function's role. The table is the fake DynamoDB on loopback, reached
// through AWS_ENDPOINT_URL_DYNAMODB.
func TestStoreUnderLambdaEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program and the Lambda runtime interface emulator: skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(notesProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	providertest.GoModule(t, dir, "example.com/notes", repo)
	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-west-1", SessionToken: "from-the-role"})
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	if err := ddb.CreateTable("notes-notes", "key", "S"); err != nil {
		t.Fatal(err)
	}
	invoke := runUnderEmulator(t, dir, append(ddb.Env(), "TETHER_CLOSURE=tether_function.main_get_note", "TETHER_KV_NOTES_ENDPOINT=dynamodb://notes-notes?region=eu-west-1")...)
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /note", RawPath: "/note", RawQueryString: "text=%C3%A9t%C3%A9",
		Headers: map[string]string{"host": "example.execute-api.eu-west-1.amazonaws.com"}}
	ev.RequestContext.HTTP.Method = "GET"
	ev.RequestContext.HTTP.Path = "/note"
	body, _ := json.Marshal(ev)
	resp := invokeEmulator(t, invoke, body)
	if resp.StatusCode != 200 || resp.Body != "été" {
		t.Errorf("GET /note answered %+v, want 200 with body été", resp)
	}
	if item, _ := ddb.Item("notes-notes", "note"); item != `{"key":{"S":"note"},"value":{"B":"w6l0w6k="}}` {
		t.Errorf("the table holds %s", item)
	}
}
