package dynamofake

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options are a server's region and the credentials it accepts.
type Options struct {
	// Region is the region the server is in; requests must be signed for
	// it. Default us-east-1.
	Region string
	// AccessKeyID and SecretAccessKey are the only credentials accepted.
	// Default AKIDTETHERFAKE and a fixed secret.
	AccessKeyID, SecretAccessKey string
	// SessionToken, when set, must come with every request, as with a
	// role's temporary credentials (X-Amz-Security-Token).
	SessionToken string
	// Also are further credentials accepted, each with its own secret and
	// session token: a Lambda function's role's beside the deployer's.
	Also []Credentials
}

// Credentials are an access key, its secret and the session token that
// must come with it ("" for none).
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// Server is a running fake DynamoDB.
type Server struct {
	// URL is where it listens, http://127.0.0.1:PORT.
	URL  string
	opts Options
	srv  *http.Server
	done chan struct{}

	requests atomic.Int64

	mu     sync.Mutex
	tables map[string]*table
}

// Start starts a server on a free port of 127.0.0.1.
func Start(opts Options) (*Server, error) {
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID = "AKIDTETHERFAKE"
	}
	if opts.SecretAccessKey == "" {
		opts.SecretAccessKey = "tether-fake-secret-access-key"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("dynamofake: cannot listen on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, tables: map[string]*table{}, done: make(chan struct{})}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Options returns the server's options, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Env is the environment that points aws-sdk-go-v2 at the server with its
// credentials, and keeps it from reading anything else: no shared files,
// no profile, no instance metadata.
func (s *Server) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.URL,
		"AWS_ACCESS_KEY_ID=" + s.opts.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + s.opts.SecretAccessKey,
		"AWS_SESSION_TOKEN=" + s.opts.SessionToken,
		"AWS_REGION=" + s.opts.Region,
		"AWS_CONFIG_FILE=/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"AWS_PROFILE=",
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// Requests is the number of requests the server has received.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// apiError is an error as DynamoDB answers it: an HTTP status and a body
// of {"__type": "...#Code", "message": "..."}.
type apiError struct {
	status int
	// coral marks the errors of AWS's request layer (authentication),
	// whose type has another namespace than DynamoDB's own.
	coral   bool
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func validation(format string, args ...any) *apiError {
	return &apiError{status: 400, code: "ValidationException", message: fmt.Sprintf(format, args...)}
}

func authError(code, message string) *apiError {
	return &apiError{status: 400, coral: true, code: code, message: message}
}

const (
	target     = "DynamoDB_20120810."
	jsonType   = "application/x-amz-json-1.0"
	maxRequest = 16 << 20
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	out, err := s.serve(r)
	var ae *apiError
	if err != nil && !errors.As(err, &ae) {
		ae = &apiError{status: 500, code: "InternalServerError", message: err.Error()}
	}
	status := http.StatusOK
	if ae != nil {
		ns := "com.amazonaws.dynamodb.v20120810#"
		if ae.coral {
			ns = "com.amazon.coral.service#"
		}
		status = ae.status
		out = map[string]string{"__type": ns + ae.code, "message": ae.message}
	}
	body, jerr := json.Marshal(out)
	if jerr != nil {
		status, body = 500, []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.Header().Set("X-Amzn-Requestid", fmt.Sprintf("TETHERFAKE%08d", s.requests.Load()))
	w.WriteHeader(status)
	w.Write(body)
}

func (s *Server) serve(r *http.Request) (any, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		return nil, &apiError{status: 404, coral: true, code: "UnknownOperationException", message: "DynamoDB answers POST / only"}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		return nil, &apiError{status: 400, coral: true, code: "SerializationException", message: "cannot read the request: " + err.Error()}
	}
	if len(body) > maxRequest {
		return nil, &apiError{status: 413, coral: true, code: "RequestEntityTooLarge", message: "Request entity too large"}
	}
	if err := s.authenticate(r, body); err != nil {
		return nil, err
	}
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), target)
	if !ok {
		return nil, &apiError{status: 400, coral: true, code: "UnknownOperationException", message: "X-Amz-Target must be DynamoDB_20120810.OPERATION"}
	}
	if ct := r.Header.Get("Content-Type"); ct != jsonType {
		return nil, &apiError{status: 400, coral: true, code: "SerializationException", message: "Content-Type must be " + jsonType + ", not " + ct}
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, &apiError{status: 400, coral: true, code: "SerializationException", message: "the request body is not a JSON object: " + err.Error()}
	}
	switch op {
	case "GetItem":
		return s.getItem(in)
	case "PutItem":
		return s.putItem(in)
	case "DeleteItem":
		return s.deleteItem(in)
	case "DescribeTable":
		return s.describeTable(in)
	case "CreateTable":
		return s.createTable(in)
	case "DeleteTable":
		return s.deleteTable(in)
	case "DescribeContinuousBackups":
		return s.describeContinuousBackups(in)
	case "DescribeTimeToLive":
		return s.describeTimeToLive(in)
	case "ListTagsOfResource":
		return s.listTagsOfResource(in)
	case "TagResource":
		return s.tagResource(in)
	case "UntagResource":
		return s.untagResource(in)
	}
	return nil, &apiError{status: 400, coral: true, code: "UnknownOperationException", message: "dynamofake does not serve " + op}
}
