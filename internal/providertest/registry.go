package providertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
)

// Server is a provider registry and a network mirror on one TLS server on
// 127.0.0.1, serving the providers it was given:
//
//   - https://HOST/.well-known/terraform.json names providers.v1 at
//     /v1/providers/, which answers .../NAMESPACE/TYPE/versions and
//     .../VERSION/download/OS/ARCH with relative URLs of the zip, the
//     SHA256SUMS and its detached signature (under /files/);
//   - MirrorURL is a network mirror: .../HOST/NAMESPACE/TYPE/index.json and
//     VERSION.json with the h1 hash of each archive and a URL relative to
//     it.
//
// Each version's SHA256SUMS lists this platform's zip and a second, small
// zip for another platform, as real releases list many, and is signed by a
// key made for the server.
type Server struct {
	*httptest.Server
	// Host is the registry's hostname, "127.0.0.1:PORT"; a provider
	// published on it has the address Host/NAMESPACE/TYPE.
	Host svchost.Hostname
	// MirrorURL is the base URL of the network mirror, ending in "/".
	MirrorURL string
	// Client trusts the server's certificate.
	Client *http.Client
	// CAFile is a PEM file of the certificate, for SSL_CERT_FILE of a
	// terraform process.
	CAFile string
	// Key signs the SHA256SUMS documents; KeyID is its ID as Terraform
	// prints it.
	Key   *openpgp.Entity
	KeyID string

	// Intercept, when set, sees every request first; when it returns true
	// it has answered and the server does nothing more. Tests use it to
	// serve garbage, errors or a bad signature. Set it before requests
	// start.
	Intercept func(w http.ResponseWriter, r *http.Request) bool

	mu       sync.Mutex
	files    map[string][]byte // by path under /files/ and the mirror
	releases map[string][]release
	modules  map[string][]string // versions by NAMESPACE/NAME/SYSTEM
	requests atomic.Int64
}

// release is one version of one provider on the server.
type release struct {
	p        Provider
	zip      []byte
	sha, h1  string
	otherZip string // the other platform's zip name
}

// otherPlatform is the second platform listed in every SHA256SUMS.
func otherPlatform() string {
	if Platform() == "darwin_arm64" {
		return "linux_amd64"
	}
	return "darwin_arm64"
}

