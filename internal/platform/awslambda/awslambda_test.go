package awslambda

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

func event(method, rawPath, query string) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: rawPath, RawQueryString: query, Headers: map[string]string{}}
	ev.RequestContext.HTTP.Method = method
	ev.RequestContext.HTTP.Path = rawPath
	ev.RequestContext.DomainName = "abc.execute-api.eu-west-1.amazonaws.com"
	ev.RequestContext.HTTP.SourceIP = "192.0.2.1"
	return ev
}

// TestRequest checks what a handler sees of an event.
func TestRequest(t *testing.T) {
	ev := event("POST", "/items/a%20b", "x=1&y=%C3%A9")
	ev.Headers["content-type"] = "application/octet-stream"
	ev.Headers["x-many"] = "a,b"
	ev.Cookies = []string{"s=1", "t=2"}
	ev.Body = base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})
	ev.IsBase64Encoded = true
	req, err := Request(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	got := map[string]any{
		"method": req.Method, "path": req.URL.Path, "query": req.URL.Query().Get("y"), "uri": req.RequestURI,
		"type": req.Header.Get("Content-Type"), "many": req.Header.Get("X-Many"), "cookie": req.Header.Get("Cookie"),
		"body": body, "host": req.Host, "remote": req.RemoteAddr, "length": req.ContentLength,
	}
	want := map[string]any{
		"method": "POST", "path": "/items/a b", "query": "é", "uri": "/items/a%20b?x=1&y=%C3%A9",
		"type": "application/octet-stream", "many": "a,b", "cookie": "s=1; t=2",
		"body": []byte{0, 1, 2, 255}, "host": "abc.execute-api.eu-west-1.amazonaws.com", "remote": "192.0.2.1", "length": int64(4),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

// TestResponse checks the event made of what handlers write.
func TestResponse(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    events.APIGatewayV2HTTPResponse
	}{
		{"text", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello") },
			events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, Body: "Hello"}},
		{"status and headers", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("X-A", "1")
			w.Header().Add("X-A", "2")
			http.SetCookie(w, &http.Cookie{Name: "s", Value: "1"})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			io.WriteString(w, `{}`)
		}, events.APIGatewayV2HTTPResponse{StatusCode: 201, Headers: map[string]string{"X-A": "1,2", "Content-Type": "application/json"}, Cookies: []string{"s=1"}, Body: "{}"}},
		{"binary", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte{0x89, 'P', 'N', 'G'})
		}, events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "image/png"}, Body: base64.StdEncoding.EncodeToString([]byte{0x89, 'P', 'N', 'G'}), IsBase64Encoded: true}},
		{"nothing written", func(w http.ResponseWriter, r *http.Request) {},
			events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{}}},
		{"the handler's error", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
			events.APIGatewayV2HTTPResponse{StatusCode: 404, Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff"}, Body: "404 page not found\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Handler(c.handler)(context.Background(), event("GET", "/", ""))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
}

// TestNotAnHTTPEvent checks that an event of another kind is refused.
func TestNotAnHTTPEvent(t *testing.T) {
	_, err := Handler(http.NotFoundHandler())(context.Background(), events.APIGatewayV2HTTPRequest{})
	if err == nil {
		t.Fatal("an event with no method was served")
	}
}
