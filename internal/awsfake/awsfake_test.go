package awsfake

import (
	"net/http"
	"strings"
	"testing"
)

// TestMatch checks the route an API request takes: the most specific
// route key, greedy {proxy+} paths, then $default.
func TestMatch(t *testing.T) {
	a := &api{routes: map[string]map[string]any{
		"1": {"routeKey": "GET /echo"},
		"2": {"routeKey": "GET /notes/{key+}"},
		"3": {"routeKey": "ANY /items/{id}"},
		"4": {"routeKey": "GET /notes/special"},
		"5": {"routeKey": "$default"},
	}}
	for _, c := range []struct {
		method, path, want, param string
	}{
		{"GET", "/echo", "GET /echo", ""},
		{"POST", "/echo", "$default", ""},
		{"GET", "/notes/a/b", "GET /notes/{key+}", "a/b"},
		{"GET", "/notes/special", "GET /notes/special", ""},
		{"DELETE", "/items/7", "ANY /items/{id}", "7"},
		{"GET", "/elsewhere", "$default", ""},
	} {
		rt, params := match(a, c.method, c.path)
		if rt == nil || rt["routeKey"] != c.want {
			t.Errorf("%s %s took %v, want %s", c.method, c.path, rt, c.want)
			continue
		}
		got := ""
		for _, v := range params {
			got = v
		}
		if got != c.param {
			t.Errorf("%s %s: parameters %v, want %q", c.method, c.path, params, c.param)
		}
	}
}

// TestRefusals checks that a request without the server's key, or for
// what the fake does not serve, fails saying so rather than succeeding
// empty.
func TestRefusals(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		key, service, target string
		status               int
		says                 string
	}{
		{"AKIAOTHER", "logs", "Logs_20140328.CreateLogGroup", 403, "UnrecognizedClientException"},
		{"AKIDTETHERFAKE", "sqs", "", 400, "does not serve the service sqs"},
		{"AKIDTETHERFAKE", "logs", "Logs_20140328.PutLogEvents", 400, "does not serve the CloudWatch Logs operation PutLogEvents"},
	} {
		req, _ := http.NewRequest("POST", s.URL+"/", strings.NewReader("{}"))
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.key+"/20261126/eu-west-1/"+c.service+"/aws4_request, SignedHeaders=host, Signature=0")
		req.Header.Set("X-Amz-Target", c.target)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(b.String(), c.says) {
			t.Errorf("%s %s: %d %s, want %d saying %s", c.service, c.target, resp.StatusCode, b.String(), c.status, c.says)
		}
	}
}
