package awsfake

import (
	"net"
	"net/http"
	"strings"
	"time"
)

type api struct {
	id, endpoint string
	config       map[string]any
	tags         map[string]string
	stages       map[string]map[string]any
	routes       map[string]map[string]any
	integrations map[string]map[string]any
	srv          *http.Server
}

func (a *api) close() {
	if a.srv != nil {
		a.srv.Close()
	}
}

// apigateway serves API Gateway v2's REST JSON API for HTTP APIs.
func (s *Server) apigateway(w http.ResponseWriter, r *http.Request, body []byte) {
	parts, in := request(r, body)
	id, _, ok := apiGatewayService.member(w, r, parts, "v2", "apis", func() { s.createAPI(w, in) })
	if !ok {
		return
	}
	a := s.apis[id]
	if a == nil {
		restError(w, 404, "NotFoundException", "Invalid API identifier specified "+Account+":"+id)
		return
	}
	if len(parts) == 3 {
		switch r.Method {
		case "GET":
			writeJSON(w, 200, a.config)
		case "DELETE":
			a.close()
			delete(s.apis, a.id)
			w.WriteHeader(204)
		default:
			apiGatewayService.unserved(w, r)
		}
		return
	}
	kinds := map[string]struct {
		coll  map[string]map[string]any
		idKey string
	}{
		"stages": {a.stages, "stageName"}, "routes": {a.routes, "routeId"}, "integrations": {a.integrations, "integrationId"},
	}
	k, ok := kinds[parts[3]]
	if !ok {
		apiGatewayService.unserved(w, r)
		return
	}
	if len(parts) == 4 && r.Method == "POST" {
		obj := map[string]any{}
		for key, v := range in {
			obj[key] = v
		}
		id := ""
		switch parts[3] {
		case "stages":
			id, _ = in["stageName"].(string)
			obj["createdDate"], obj["lastUpdatedDate"] = time.Now().UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339)
			obj["defaultRouteSettings"] = map[string]any{"detailedMetricsEnabled": false}
			obj["routeSettings"] = map[string]any{}
			if obj["tags"] == nil {
				obj["tags"] = map[string]any{}
			}
		case "routes":
			id = s.newID("r")
			obj["apiKeyRequired"], obj["authorizationType"] = false, "NONE"
		case "integrations":
			id = s.newID("i")
			obj["connectionType"], obj["timeoutInMillis"] = "INTERNET", 30000
		}
		if _, dup := k.coll[id]; dup {
			restError(w, 409, "ConflictException", parts[3]+" already exist: "+id)
			return
		}
		obj[k.idKey] = id
		k.coll[id] = obj
		writeJSON(w, 201, obj)
		return
	}
	if len(parts) != 5 {
		apiGatewayService.unserved(w, r)
		return
	}
	obj := k.coll[parts[4]]
	if obj == nil {
		restError(w, 404, "NotFoundException", "Invalid "+strings.TrimSuffix(parts[3], "s")+" identifier specified "+parts[4])
		return
	}
	switch r.Method {
	case "GET":
		writeJSON(w, 200, obj)
	case "DELETE":
		delete(k.coll, parts[4])
		w.WriteHeader(204)
	default:
		apiGatewayService.unserved(w, r)
	}
}

// createAPI makes an HTTP API and serves it on a port of its own, its
// endpoint.
func (s *Server) createAPI(w http.ResponseWriter, in map[string]any) {
	if in["protocolType"] != "HTTP" {
		restError(w, 400, "BadRequestException", "awsfake serves HTTP APIs only")
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		restError(w, 500, "InternalServerError", err.Error())
		return
	}
	a := &api{id: s.newID(""), endpoint: "http://" + ln.Addr().String(), tags: tagsOf(in["tags"]),
		stages: map[string]map[string]any{}, routes: map[string]map[string]any{}, integrations: map[string]map[string]any{}}
	a.config = map[string]any{}
	for k, v := range in {
		a.config[k] = v
	}
	a.config["apiId"], a.config["apiEndpoint"] = a.id, a.endpoint
	a.config["createdDate"] = time.Now().UTC().Format(time.RFC3339)
	a.config["disableExecuteApiEndpoint"] = false
	a.config["tags"] = a.tags
	a.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.call(a, w, r) }), ReadHeaderTimeout: 30 * time.Second}
	go a.srv.Serve(ln)
	s.apis[a.id] = a
	writeJSON(w, 201, a.config)
}
