package awsfake

import (
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

type role struct {
	name, id, arn, policy, created string
	tags                           map[string]string
	attached                       []string
	inline                         map[string]string
}

const iamNS = "https://iam.amazonaws.com/doc/2010-05-08/"

// iam serves the Query protocol: form-encoded actions, XML answers.
func (s *Server) iam(w http.ResponseWriter, r *http.Request, body []byte) {
	q, err := url.ParseQuery(string(body))
	if err != nil {
		iamError(w, 400, "MalformedInput", "awsfake: "+err.Error())
		return
	}
	action, name := q.Get("Action"), q.Get("RoleName")
	rl := s.roles[name]
	if rl == nil && action != "CreateRole" && action != "" {
		iamError(w, 404, "NoSuchEntity", fmt.Sprintf("The role with name %s cannot be found.", name))
		return
	}
	switch action {
	case "CreateRole":
		if rl != nil {
			iamError(w, 409, "EntityAlreadyExists", "Role with name "+name+" already exists.")
			return
		}
		rl = &role{name: name, id: strings.ToUpper(s.newID("AROA")), arn: s.arn("iam", "role/"+name), policy: q.Get("AssumeRolePolicyDocument"),
			created: time.Now().UTC().Format(time.RFC3339), tags: map[string]string{}, inline: map[string]string{}}
		for i := 1; q.Has(fmt.Sprintf("Tags.member.%d.Key", i)); i++ {
			rl.tags[q.Get(fmt.Sprintf("Tags.member.%d.Key", i))] = q.Get(fmt.Sprintf("Tags.member.%d.Value", i))
		}
		s.roles[name] = rl
		iamOK(w, action, "<Role>"+rl.xml()+"</Role>")
	case "GetRole":
		iamOK(w, action, "<Role>"+rl.xml()+"</Role>")
	case "ListRoleTags":
		iamOK(w, action, tagsXML(rl.tags)+"<IsTruncated>false</IsTruncated>")
	case "ListRolePolicies":
		var names []string
		for n := range rl.inline {
			names = append(names, n)
		}
		sort.Strings(names)
		iamOK(w, action, members("PolicyNames", names, func(n string) string { return esc(n) })+"<IsTruncated>false</IsTruncated>")
	case "ListAttachedRolePolicies":
		iamOK(w, action, members("AttachedPolicies", rl.attached, func(a string) string {
			return "<PolicyName>" + esc(a[strings.LastIndex(a, "/")+1:]) + "</PolicyName><PolicyArn>" + esc(a) + "</PolicyArn>"
		})+"<IsTruncated>false</IsTruncated>")
	case "ListInstanceProfilesForRole":
		iamOK(w, action, "<InstanceProfiles/><IsTruncated>false</IsTruncated>")
	case "AttachRolePolicy":
		if !contains(rl.attached, q.Get("PolicyArn")) {
			rl.attached = append(rl.attached, q.Get("PolicyArn"))
		}
		iamOK(w, action, "")
	case "DetachRolePolicy":
		kept := rl.attached[:0]
		found := false
		for _, a := range rl.attached {
			if a == q.Get("PolicyArn") {
				found = true
				continue
			}
			kept = append(kept, a)
		}
		if !found {
			iamError(w, 404, "NoSuchEntity", "Policy "+q.Get("PolicyArn")+" was not found.")
			return
		}
		rl.attached = kept
		iamOK(w, action, "")
	case "PutRolePolicy":
		rl.inline[q.Get("PolicyName")] = q.Get("PolicyDocument")
		iamOK(w, action, "")
	case "GetRolePolicy":
		doc, ok := rl.inline[q.Get("PolicyName")]
		if !ok {
			iamError(w, 404, "NoSuchEntity", "The role policy with name "+q.Get("PolicyName")+" cannot be found.")
			return
		}
		iamOK(w, action, "<RoleName>"+esc(name)+"</RoleName><PolicyName>"+esc(q.Get("PolicyName"))+"</PolicyName><PolicyDocument>"+esc(url.QueryEscape(doc))+"</PolicyDocument>")
	case "DeleteRolePolicy":
		delete(rl.inline, q.Get("PolicyName"))
		iamOK(w, action, "")
	case "DeleteRole":
		if len(rl.attached) > 0 || len(rl.inline) > 0 {
			iamError(w, 409, "DeleteConflict", "Cannot delete entity, must detach all policies first.")
			return
		}
		delete(s.roles, name)
		iamOK(w, action, "")
	default:
		iamError(w, 400, "InvalidAction", "awsfake does not serve the IAM action "+action)
	}
}

func (rl *role) xml() string {
	// IAM returns the trust policy URL-encoded.
	return "<Path>/</Path><RoleName>" + esc(rl.name) + "</RoleName><RoleId>" + rl.id + "</RoleId><Arn>" + esc(rl.arn) +
		"</Arn><CreateDate>" + rl.created + "</CreateDate><AssumeRolePolicyDocument>" + esc(url.QueryEscape(rl.policy)) +
		"</AssumeRolePolicyDocument><MaxSessionDuration>3600</MaxSessionDuration>" + tagsXML(rl.tags) + "<RoleLastUsed/>"
}

func tagsXML(tags map[string]string) string {
	var keys []string
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return members("Tags", keys, func(k string) string { return "<Key>" + esc(k) + "</Key><Value>" + esc(tags[k]) + "</Value>" })
}

func members(name string, items []string, each func(string) string) string {
	var b strings.Builder
	b.WriteString("<" + name + ">")
	for _, it := range items {
		b.WriteString("<member>" + each(it) + "</member>")
	}
	b.WriteString("</" + name + ">")
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func iamOK(w http.ResponseWriter, action, result string) { queryOK(w, iamNS, action, result) }

func iamError(w http.ResponseWriter, status int, code, message string) {
	queryError(w, iamNS, status, code, message)
}

// queryOK answers a Query protocol action (IAM, STS) of namespace ns.
func queryOK(w http.ResponseWriter, ns, action, result string) {
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<%sResponse xmlns="%s"><%sResult>%s</%sResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></%sResponse>`,
		action, ns, action, result, action, action)
}

func queryError(w http.ResponseWriter, ns string, status int, code, message string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	var b strings.Builder
	xml.EscapeText(&b, []byte(message))
	fmt.Fprintf(w, `<ErrorResponse xmlns="%s"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>fake</RequestId></ErrorResponse>`, ns, code, b.String())
}
