package awsfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetherhq/tether/internal/dynamofake"
)

// Account is the account every ARN names.
const Account = "123456789012"

// secretAccessKey is the secret of the server's access key: DynamoDB's
// requests are checked against it.
const secretAccessKey = "tether-fake-secret"

// roleCredentials are the temporary credentials a function runs with, as Lambda gives
// a function its role's; DynamoDB accepts them besides the server's key.
var roleCredentials = dynamofake.Credentials{AccessKeyID: "ASIATETHERFAKEROLE", SecretAccessKey: "tether-fake-role-secret", SessionToken: "tether-fake-role-session"}

// Options configure a server.
type Options struct {
	// Region is the region ARNs name. Default eu-west-1.
	Region string
	// AccessKeyID is the only access key accepted. Default AKIDTETHERFAKE.
	AccessKeyID string
	// Emulator is the aws-lambda-rie executable that runs functions when
	// an API is called; without it a call answers 502 saying so.
	Emulator string
}

// Server is a running fake.
type Server struct {
	// URL is the control plane's address, for AWS_ENDPOINT_URL.
	URL  string
	opts Options
	srv  *http.Server
	ids  atomic.Int64
	// dynamo serves DynamoDB, control and data plane, on its tables.
	dynamo *dynamofake.Server

	mu        sync.Mutex
	roles     map[string]*role
	logGroups map[string]*logGroup
	functions map[string]*function
	apis      map[string]*api
	sessions  []*Session
}

// Start starts a server on a free port of 127.0.0.1.
func Start(opts Options) (*Server, error) {
	if opts.Region == "" {
		opts.Region = "eu-west-1"
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID = "AKIDTETHERFAKE"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("awsfake: cannot listen on 127.0.0.1: %w", err)
	}
	dynamo, err := dynamofake.Start(dynamofake.Options{Region: opts.Region, AccessKeyID: opts.AccessKeyID, SecretAccessKey: secretAccessKey,
		Also: []dynamofake.Credentials{roleCredentials}})
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, dynamo: dynamo,
		roles: map[string]*role{}, logGroups: map[string]*logGroup{}, functions: map[string]*function{}, apis: map[string]*api{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Item returns the item of a DynamoDB table with a string hash key, as
// DynamoDB's JSON, and whether it is there.
func (s *Server) Item(table, key string) (string, bool) { return s.dynamo.Item(table, key) }

// Env is the environment that points the AWS provider and SDKs at the
// server, with its credentials, and keeps them off the network.
func (s *Server) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + s.URL, "AWS_ACCESS_KEY_ID=" + s.opts.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + secretAccessKey,
		"AWS_REGION=" + s.opts.Region, "AWS_EC2_METADATA_DISABLED=true",
	}
}

// Close stops the server, the APIs' listeners and the functions running.
func (s *Server) Close() error {
	s.mu.Lock()
	for _, a := range s.apis {
		a.close()
	}
	for _, f := range s.functions {
		f.stop()
		f.closeURL()
	}
	s.mu.Unlock()
	s.dynamo.Close()
	return s.srv.Close()
}

