package awslambda

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// Running reports whether the process runs inside Lambda (or its runtime
// interface emulator): the Runtime API's address is in its environment.
func Running() bool { return os.Getenv("AWS_LAMBDA_RUNTIME_API") != "" }

// Start serves h through the Runtime API until the process is stopped;
// it does not return.
func Start(h http.Handler) { lambda.Start(Handler(h)) }

// Handler is the Lambda handler that serves h for API Gateway HTTP API
// events. An event that does not make a request is answered with an
// error, which API Gateway turns into a 500; whatever the handler does,
// panics included, is h's own to answer.
func Handler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		req, err := Request(ctx, ev)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		w := newResponse()
		h.ServeHTTP(w, req)
		return w.event(), nil
	}
}

// Request makes the http.Request an event stands for: method, raw path
// and query, headers (cookies in a Cookie header), body, host and the
// caller's address.
func Request(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (*http.Request, error) {
	method := ev.RequestContext.HTTP.Method
	if method == "" {
		return nil, fmt.Errorf("the event has no requestContext.http.method: it is not an API Gateway HTTP API event of payload format 2.0")
	}
	path := ev.RawPath
	if path == "" {
		path = ev.RequestContext.HTTP.Path
	}
	if path == "" {
		path = "/"
	}
	target := path
	if ev.RawQueryString != "" {
		target += "?" + ev.RawQueryString
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, fmt.Errorf("the event's path and query %q do not make a URL: %w", target, err)
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
			return nil, fmt.Errorf("the event's body is marked base64 but is not: %w", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.RequestURI = target
	for k, v := range ev.Headers {
		// API Gateway joins repeated headers with commas.
		req.Header.Set(k, v)
	}
	if len(ev.Cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(ev.Cookies, "; "))
	}
	req.Host = ev.RequestContext.DomainName
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	req.RemoteAddr = ev.RequestContext.HTTP.SourceIP
	req.ContentLength = int64(len(body))
	return req, nil
}

// response is the http.ResponseWriter whose result becomes the event's
// response.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newResponse() *response { return &response{header: http.Header{}} }

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *response) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// event is the response as API Gateway takes it: Set-Cookie headers as
// cookies, others joined with commas, and a body that is not text in
// base64.
func (r *response) event() events.APIGatewayV2HTTPResponse {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	body := r.body.Bytes()
	if r.header.Get("Content-Type") == "" && len(body) > 0 {
		r.header.Set("Content-Type", http.DetectContentType(body))
	}
	out := events.APIGatewayV2HTTPResponse{StatusCode: r.status, Headers: map[string]string{}}
	for k, v := range r.header {
		if k == "Set-Cookie" {
			out.Cookies = append(out.Cookies, v...)
			continue
		}
		out.Headers[k] = strings.Join(v, ",")
	}
	if textual(r.header.Get("Content-Type")) && utf8.Valid(body) {
		out.Body = string(body)
	} else {
		out.Body = base64.StdEncoding.EncodeToString(body)
		out.IsBase64Encoded = true
	}
	return out
}

// textual reports whether a content type is text that can travel as a
// JSON string unchanged.
func textual(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return contentType == ""
	}
	switch {
	case strings.HasPrefix(mt, "text/"), mt == "application/json", mt == "application/xml",
		mt == "application/javascript", strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"),
		mt == "application/x-www-form-urlencoded":
		return true
	}
	return false
}
