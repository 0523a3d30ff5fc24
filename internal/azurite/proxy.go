package azurite

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
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
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caT := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "azurite test CA"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caT, caT, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafT := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "blob"}, DNSNames: []string{"*.blob.core.windows.net"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafT, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dir, "azurite-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
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
	go inner.Serve(tls.NewListener(conns, &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}))
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