// Objects lists what the fake holds, as "kind name": empty once
// everything created was deleted.
func (s *Server) Objects() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n, r := range s.roles {
		out = append(out, "iam role "+n)
		for _, p := range r.attached {
			out = append(out, "iam attachment "+n+" "+p)
		}
		for p := range r.inline {
			out = append(out, "iam role-policy "+n+" "+p)
		}
	}
	for n := range s.logGroups {
		out = append(out, "logs group "+n)
	}
	for n, f := range s.functions {
		out = append(out, "lambda function "+n)
		for _, st := range f.statements {
			out = append(out, "lambda permission "+n+" "+st["Sid"].(string))
		}
		if f.url != nil {
			out = append(out, "lambda url "+n)
		}
	}
	for _, n := range s.dynamo.Tables() {
		out = append(out, "dynamodb table "+n)
	}
	for id, a := range s.apis {
		out = append(out, "apigateway api "+id)
		for k := range a.stages {
			out = append(out, "apigateway stage "+id+" "+k)
		}
		for k := range a.routes {
			out = append(out, "apigateway route "+id+" "+k)
		}
		for k := range a.integrations {
			out = append(out, "apigateway integration "+id+" "+k)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s%08x", prefix, s.ids.Add(1)*2654435761%(1<<32))
}

func (s *Server) arn(service, resource string) string {
	region := s.opts.Region
	if service == "iam" {
		region = ""
	}
	return "arn:aws:" + service + ":" + region + ":" + Account + ":" + resource
}

var scope = regexp.MustCompile(`Credential=([^/]+)/[^/]+/[^/]+/([^/]+)/aws4_request`)

// ServeHTTP routes a request to its service by its credential scope.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m := scope.FindStringSubmatch(r.Header.Get("Authorization"))
	if m != nil && m[2] == "dynamodb" {
		// DynamoDB checks the credentials (the server's or a function's
		// role's) and the signature itself, on the body as it came.
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.dynamo.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case m != nil && m[2] == "sts":
		s.sts(w, r, body, m[1])
		return
	case m == nil && strings.Contains(string(body), "Action=AssumeRoleWithWebIdentity"):
		// The SDKs send it unsigned: the token is the credential.
		s.sts(w, r, body, "")
		return
	}
	if m == nil || m[1] != s.opts.AccessKeyID {
		w.Header().Set("X-Amzn-ErrorType", "UnrecognizedClientException")
		writeJSON(w, 403, map[string]any{"__type": "UnrecognizedClientException", "message": "The security token included in the request is invalid."})
		return
	}
	switch m[2] {
	case "iam":
		s.iam(w, r, body)
	case "logs":
		s.logs(w, r, body)
	case "lambda":
		s.lambda(w, r, body)
	case "apigateway":
		s.apigateway(w, r, body)
	default:
		restError(w, 400, "UnsupportedOperation", "awsfake does not serve the service "+m[2])
	}
}

// request reads a REST request: its path's segments, unescaped, and its
// JSON body.
func request(r *http.Request, body []byte) ([]string, map[string]any) {
	parts := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	for i := range parts {
		parts[i], _ = url.PathUnescape(parts[i])
	}
	var in map[string]any
	json.Unmarshal(body, &in)
	return parts, in
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// restError answers a REST JSON service's error (Lambda, API Gateway).
func restError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("X-Amzn-ErrorType", code)
	writeJSON(w, status, map[string]any{"message": message, "Message": message, "__type": code})
}

// restService is a REST JSON service (Lambda, API Gateway): its name, as
// an error names it, and its error code for a request it cannot take.
type restService struct {
	name, badRequest string
}

var (
	lambdaService     = restService{"Lambda", "InvalidRequestContentException"}
	apiGatewayService = restService{"API Gateway", "BadRequestException"}
)

// unserved answers that the fake does not serve r, naming the method and
// path, so that a provider's call the fake lacks fails loudly.
func (svc restService) unserved(w http.ResponseWriter, r *http.Request) {
	restError(w, 400, svc.badRequest, "awsfake does not serve "+svc.name+"'s "+r.Method+" "+r.URL.Path)
}

// member routes a request whose path parts are VERSION/COLLECTION/...
// (version "" takes any): a POST to the collection itself goes to create;
// a path naming a member gives its id and the parts after it. ok is false
// when the request has been answered, by create or as unserved.
func (svc restService) member(w http.ResponseWriter, r *http.Request, parts []string, version, collection string, create func()) (id string, rest []string, ok bool) {
	switch {
	case len(parts) < 2 || parts[1] != collection || version != "" && parts[0] != version:
		svc.unserved(w, r)
	case len(parts) == 2 && r.Method == "POST":
		create()
	case len(parts) == 2:
		svc.unserved(w, r)
	default:
		return parts[2], parts[3:], true
	}
	return "", nil, false
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000+0000") }

// tagsOf reads the tags of a JSON request, a map of strings.
func tagsOf(v any) map[string]string {
	out := map[string]string{}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			out[k], _ = x.(string)
		}
	}
	return out
}

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
