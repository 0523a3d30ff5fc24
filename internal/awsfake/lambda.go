package awsfake

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

type function struct {
	config     map[string]any
	zip        []byte
	tags       map[string]string
	statements []map[string]any
	run        *running
	url        *functionURL
}

// lambda serves Lambda's REST JSON API: functions and their permissions.
func (s *Server) lambda(w http.ResponseWriter, r *http.Request, body []byte) {
	parts, in := request(r, body)
	if len(parts) >= 2 && parts[1] == "tags" {
		arn := strings.Join(parts[2:], "/")
		f := s.functions[arn[strings.LastIndex(arn, ":")+1:]]
		if f == nil {
			restError(w, 404, "ResourceNotFoundException", "Function not found: "+arn)
			return
		}
		writeJSON(w, 200, map[string]any{"Tags": f.tags})
		return
	}
	// Lambda's API dates each call: functions are under 2015-03-31, their
	// URLs under 2021-10-31.
	name, restParts, ok := lambdaService.member(w, r, parts, "", "functions", func() { s.createFunction(w, in) })
	if !ok {
		return
	}
	if i := strings.LastIndex(name, ":function:"); i >= 0 {
		name = name[i+len(":function:"):]
	}
	f := s.functions[name]
	if f == nil {
		restError(w, 404, "ResourceNotFoundException", "Function not found: "+s.arn("lambda", "function:"+name))
		return
	}
	rest := strings.Join(restParts, "/")
	switch {
	case rest == "" && r.Method == "GET":
		writeJSON(w, 200, map[string]any{"Configuration": f.config, "Code": map[string]any{"RepositoryType": "S3", "Location": s.URL + "/code/" + name}, "Tags": f.tags})
	case rest == "configuration" && r.Method == "GET":
		writeJSON(w, 200, f.config)
	case rest == "url":
		s.functionURLConfig(w, r, name, f, in)
	case rest == "" && r.Method == "DELETE":
		f.stop()
		f.closeURL()
		delete(s.functions, name)
		w.WriteHeader(204)
	case rest == "versions" && r.Method == "GET":
		writeJSON(w, 200, map[string]any{"Versions": []any{f.config}})
	case rest == "code-signing-config" && r.Method == "GET":
		writeJSON(w, 200, map[string]any{"FunctionName": name})
	case rest == "concurrency" && r.Method == "GET":
		writeJSON(w, 200, map[string]any{})
	case rest == "policy" && r.Method == "POST":
		sid, _ := in["StatementId"].(string)
		for _, st := range f.statements {
			if st["Sid"] == sid {
				restError(w, 409, "ResourceConflictException", "The statement id ("+sid+") provided already exists.")
				return
			}
		}
		st := map[string]any{"Sid": sid, "Effect": "Allow", "Action": in["Action"], "Resource": f.config["FunctionArn"]}
		principal, _ := in["Principal"].(string)
		if principal == "*" {
			st["Principal"] = "*"
		} else {
			st["Principal"] = map[string]any{"Service": principal}
		}
		cond := map[string]any{}
		if src, ok := in["SourceArn"].(string); ok {
			cond["ArnLike"] = map[string]any{"AWS:SourceArn": src}
		}
		if t, ok := in["FunctionUrlAuthType"].(string); ok {
			cond["StringEquals"] = map[string]any{"lambda:FunctionUrlAuthType": t}
		}
		if len(cond) > 0 {
			st["Condition"] = cond
		}
		f.statements = append(f.statements, st)
		text, _ := json.Marshal(st)
		writeJSON(w, 201, map[string]any{"Statement": string(text)})
	case rest == "policy" && r.Method == "GET":
		if len(f.statements) == 0 {
			restError(w, 404, "ResourceNotFoundException", "The resource you requested does not exist.")
			return
		}
		text, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Id": "default", "Statement": f.statements})
		writeJSON(w, 200, map[string]any{"Policy": string(text), "RevisionId": s.newID("rev-")})
	case strings.HasPrefix(rest, "policy/") && r.Method == "DELETE":
		sid := strings.TrimPrefix(rest, "policy/")
		kept := f.statements[:0]
		for _, st := range f.statements {
			if st["Sid"] != sid {
				kept = append(kept, st)
			}
		}
		if len(kept) == len(f.statements) {
			restError(w, 404, "ResourceNotFoundException", "No policy is associated with the given resource.")
			return
		}
		f.statements = kept
		w.WriteHeader(204)
	default:
		lambdaService.unserved(w, r)
	}
}

func (s *Server) createFunction(w http.ResponseWriter, in map[string]any) {
	name, _ := in["FunctionName"].(string)
	if s.functions[name] != nil {
		restError(w, 409, "ResourceConflictException", "Function already exist: "+name)
		return
	}
	code, _ := in["Code"].(map[string]any)
	zipB64, _ := code["ZipFile"].(string)
	zip, err := base64.StdEncoding.DecodeString(zipB64)
	if err != nil || len(zip) == 0 {
		restError(w, 400, "InvalidParameterValueException", "awsfake takes a function's code as ZipFile only")
		return
	}
	sum := sha256.Sum256(zip)
	env := map[string]any{"Variables": map[string]any{}}
	if e, ok := in["Environment"].(map[string]any); ok && e["Variables"] != nil {
		env = map[string]any{"Variables": e["Variables"]}
	}
	arch := in["Architectures"]
	if arch == nil {
		arch = []any{"x86_64"}
	}
	cfg := map[string]any{
		"FunctionName": name, "FunctionArn": s.arn("lambda", "function:"+name), "Runtime": in["Runtime"], "Role": in["Role"],
		"Handler": in["Handler"], "CodeSize": len(zip), "CodeSha256": base64.StdEncoding.EncodeToString(sum[:]),
		"Description": "", "Timeout": orNumber(in["Timeout"], 3), "MemorySize": orNumber(in["MemorySize"], 128),
		"LastModified": now(), "Version": "$LATEST", "Environment": env, "TracingConfig": map[string]any{"Mode": "PassThrough"},
		"RevisionId": s.newID("rev-"), "State": "Active", "LastUpdateStatus": "Successful", "PackageType": "Zip",
		"Architectures": arch, "EphemeralStorage": map[string]any{"Size": 512},
		"LoggingConfig": map[string]any{"LogFormat": "Text", "LogGroup": "/aws/lambda/" + name},
		"SnapStart":     map[string]any{"ApplyOn": "None", "OptimizationStatus": "Off"},
	}
	s.functions[name] = &function{config: cfg, zip: zip, tags: tagsOf(in["Tags"])}
	writeJSON(w, 201, cfg)
}

func orNumber(v any, def float64) any {
	if n, ok := v.(float64); ok && n > 0 {
		return n
	}
	return def
}
