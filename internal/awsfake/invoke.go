package awsfake

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// running is a function's code run under the emulator.
type running struct {
	mu     sync.Mutex // the emulator takes one invocation at a time
	dir    string
	cmd    *exec.Cmd
	invoke string
}

func (f *function) stop() {
	if f.run != nil {
		f.run.cmd.Process.Kill()
		f.run.cmd.Wait()
		os.RemoveAll(f.run.dir)
		f.run = nil
	}
}

// call serves a request to an API's endpoint: the route it matches leads
// to a Lambda integration, whose function answers an API Gateway payload
// 2.0 event.
func (s *Server) call(a *api, w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	if _, ok := a.stages["$default"]; !ok {
		s.mu.Unlock()
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	route, params := match(a, r.Method, r.URL.Path)
	var f *function
	if route != nil {
		target, _ := route["target"].(string)
		integ := a.integrations[strings.TrimPrefix(target, "integrations/")]
		uri, _ := integ["integrationUri"].(string)
		if i := strings.LastIndex(uri, ":function:"); i >= 0 {
			f = s.functions[strings.TrimSuffix(uri[i+len(":function:"):], "/invocations")]
		}
	}
	emulator := s.opts.Emulator
	s.mu.Unlock()
	if route == nil {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	if f == nil {
		http.Error(w, `{"message":"Internal Server Error"}`, http.StatusInternalServerError)
		return
	}
	ev := event(r, body, route["routeKey"].(string), params)
	ev.RequestContext.APIID, ev.RequestContext.Stage = a.id, "$default"
	s.answer(w, f, emulator, ev)
}

// event is the payload 2.0 event of a request, as API Gateway and
// function URLs send it.
func event(r *http.Request, body []byte, routeKey string, params map[string]string) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: routeKey, RawPath: r.URL.Path, RawQueryString: r.URL.RawQuery,
		Headers: map[string]string{}, PathParameters: params, Body: base64.StdEncoding.EncodeToString(body), IsBase64Encoded: true}
	for k, v := range r.Header {
		ev.Headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	ev.Headers["host"] = r.Host
	ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.Path = r.Method, r.URL.Path
	ev.RequestContext.DomainName = r.Host
	return ev
}

// answer runs f on ev and writes its response.
func (s *Server) answer(w http.ResponseWriter, f *function, emulator string, ev events.APIGatewayV2HTTPRequest) {
	resp, err := s.invoke(f, emulator, ev)
	if err != nil {
		http.Error(w, `{"message":"Internal Server Error"}`+"\n"+err.Error(), http.StatusInternalServerError)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	out := []byte(resp.Body)
	if resp.IsBase64Encoded {
		out, _ = base64.StdEncoding.DecodeString(resp.Body)
	}
	if resp.StatusCode == 0 {
		resp.StatusCode = 200
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// match finds the route of an API a request takes: the most specific
// key first, then $default.
func match(a *api, method, path string) (map[string]any, map[string]string) {
	var best map[string]any
	var bestParams map[string]string
	bestScore := -1
	for _, rt := range a.routes {
		key, _ := rt["routeKey"].(string)
		if key == "$default" {
			if bestScore < 0 {
				best, bestScore = rt, 0
			}
			continue
		}
		m, p, ok := strings.Cut(key, " ")
		if !ok || (m != "ANY" && m != method) {
			continue
		}
		params, score, ok := matchPath(p, path)
		if ok && score > bestScore {
			best, bestParams, bestScore = rt, params, score
		}
	}
	return best, bestParams
}

func matchPath(pattern, path string) (map[string]string, int, bool) {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	params := map[string]string{}
	score := 1
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "+}") {
			if i >= len(xs) {
				return nil, 0, false
			}
			params[p[1:len(p)-2]] = strings.Join(xs[i:], "/")
			return params, score, true
		}
		if i >= len(xs) {
			return nil, 0, false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			params[p[1:len(p)-1]] = xs[i]
			continue
		}
		if p != xs[i] {
			return nil, 0, false
		}
		score += 2
	}
	return params, score, len(ps) == len(xs)
}

// invoke runs f's code under the emulator, starting it on first use.
func (s *Server) invoke(f *function, emulator string, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var out events.APIGatewayV2HTTPResponse
	s.mu.Lock()
	if f.run == nil {
		if emulator == "" {
			s.mu.Unlock()
			return out, fmt.Errorf("awsfake: no Lambda runtime interface emulator to run %s", f.config["FunctionName"])
		}
		run, err := start(f, emulator, s.runtimeEnv())
		if err != nil {
			s.mu.Unlock()
			return out, err
		}
		f.run = run
	}
	run := f.run
	s.mu.Unlock()
	run.mu.Lock()
	defer run.mu.Unlock()
	payload, _ := json.Marshal(ev)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Post("http://"+run.invoke+"/2015-03-31/functions/function/invocations", "application/json", bytes.NewReader(payload))
		if err != nil {
			if time.Now().After(deadline) {
				return out, fmt.Errorf("awsfake: the emulator never answered: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(raw, &out); err != nil || strings.Contains(string(raw), `"errorMessage"`) {
			return out, fmt.Errorf("awsfake: the function failed: %s", raw)
		}
		return out, nil
	}
}

// runtimeEnv is what Lambda puts in a function's environment besides its
// variables: the region, its role's temporary credentials (one set for
// every function, which DynamoDB accepts; the fake does not check the
// role's policies) and, since the fake stands for AWS's endpoints,
// DynamoDB's endpoint (the fake's), so that an SDK in the function
// reaches the fake's tables as it would reach AWS's. No shared files, no
// instance metadata.
func (s *Server) runtimeEnv() []string {
	return []string{
		"AWS_REGION=" + s.opts.Region, "AWS_DEFAULT_REGION=" + s.opts.Region,
		"AWS_ACCESS_KEY_ID=" + roleCredentials.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + roleCredentials.SecretAccessKey,
		"AWS_SESSION_TOKEN=" + roleCredentials.SessionToken,
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.URL,
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true",
	}
}

// start unpacks f's zip and runs its bootstrap under the emulator, with
// the function's environment.
func start(f *function, emulator string, platform []string) (*running, error) {
	dir, err := os.MkdirTemp("", "awsfake-fn-")
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(f.zip), int64(len(f.zip)))
	if err != nil {
		return nil, fmt.Errorf("awsfake: the code of %s is not a zip: %v", f.config["FunctionName"], err)
	}
	for _, zf := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(zf.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, zf.Mode()|0o500); err != nil {
			return nil, err
		}
	}
	invoke, api := freeAddr(), freeAddr()
	cmd := exec.Command(emulator, "--runtime-interface-emulator-address", invoke, "--runtime-api-address", api, filepath.Join(dir, "bootstrap"))
	cmd.Dir = dir
	env := append([]string{"PATH=/usr/bin:/bin", "HOME=" + dir, "AWS_LAMBDA_FUNCTION_TIMEOUT=30", "AWS_LAMBDA_FUNCTION_NAME=" + f.config["FunctionName"].(string)}, platform...)
	if e, ok := f.config["Environment"].(map[string]any); ok {
		if vars, ok := e["Variables"].(map[string]any); ok {
			for k, v := range vars {
				env = append(env, fmt.Sprintf("%s=%v", k, v))
			}
		}
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &running{dir: dir, cmd: cmd, invoke: invoke}, nil
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer l.Close()
	return l.Addr().String()
}
