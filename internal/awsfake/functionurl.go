package awsfake

import (
	"io"
	"net"
	"net/http"
	"time"
)

// functionURL is a function's URL: its configuration and the listener on
// 127.0.0.1 that stands for https://ID.lambda-url.REGION.on.aws/.
type functionURL struct {
	config map[string]any
	srv    *http.Server
}

func (f *function) closeURL() {
	if f.url != nil {
		f.url.srv.Close()
		f.url = nil
	}
}

// functionURLConfig serves CreateFunctionUrlConfig, GetFunctionUrlConfig
// and DeleteFunctionUrlConfig for the unqualified function: auth type
// NONE, buffered, no CORS, which is what the aws platform deploys.
func (s *Server) functionURLConfig(w http.ResponseWriter, r *http.Request, name string, f *function, in map[string]any) {
	if q := r.URL.Query().Get("Qualifier"); q != "" {
		restError(w, 400, "InvalidParameterValueException", "awsfake serves the URL of a function's unqualified version only, not of "+q)
		return
	}
	switch r.Method {
	case "POST":
		if f.url != nil {
			restError(w, 409, "ResourceConflictException", "Failed to create function url config for [functionArn = "+f.config["FunctionArn"].(string)+"]. Error message:  FunctionUrlConfig exists for this Lambda function")
			return
		}
		for k, v := range in {
			switch {
			case k == "AuthType" && v == "NONE", k == "InvokeMode" && v == "BUFFERED":
			default:
				restError(w, 400, "InvalidParameterValueException", "awsfake serves function URLs with AuthType NONE, InvokeMode BUFFERED and no CORS, not "+k)
				return
			}
		}
		if in["AuthType"] != "NONE" {
			restError(w, 400, "ValidationException", "1 validation error detected: Value null at 'authType' failed to satisfy constraint: Member must not be null")
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			restError(w, 500, "ServiceException", "awsfake cannot listen on 127.0.0.1: "+err.Error())
			return
		}
		u := &functionURL{config: map[string]any{
			"FunctionUrl": "http://" + ln.Addr().String() + "/", "FunctionArn": f.config["FunctionArn"], "AuthType": "NONE",
			"InvokeMode": "BUFFERED", "CreationTime": now(),
		}}
		u.srv = &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.callURL(name, w, r)
		})}
		go u.srv.Serve(ln)
		f.url = u
		writeJSON(w, 201, u.config)
	case "GET":
		if f.url == nil {
			restError(w, 404, "ResourceNotFoundException", "The resource you requested does not exist.")
			return
		}
		out := map[string]any{"LastModifiedTime": f.url.config["CreationTime"]}
		for k, v := range f.url.config {
			out[k] = v
		}
		writeJSON(w, 200, out)
	case "DELETE":
		if f.url == nil {
			restError(w, 404, "ResourceNotFoundException", "The resource you requested does not exist.")
			return
		}
		f.closeURL()
		w.WriteHeader(204)
	default:
		lambdaService.unserved(w, r)
	}
}

// callURL serves a request to a function's URL. As on AWS, a URL whose
// auth type is NONE still needs the function's policy to allow anyone
// lambda:InvokeFunctionUrl; without it the answer is 403.
func (s *Server) callURL(name string, w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	f := s.functions[name]
	allowed := false
	if f != nil {
		for _, st := range f.statements {
			if st["Action"] == "lambda:InvokeFunctionUrl" && st["Principal"] == "*" {
				allowed = true
			}
		}
	}
	emulator := s.opts.Emulator
	s.mu.Unlock()
	if !allowed {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"Message":"Forbidden"}`)
		return
	}
	ev := event(r, body, "$default", nil)
	ev.RequestContext.APIID, ev.RequestContext.Stage = "", "$default"
	s.answer(w, f, emulator, ev)
}
