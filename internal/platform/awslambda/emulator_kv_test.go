package awslambda_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tetherhq/tether/internal/dynamofake"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestStoreUnderLambdaEmulator runs a handler that uses its store (the
// notes program's GET /put, providertest.NotesProgram), built as a Lambda
// function's bootstrap, under the Lambda runtime interface emulator with
// the environment the aws platform gives it: the store's
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
	dir := providertest.NotesProgram(t, repo)
	ddb, err := dynamofake.Start(dynamofake.Options{Region: "eu-west-1", SessionToken: "from-the-role"})
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	if err := ddb.CreateTable("notes-notes", "key", "S"); err != nil {
		t.Fatal(err)
	}
	invoke := runUnderEmulator(t, dir, append(ddb.Env(), "TETHER_CLOSURE=tether_function.main_get_put", "TETHER_KV_NOTES_ENDPOINT=dynamodb://notes-notes?region=eu-west-1")...)
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /put", RawPath: "/put", RawQueryString: "text=%C3%A9t%C3%A9",
		Headers: map[string]string{"host": "example.execute-api.eu-west-1.amazonaws.com"}}
	ev.RequestContext.HTTP.Method = "GET"
	ev.RequestContext.HTTP.Path = "/put"
	body, _ := json.Marshal(ev)
	resp := invokeEmulator(t, invoke, body)
	if resp.StatusCode != 200 || resp.Body != "stored été" {
		t.Errorf("GET /put answered %+v, want 200 with body %q", resp, "stored été")
	}
	if item, _ := ddb.Item("notes-notes", "note"); item != `{"key":{"S":"note"},"value":{"B":"w6l0w6k="}}` {
		t.Errorf("the table holds %s", item)
	}
}
