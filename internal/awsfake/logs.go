package awsfake

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"
)

type logGroup struct {
	name      string
	created   int64
	retention int
	tags      map[string]string
}

// logs serves CloudWatch Logs (JSON 1.1, X-Amz-Target Logs_20140328.*).
func (s *Server) logs(w http.ResponseWriter, r *http.Request, body []byte) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "Logs_20140328.")
	var in map[string]any
	json.Unmarshal(body, &in)
	name, _ := in["logGroupName"].(string)
	fail := func(code, msg string) {
		writeJSON(w, 400, map[string]any{"__type": code, "message": msg})
	}
	if arn, ok := in["resourceArn"].(string); ok {
		name = strings.TrimSuffix(arn[strings.Index(arn, ":log-group:")+len(":log-group:"):], ":*")
	}
	g := s.logGroups[name]
	switch op {
	case "CreateLogGroup":
		if g != nil {
			fail("ResourceAlreadyExistsException", "The specified log group already exists")
			return
		}
		s.logGroups[name] = &logGroup{name: name, created: time.Now().UnixMilli(), tags: tagsOf(in["tags"])}
		writeJSON(w, 200, map[string]any{})
	case "DescribeLogGroups":
		prefix, _ := in["logGroupNamePrefix"].(string)
		var names []string
		for n := range s.logGroups {
			if strings.HasPrefix(n, prefix) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		out := []any{}
		for _, n := range names {
			g := s.logGroups[n]
			v := map[string]any{"logGroupName": n, "arn": s.arn("logs", "log-group:"+n+":*"), "logGroupArn": s.arn("logs", "log-group:"+n),
				"creationTime": g.created, "storedBytes": 0, "metricFilterCount": 0, "logGroupClass": "STANDARD"}
			if g.retention > 0 {
				v["retentionInDays"] = g.retention
			}
			out = append(out, v)
		}
		writeJSON(w, 200, map[string]any{"logGroups": out})
	case "ListTagsForResource", "ListTagsLogGroup":
		if g == nil {
			fail("ResourceNotFoundException", "The specified log group does not exist.")
			return
		}
		writeJSON(w, 200, map[string]any{"tags": g.tags})
	case "PutRetentionPolicy", "DeleteRetentionPolicy":
		if g == nil {
			fail("ResourceNotFoundException", "The specified log group does not exist.")
			return
		}
		n, _ := in["retentionInDays"].(float64)
		g.retention = int(n)
		writeJSON(w, 200, map[string]any{})
	case "DeleteLogGroup":
		if g == nil {
			fail("ResourceNotFoundException", "The specified log group does not exist.")
			return
		}
		delete(s.logGroups, name)
		writeJSON(w, 200, map[string]any{})
	default:
		fail("InvalidOperationException", "awsfake does not serve the CloudWatch Logs operation "+op)
	}
}
