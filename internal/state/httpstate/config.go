package httpstate

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Config is a backend "http" block's settings, with the TF_HTTP_
// environment variables in place of the arguments left out, as Terraform
// reads them.
type Config struct {
	Address, LockAddress, UnlockAddress    *url.URL
	UpdateMethod, LockMethod, UnlockMethod string
	Username, Password                     string
	RetryMax                               int
	RetryWaitMin, RetryWaitMax             time.Duration
	TLS                                    *tls.Config
}

// FromSettings reads the settings, and the environment where they leave
// an argument out.
func FromSettings(s map[string]string, getenv func(string) string) (Config, error) {
	get := func(name, env, def string) string {
		if v, ok := s[name]; ok {
			return v
		}
		if v := getenv(env); v != "" {
			return v
		}
		return def
	}
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf(`the "http" backend: `+format, args...)
	}
	c := Config{
		UpdateMethod: get("update_method", "TF_HTTP_UPDATE_METHOD", "POST"),
		LockMethod:   get("lock_method", "TF_HTTP_LOCK_METHOD", "LOCK"),
		UnlockMethod: get("unlock_method", "TF_HTTP_UNLOCK_METHOD", "UNLOCK"),
		Username:     get("username", "TF_HTTP_USERNAME", ""),
		Password:     get("password", "TF_HTTP_PASSWORD", ""),
	}
	for _, a := range []struct {
		name, env string
		dst       **url.URL
	}{
		{"address", "TF_HTTP_ADDRESS", &c.Address},
		{"lock_address", "TF_HTTP_LOCK_ADDRESS", &c.LockAddress},
		{"unlock_address", "TF_HTTP_UNLOCK_ADDRESS", &c.UnlockAddress},
	} {
		raw := get(a.name, a.env, "")
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("the argument %q must be an http or https URL, not %q", a.name, raw)
		}
		*a.dst = u
	}
	if c.Address == nil {
		return fail(`the argument "address" (or TF_HTTP_ADDRESS) is required`)
	}
	for _, n := range []struct {
		name, env string
		def       int
		dst       *int
	}{
		{"retry_max", "TF_HTTP_RETRY_MAX", 2, &c.RetryMax},
	} {
		v, err := strconv.Atoi(get(n.name, n.env, strconv.Itoa(n.def)))
		if err != nil || v < 0 {
			return fail("the argument %q must be a whole number", n.name)
		}
		*n.dst = v
	}
	for _, n := range []struct {
		name, env string
		def       int
		dst       *time.Duration
	}{
		{"retry_wait_min", "TF_HTTP_RETRY_WAIT_MIN", 1, &c.RetryWaitMin},
		{"retry_wait_max", "TF_HTTP_RETRY_WAIT_MAX", 30, &c.RetryWaitMax},
	} {
		v, err := strconv.Atoi(get(n.name, n.env, strconv.Itoa(n.def)))
		if err != nil || v < 0 {
			return fail("the argument %q must be a whole number of seconds", n.name)
		}
		*n.dst = time.Duration(v) * time.Second
	}
	tc := &tls.Config{InsecureSkipVerify: s["skip_cert_verification"] == "true"}
	if ca := get("client_ca_certificate_pem", "TF_HTTP_CLIENT_CA_CERTIFICATE_PEM", ""); ca != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(ca)) {
			return fail(`the argument "client_ca_certificate_pem" holds no PEM certificate`)
		}
		tc.RootCAs = pool
	}
	cert := get("client_certificate_pem", "TF_HTTP_CLIENT_CERTIFICATE_PEM", "")
	key := get("client_private_key_pem", "TF_HTTP_CLIENT_PRIVATE_KEY_PEM", "")
	if (cert == "") != (key == "") {
		return fail(`client_certificate_pem and client_private_key_pem must be given together`)
	}
	if cert != "" {
		pair, err := tls.X509KeyPair([]byte(cert), []byte(key))
		if err != nil {
			return fail("the client certificate: %v", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	c.TLS = tc
	return c, nil
}

func (c Config) client() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = c.TLS
	return &http.Client{Transport: t, Timeout: 5 * time.Minute}
}
