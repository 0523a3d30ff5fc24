package awsfake

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const stsNS = "https://sts.amazonaws.com/doc/2011-06-15/"

// WebIdentityToken is the only token AssumeRoleWithWebIdentity accepts.
const WebIdentityToken = "tether-fake-oidc-token"

// Session is a role session the fake handed out, with what the caller
// asked for, so that a test can check what reached STS.
type Session struct {
	Action, RoleARN, SessionName, ExternalID, Policy, SourceIdentity string
	PolicyARNs, TransitiveTagKeys                                    []string
	Tags                                                             map[string]string
	Duration                                                         time.Duration
	// CalledBy is the access key that signed the request ("" for a web
	// identity); AccessKeyID is the temporary key handed out.
	CalledBy, AccessKeyID, secret, token string
}

// AddRole creates the IAM role name, which STS lets anyone assume, and
// returns its ARN.
func (s *Server) AddRole(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rl := &role{name: name, id: strings.ToUpper(s.newID("AROA")), arn: s.arn("iam", "role/"+name),
		created: time.Now().UTC().Format(time.RFC3339), tags: map[string]string{}, inline: map[string]string{}}
	s.roles[name] = rl
	return rl.arn
}

// Sessions are the role sessions handed out, in order.
func (s *Server) Sessions() []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Session, len(s.sessions))
	for i, x := range s.sessions {
		out[i] = *x
		out[i].secret, out[i].token = "", ""
	}
	return out
}

// session is the session whose temporary key keyID is, nil for none.
func (s *Server) session(keyID string) *Session {
	for _, x := range s.sessions {
		if x.AccessKeyID == keyID {
			return x
		}
	}
	return nil
}

// sts serves STS's Query protocol: GetCallerIdentity, AssumeRole (of a
// role that exists, by a caller holding the server's key or a session's)
// and AssumeRoleWithWebIdentity (with WebIdentityToken, unsigned as the
// SDKs send it). A refused role is AccessDenied, as AWS answers it.
func (s *Server) sts(w http.ResponseWriter, r *http.Request, body []byte, keyID string) {
	q, err := url.ParseQuery(string(body))
	if err != nil {
		queryError(w, stsNS, 400, "MalformedInput", "awsfake: "+err.Error())
		return
	}
	caller := "arn:aws:iam::" + Account + ":user/tether-fake"
	if x := s.session(keyID); x == nil && keyID != s.opts.AccessKeyID && keyID != "" {
		queryError(w, stsNS, 403, "InvalidClientTokenId", "The security token included in the request is invalid.")
		return
	} else if x != nil {
		if r.Header.Get("X-Amz-Security-Token") != x.token {
			queryError(w, stsNS, 403, "InvalidClientTokenId", "The security token included in the request is invalid.")
			return
		}
		caller = assumedARN(x)
	}
	action := q.Get("Action")
	switch action {
	case "GetCallerIdentity":
		queryOK(w, stsNS, action, "<Arn>"+esc(caller)+"</Arn><UserId>AIDATETHERFAKE</UserId><Account>"+Account+"</Account>")
	case "AssumeRole", "AssumeRoleWithWebIdentity":
		x := &Session{Action: action, RoleARN: q.Get("RoleArn"), SessionName: q.Get("RoleSessionName"), ExternalID: q.Get("ExternalId"),
			Policy: q.Get("Policy"), SourceIdentity: q.Get("SourceIdentity"), Tags: map[string]string{}, CalledBy: keyID}
		for i := 1; q.Has(fmt.Sprintf("PolicyArns.member.%d.arn", i)); i++ {
			x.PolicyARNs = append(x.PolicyARNs, q.Get(fmt.Sprintf("PolicyArns.member.%d.arn", i)))
		}
		for i := 1; q.Has(fmt.Sprintf("Tags.member.%d.Key", i)); i++ {
			x.Tags[q.Get(fmt.Sprintf("Tags.member.%d.Key", i))] = q.Get(fmt.Sprintf("Tags.member.%d.Value", i))
		}
		for i := 1; q.Has(fmt.Sprintf("TransitiveTagKeys.member.%d", i)); i++ {
			x.TransitiveTagKeys = append(x.TransitiveTagKeys, q.Get(fmt.Sprintf("TransitiveTagKeys.member.%d", i)))
		}
		x.Duration = time.Hour
		if d := q.Get("DurationSeconds"); d != "" {
			n, _ := strconv.Atoi(d)
			x.Duration = time.Duration(n) * time.Second
		}
		if action == "AssumeRoleWithWebIdentity" && q.Get("WebIdentityToken") != WebIdentityToken {
			queryError(w, stsNS, 400, "InvalidIdentityToken", "The web identity token that was passed could not be validated by AWS.")
			return
		}
		if !s.roleExists(x.RoleARN) {
			queryError(w, stsNS, 403, "AccessDenied", fmt.Sprintf("User: %s is not authorized to perform: sts:%s on resource: %s", caller, action, x.RoleARN))
			return
		}
		id := strings.ToUpper(s.newID("ASIA"))
		x.AccessKeyID, x.secret, x.token = id, "secret-"+id, "token-"+id
		s.sessions = append(s.sessions, x)
		exp := time.Now().Add(x.Duration).UTC().Format(time.RFC3339)
		queryOK(w, stsNS, action, "<Credentials><AccessKeyId>"+id+"</AccessKeyId><SecretAccessKey>"+x.secret+"</SecretAccessKey><SessionToken>"+
			x.token+"</SessionToken><Expiration>"+exp+"</Expiration></Credentials><AssumedRoleUser><Arn>"+esc(assumedARN(x))+
			"</Arn><AssumedRoleId>AROATETHERFAKE:"+esc(x.SessionName)+"</AssumedRoleId></AssumedRoleUser>")
	default:
		queryError(w, stsNS, 400, "InvalidAction", "awsfake does not serve STS's "+action)
	}
}

func (s *Server) roleExists(arn string) bool {
	for _, rl := range s.roles {
		if rl.arn == arn {
			return true
		}
	}
	return false
}

func assumedARN(x *Session) string {
	return "arn:aws:sts::" + Account + ":assumed-role/" + x.RoleARN[strings.LastIndex(x.RoleARN, "/")+1:] + "/" + x.SessionName
}
