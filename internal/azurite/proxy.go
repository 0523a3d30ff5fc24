package azurite

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// Proxy lets a program that knows no blob endpoint but
// https://ACCOUNT.blob.core.windows.net (Terraform's azurerm backend)
// reach Azurite: an HTTPS proxy on 127.0.0.1 that answers every CONNECT
// itself, with a certificate for *.blob.core.windows.net from a CA of its
// own, and forwards the requests to Azurite, host-style. Nothing leaves
// the machine: a CONNECT to any host ends at the proxy.
type Proxy struct {
	// Env points a Go program at it: HTTPS_PROXY, and SSL_CERT_FILE
	// naming the CA's certificate.
	Env []string
	l   net.Listener
	srv *http.Server
}

// Proxy starts a Proxy to the server; dir keeps the CA's certificate.
func (s *Server) Proxy(dir string) (*Proxy, error) {
	ca, err := newCA()
	if err != nil {
		return nil, err
	}
	leaf, err := ca.leaf([]string{"*.blob.core.windows.net"}, nil)
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dir, "azurite-ca.pem")
	if err := os.WriteFile(caFile, ca.pem, 0o644); err != nil {
		return nil, err
	}
	target, _ := url.Parse("http://127.0.0.1:" + itoa(s.Port))
	// The Host header stays the account's: Azurite reads the account
	// from it, and the request's signature covers the path as sent.
	inner := &http.Server{Handler: httputil.NewSingleHostReverseProxy(target)}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	conns := &connListener{ch: make(chan net.Conn), done: make(chan struct{}), addr: l.Addr()}
	go inner.Serve(tls.NewListener(conns, &tls.Config{Certificates: []tls.Certificate{leaf}}))
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				conns.Close()
				return
			}
			go func() {
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil || req.Method != http.MethodConnect {
					c.Close()
					return
				}
				c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
				select {
				case conns.ch <- c:
				case <-conns.done:
					c.Close()
				}
			}()
		}
	}()
	return &Proxy{Env: []string{"HTTPS_PROXY=http://" + l.Addr().String(), "SSL_CERT_FILE=" + caFile}, l: l, srv: inner}, nil
}

// Close stops the proxy.
func (p *Proxy) Close() {
	p.l.Close()
	p.srv.Close()
}

// connListener hands the proxy's tunnelled connections to the TLS server.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	addr net.Addr
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, errors.New("closed")
	}
}

func (l *connListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// AccountSAS is an account SAS token for every operation on blobs,
// valid for a day: what Terraform's sas_token takes. (Azurite refuses
// the shared-key signature of Terraform 1.11's client, so Terraform
// reaches it with a SAS token.)
func AccountSAS() (string, error) {
	cred, err := container.NewSharedKeyCredential(Account, Key)
	if err != nil {
		return "", err
	}
	perms := sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true, Process: true, Tag: true}
	q, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(24 * time.Hour), Permissions: perms.String(),
		ResourceTypes: (&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String()}.SignWithSharedKey(cred)
	if err != nil {
		return "", err
	}
	return q.Encode(), nil
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// testCA is a certificate authority of the test's own.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA() (*testCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	t := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "azurite test CA"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, t, t, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// leaf issues a server certificate for the names and addresses.
func (ca *testCA) leaf(names []string, ips []net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	t := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "azurite"}, DNSNames: names, IPAddresses: ips,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, t, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// serverCert writes a certificate for 127.0.0.1 and its key as PEM files
// in dir, for Azurite's --cert and --key, and returns the pool of its CA.
func serverCert(dir string) (certFile, keyFile string, pool *x509.CertPool, err error) {
	ca, err := newCA()
	if err != nil {
		return "", "", nil, err
	}
	leaf, err := ca.leaf(nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return "", "", nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
	if err != nil {
		return "", "", nil, err
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Certificate[0]}), 0o600); err != nil {
		return "", "", nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", nil, err
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca.cert)
	return certFile, keyFile, pool, nil
}

// Token is a bearer token for Azure Storage that Azurite's basic OAuth
// accepts: issued by Azure AD for tenant, valid for an hour, unsigned.
func Token(tenant string) (string, time.Time) {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	exp := now.Add(time.Hour)
	claims := map[string]any{"aud": "https://storage.azure.com", "iss": "https://sts.windows.net/" + tenant + "/", "tid": tenant, "oid": "00000000-0000-4000-8000-0000000000aa",
		"iat": now.Add(-time.Minute).Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": exp.Unix()}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2ln", exp
}
