package dynamofake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

const sigAlgorithm = "AWS4-HMAC-SHA256"

// authenticate checks the request's SigV4 signature the way AWS does:
// from the Authorization header's credential scope and signed headers, it
// rebuilds the canonical request and the signature with the server's
// secret. The answers are DynamoDB's.
func (s *Server) authenticate(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return authError("MissingAuthenticationTokenException", "Request is missing Authentication Token")
	}
	rest, ok := strings.CutPrefix(auth, sigAlgorithm+" ")
	if !ok {
		return authError("IncompleteSignatureException", "Authorization header requires the "+sigAlgorithm+" algorithm")
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		fields[k] = v
	}
	credential, signedHeaders, signature := fields["Credential"], fields["SignedHeaders"], fields["Signature"]
	if credential == "" || signedHeaders == "" || signature == "" {
		return authError("IncompleteSignatureException", "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters")
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" {
		return authError("IncompleteSignatureException", "Credential must be ACCESS_KEY_ID/DATE/REGION/SERVICE/aws4_request")
	}
	keyID, date, region, service := scope[0], scope[1], scope[2], scope[3]
	cred, known := Credentials{s.opts.AccessKeyID, s.opts.SecretAccessKey, s.opts.SessionToken}, keyID == s.opts.AccessKeyID
	for _, c := range s.opts.Also {
		if !known && keyID == c.AccessKeyID {
			cred, known = c, true
		}
	}
	if !known || r.Header.Get("X-Amz-Security-Token") != cred.SessionToken {
		return authError("UnrecognizedClientException", "The security token included in the request is invalid.")
	}
	if service != "dynamodb" {
		return authError("InvalidSignatureException", "Credential should be scoped to correct service: 'dynamodb'. ")
	}
	if region != s.opts.Region {
		return authError("InvalidSignatureException", fmt.Sprintf("Credential should be scoped to a valid region, not '%s'. ", region))
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if len(amzDate) < 8 || amzDate[:8] != date {
		return authError("InvalidSignatureException", "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"+date+"' != '"+amzDate+"'")
	}
	names := strings.Split(signedHeaders, ";")
	if !sort.StringsAreSorted(names) || !slices.Contains(names, "host") {
		return authError("InvalidSignatureException", "SignedHeaders must be sorted and include host")
	}
	canonical := strings.Join([]string{
		r.Method,
		r.URL.EscapedPath(),
		strings.ReplaceAll(r.URL.Query().Encode(), "+", "%20"),
		canonicalHeaders(r, names),
		signedHeaders,
		hexSHA256(body),
	}, "\n")
	toSign := strings.Join([]string{sigAlgorithm, amzDate, strings.Join(scope[1:], "/"), hexSHA256([]byte(canonical))}, "\n")
	key := hmacSHA256([]byte("AWS4"+cred.SecretAccessKey), date)
	for _, part := range []string{region, service, "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(want), []byte(signature)) {
		return authError("InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
	}
	return nil
}

// canonicalHeaders is the canonical form of the named headers: each on a
// line as name:value, values trimmed, inner runs of spaces made one.
func canonicalHeaders(r *http.Request, names []string) string {
	var b strings.Builder
	for _, name := range names {
		var values []string
		switch name {
		case "host":
			values = []string{r.Host}
		case "content-length":
			values = []string{strconv.FormatInt(r.ContentLength, 10)}
		default:
			for _, v := range r.Header.Values(name) {
				values = append(values, strings.Join(strings.Fields(v), " "))
			}
		}
		b.WriteString(name + ":" + strings.Join(values, ",") + "\n")
	}
	return b.String()
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}