// NewServer starts a Server for the test, serving ps (their hostnames are
// ignored: on the registry each is at Host/NAMESPACE/TYPE, on the mirror at
// its own address) and closes it when the test ends.
func NewServer(t testing.TB, ps ...Provider) *Server {
	t.Helper()
	key, err := openpgp.NewEntity("Tether test registry", "", "test@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Key: key, KeyID: key.PrimaryKey.KeyIdString(), files: map[string][]byte{}, releases: map[string][]release{}}
	for _, p := range ps {
		if err := s.add(p); err != nil {
			t.Fatal(err)
		}
	}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	s.Host = svchost.Hostname(strings.TrimPrefix(s.URL, "https://"))
	s.MirrorURL = s.URL + "/mirror/"
	s.Client = s.Server.Client()
	s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(s.CAFile, pemData, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// Address is the address of a provider type published on this registry.
func (s *Server) Address(namespace, typ string) tfaddr.Provider {
	return tfaddr.NewProvider(s.Host, namespace, typ)
}

// Requests is the number of requests the server has answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

func (s *Server) add(p Provider) error {
	z, err := p.Zip()
	if err != nil {
		return err
	}
	other, err := zipOf(map[string][]byte{p.BinaryName(): []byte("a build for " + otherPlatform() + "\n")})
	if err != nil {
		return err
	}
	sum := sha256.Sum256(z)
	otherSum := sha256.Sum256(other)
	r := release{p: p, zip: z, sha: hex.EncodeToString(sum[:]), otherZip: p.ZipName(otherPlatform())}
	if r.h1, err = h1OfZip(z); err != nil {
		return err
	}
	sums := fmt.Sprintf("%s  %s\n%s  %s\n", r.sha, p.ZipName(Platform()), hex.EncodeToString(otherSum[:]), r.otherZip)
	var sig bytes.Buffer
	if err := openpgp.DetachSign(&sig, s.Key, strings.NewReader(sums), nil); err != nil {
		return err
	}
	prefix := fmt.Sprintf("terraform-provider-%s_%s", p.Source.Type, p.Version)
	s.files["/files/"+p.ZipName(Platform())] = z
	s.files["/files/"+r.otherZip] = other
	s.files["/files/"+prefix+"_SHA256SUMS"] = []byte(sums)
	s.files["/files/"+prefix+"_SHA256SUMS.sig"] = sig.Bytes()
	key := p.Source.Namespace + "/" + p.Source.Type
	s.releases[key] = append(s.releases[key], r)
	mirrorDir := "/mirror/" + p.Source.String() + "/"
	s.files[mirrorDir+p.ZipName(Platform())] = z
	return nil
}

// PublicKey is the armored public key the registry returns.
func (s *Server) PublicKey() string {
	var buf bytes.Buffer
	w, _ := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	s.Key.Serialize(w)
	w.Close()
	return buf.String()
}

// SignWith re-signs every SHA256SUMS with another key while the registry
// keeps returning its own public key, so that signatures fail to verify.
func (s *Server) SignWith(t testing.TB, other *openpgp.Entity) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, data := range s.files {
		if strings.HasSuffix(name, "_SHA256SUMS") {
			var sig bytes.Buffer
			if err := openpgp.DetachSign(&sig, other, bytes.NewReader(data), nil); err != nil {
				t.Fatal(err)
			}
			s.files[name+".sig"] = sig.Bytes()
		}
	}
}

// SetFile replaces the bytes served at a path under /files/ or /mirror/,
// such as "/files/terraform-provider-time_0.14.2_linux_amd64.zip".
func (s *Server) SetFile(path string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = data
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.Intercept != nil && s.Intercept(w, r) {
		return
	}
	path := r.URL.Path
	s.mu.Lock()
	data, isFile := s.files[path]
	s.mu.Unlock()
	switch {
	case isFile:
		w.Write(data)
	case path == "/.well-known/terraform.json":
		writeJSON(w, map[string]any{"providers.v1": "/v1/providers/", "modules.v1": "/v1/modules/"})
	case strings.HasPrefix(path, "/v1/modules/"):
		s.serveModules(w, strings.Split(strings.TrimPrefix(path, "/v1/modules/"), "/"))
	case strings.HasPrefix(path, "/v1/providers/"):
		s.serveRegistry(w, strings.Split(strings.TrimPrefix(path, "/v1/providers/"), "/"))
	case strings.HasPrefix(path, "/mirror/"):
		s.serveMirror(w, strings.TrimPrefix(path, "/mirror/"))
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *Server) serveRegistry(w http.ResponseWriter, parts []string) {
	if len(parts) < 3 {
		http.NotFound(w, nil)
		return
	}
	rels := s.releases[parts[0]+"/"+parts[1]]
	if len(rels) == 0 {
		http.Error(w, `{"errors":["Not Found"]}`, http.StatusNotFound)
		return
	}
	if len(parts) == 3 && parts[2] == "versions" {
		var versions []any
		for _, r := range rels {
			osName, arch, _ := strings.Cut(Platform(), "_")
			oOS, oArch, _ := strings.Cut(otherPlatform(), "_")
			versions = append(versions, map[string]any{
				"version":   r.p.Version,
				"protocols": []string{"5.0"},
				"platforms": []any{map[string]string{"os": osName, "arch": arch}, map[string]string{"os": oOS, "arch": oArch}},
			})
		}
		writeJSON(w, map[string]any{"versions": versions})
		return
	}
	if len(parts) != 6 || parts[3] != "download" {
		http.NotFound(w, nil)
		return
	}
	for _, r := range rels {
		if r.p.Version != parts[2] {
			continue
		}
		if parts[4]+"_"+parts[5] != Platform() {
			http.NotFound(w, nil)
			return
		}
		prefix := fmt.Sprintf("terraform-provider-%s_%s", r.p.Source.Type, r.p.Version)
		writeJSON(w, map[string]any{
			"protocols":             []string{"5.0"},
			"os":                    parts[4],
			"arch":                  parts[5],
			"filename":              r.p.ZipName(Platform()),
			"download_url":          "/files/" + r.p.ZipName(Platform()),
			"shasums_url":           "/files/" + prefix + "_SHA256SUMS",
			"shasums_signature_url": "/files/" + prefix + "_SHA256SUMS.sig",
			"shasum":                r.sha,
			"signing_keys": map[string]any{"gpg_public_keys": []any{map[string]string{
				"key_id":      s.KeyID,
				"ascii_armor": s.PublicKey(),
			}}},
		})
		return
	}
	http.NotFound(w, nil)
}

func (s *Server) serveMirror(w http.ResponseWriter, rest string) {
	dir, file := rest[:strings.LastIndex(rest, "/")+1], rest[strings.LastIndex(rest, "/")+1:]
	var rels []release
	for _, list := range s.releases {
		for _, r := range list {
			if r.p.Source.String()+"/" == dir {
				rels = append(rels, r)
			}
		}
	}
	if len(rels) == 0 {
		http.NotFound(w, nil)
		return
	}
	if file == "index.json" {
		versions := map[string]any{}
		for _, r := range rels {
			versions[r.p.Version] = map[string]any{}
		}
		writeJSON(w, map[string]any{"versions": versions})
		return
	}
	for _, r := range rels {
		if file == r.p.Version+".json" {
			writeJSON(w, map[string]any{"archives": map[string]any{
				Platform(): map[string]any{"url": r.p.ZipName(Platform()), "hashes": []string{r.h1}},
			}})
			return
		}
	}
	http.NotFound(w, nil)
}
