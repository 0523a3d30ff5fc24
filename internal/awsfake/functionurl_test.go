package awsfake

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestFunctionURL checks a function URL's life: created, read, refused
// with 403 until the function's policy lets anyone invoke it (as AWS
// does with auth type NONE), then run (here without an emulator, so a
// 500 saying so), deleted with its listener.
func TestFunctionURL(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func(method, path string, in any) (int, map[string]any) {
		t.Helper()
		body, _ := json.Marshal(in)
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTETHERFAKE/20261126/eu-west-1/lambda/aws4_request, SignedHeaders=host, Signature=0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("bootstrap")
	w.Write([]byte("#!/bin/sh\n"))
	zw.Close()
	if code, out := call("POST", "/2015-03-31/functions", map[string]any{"FunctionName": "app-f", "Runtime": "provided.al2023",
		"Role": "arn:aws:iam::123456789012:role/r", "Handler": "bootstrap", "Code": map[string]any{"ZipFile": base64.StdEncoding.EncodeToString(zb.Bytes())}}); code != 201 {
		t.Fatalf("CreateFunction: %d %v", code, out)
	}
	if code, out := call("POST", "/2021-10-31/functions/app-f/url", map[string]any{"AuthType": "AWS_IAM"}); code != 400 || !strings.Contains(out["message"].(string), "AuthType NONE") {
		t.Errorf("an AWS_IAM URL: %d %v, want a refusal", code, out)
	}
	code, created := call("POST", "/2021-10-31/functions/app-f/url", map[string]any{"AuthType": "NONE"})
	if code != 201 {
		t.Fatalf("CreateFunctionUrlConfig: %d %v", code, created)
	}
	if code, out := call("POST", "/2021-10-31/functions/app-f/url", map[string]any{"AuthType": "NONE"}); code != 409 {
		t.Errorf("a second URL: %d %v, want 409", code, out)
	}
	code, got := call("GET", "/2021-10-31/functions/app-f/url", nil)
	if code != 200 || got["FunctionUrl"] != created["FunctionUrl"] || got["AuthType"] != "NONE" {
		t.Errorf("GetFunctionUrlConfig: %d %v, want %v", code, got, created)
	}
	if got := s.Objects(); !slices.Contains(got, "lambda url app-f") {
		t.Errorf("Objects: %q", got)
	}
	fetch := func() (int, string) {
		t.Helper()
		resp, err := http.Get(created["FunctionUrl"].(string) + "hello")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	if code, body := fetch(); code != 403 || !strings.Contains(body, "Forbidden") {
		t.Errorf("the URL without a permission answered %d %s, want 403 Forbidden", code, body)
	}
	if code, out := call("POST", "/2015-03-31/functions/app-f/policy", map[string]any{"StatementId": "url", "Action": "lambda:InvokeFunctionUrl",
		"Principal": "*", "FunctionUrlAuthType": "NONE"}); code != 201 {
		t.Fatalf("AddPermission: %d %v", code, out)
	}
	if code, body := fetch(); code != 500 || !strings.Contains(body, "no Lambda runtime interface emulator") {
		t.Errorf("the URL with a permission and no emulator answered %d %s, want 500 saying so", code, body)
	}
	if code, out := call("DELETE", "/2021-10-31/functions/app-f/url", nil); code != 204 {
		t.Errorf("DeleteFunctionUrlConfig: %d %v", code, out)
	}
	if code, _ := call("GET", "/2021-10-31/functions/app-f/url", nil); code != 404 {
		t.Errorf("GetFunctionUrlConfig after delete: %d, want 404", code)
	}
	if _, err := http.Get(created["FunctionUrl"].(string)); err == nil {
		t.Errorf("the deleted URL still answers")
	}
}
