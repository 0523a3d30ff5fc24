package install

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
	"github.com/hashicorp/terraform-svchost/disco"
)

// registry is the "direct" method: each provider's own hostname, found by
// service discovery (https://HOST/.well-known/terraform.json, service
// "providers.v1"), answering Terraform's provider registry protocol:
//
//	GET BASE/NAMESPACE/TYPE/versions
//	GET BASE/NAMESPACE/TYPE/VERSION/download/OS/ARCH
//
// Packages are checked against the SHA256SUMS document the registry
// names, whose detached signature must verify with one of the signing keys
// the registry returns.
type registry struct {
	http   *http.Client
	disco  *disco.Disco
	tokens map[string]string

	mu   sync.Mutex
	base map[svchost.Hostname]*url.URL
}

func newRegistry(client *http.Client, tokens map[string]string) *registry {
	d := disco.New()
	return &registry{http: client, disco: d, tokens: tokens, base: map[svchost.Hostname]*url.URL{}}
}

func (r *registry) String() string { return "the provider registry (direct)" }

// serviceURL discovers the providers.v1 base URL of host, once. The
// discovery document is fetched here, with the registry's client and
// token, and handed to disco, which interprets it as Terraform does (the
// service's URL relative to the document, versions of service IDs); disco's
// own fetch would log to the standard logger.
func (r *registry) serviceURL(ctx context.Context, host svchost.Hostname) (*url.URL, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u, ok := r.base[host]; ok {
		return u, nil
	}
	docURL := "https://" + host.String() + "/.well-known/terraform.json"
	services := map[string]any{}
	err := getJSON(ctx, r.http, docURL, r.tokens[host.String()], &services)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		services, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("service discovery for %s failed: %v", host.ForDisplay(), err)
	}
	r.disco.ForceHostServices(host, services)
	u, err := r.disco.DiscoverServiceURL(host, "providers.v1")
	if err != nil {
		var notProvided *disco.ErrServiceNotProvided
		if errors.As(err, &notProvided) {
			return nil, fmt.Errorf("host %s does not offer a provider registry (no providers.v1 in %s)", host.ForDisplay(), docURL)
		}
		return nil, fmt.Errorf("service discovery for %s failed: %v", host.ForDisplay(), err)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	r.base[host] = u
	return u, nil
}

func (r *registry) apiURL(ctx context.Context, p tfaddr.Provider, rest string) (string, string, error) {
	base, err := r.serviceURL(ctx, p.Hostname)
	if err != nil {
		return "", "", err
	}
	ref, _ := url.Parse(p.Namespace + "/" + p.Type + "/" + rest)
	return base.ResolveReference(ref).String(), r.tokens[p.Hostname.String()], nil
}

func (r *registry) versions(ctx context.Context, p tfaddr.Provider, _ string) ([]*version.Version, error) {
	u, token, err := r.apiURL(ctx, p, "versions")
	if err != nil {
		return nil, err
	}
	var resp struct {
		Versions []struct {
			Version   string   `json:"version"`
			Protocols []string `json:"protocols"`
		} `json:"versions"`
	}
	err = getJSON(ctx, r.http, u, token, &resp)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil, fmt.Errorf("%w: registry %s does not have provider %s", errNotFound, p.Hostname.ForDisplay(), p.ForDisplay())
	}
	if err != nil {
		return nil, err
	}
	var out []*version.Version
	for _, e := range resp.Versions {
		v, err := version.NewSemver(e.Version)
		if err != nil {
			return nil, fmt.Errorf("%s lists %q, which is not a version number", u, e.Version)
		}
		if supportedProtocol(e.Protocols) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: registry %s lists no version of %s for plugin protocol 5 or 6", errNotFound, p.Hostname.ForDisplay(), p.ForDisplay())
	}
	return out, nil
}

// supportedProtocol reports whether a version's plugin protocols include
// one that Terraform 1.11 speaks (5 or 6); a version that lists none is
// taken to speak 5.
func supportedProtocol(protocols []string) bool {
	if len(protocols) == 0 {
		return true
	}
	for _, p := range protocols {
		major, _, _ := strings.Cut(p, ".")
		if major == "5" || major == "6" {
			return true
		}
	}
	return false
}

// downloadInfo is the registry's answer to a download request.
type downloadInfo struct {
	Protocols           []string `json:"protocols"`
	OS                  string   `json:"os"`
	Arch                string   `json:"arch"`
	Filename            string   `json:"filename"`
	DownloadURL         string   `json:"download_url"`
	SHASumsURL          string   `json:"shasums_url"`
	SHASumsSignatureURL string   `json:"shasums_signature_url"`
	SHASum              string   `json:"shasum"`
	SigningKeys         struct {
		GPGPublicKeys []struct {
			KeyID      string `json:"key_id"`
			ASCIIArmor string `json:"ascii_armor"`
		} `json:"gpg_public_keys"`
	} `json:"signing_keys"`
}

func (r *registry) fetch(ctx context.Context, p tfaddr.Provider, v *version.Version, platform, tmp string) (*fetched, error) {
	osName, arch, _ := strings.Cut(platform, "_")
	u, token, err := r.apiURL(ctx, p, v.String()+"/download/"+osName+"/"+arch)
	if err != nil {
		return nil, err
	}
	var info downloadInfo
	err = getJSON(ctx, r.http, u, token, &info)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil, fmt.Errorf("registry %s has no package of %s %s for %s", p.Hostname.ForDisplay(), p.ForDisplay(), v, platform)
	}
	if err != nil {
		return nil, err
	}
	resolve := func(what, s string) (string, error) {
		ref, err := url.Parse(s)
		if err != nil || s == "" {
			return "", fmt.Errorf("%s gives an invalid %s %q", u, what, s)
		}
		base, _ := url.Parse(u)
		return base.ResolveReference(ref).String(), nil
	}
	zipURL, err := resolve("download_url", info.DownloadURL)
	if err != nil {
		return nil, err
	}
	sumsURL, err := resolve("shasums_url", info.SHASumsURL)
	if err != nil {
		return nil, err
	}
	sigURL, err := resolve("shasums_signature_url", info.SHASumsSignatureURL)
	if err != nil {
		return nil, err
	}
	if len(info.SHASum) != 64 || info.Filename == "" || strings.ContainsAny(info.Filename, `/\`) {
		return nil, fmt.Errorf("%s gives no valid shasum and filename for the package", u)
	}
	sums, err := get(ctx, r.http, sumsURL, "")
	if err != nil {
		return nil, fmt.Errorf("cannot fetch the SHA256SUMS of %s %s: %w", p.ForDisplay(), v, err)
	}
	sig, err := get(ctx, r.http, sigURL, "")
	if err != nil {
		return nil, fmt.Errorf("cannot fetch the signature of the SHA256SUMS of %s %s: %w", p.ForDisplay(), v, err)
	}
	var keys []string
	for _, k := range info.SigningKeys.GPGPublicKeys {
		keys = append(keys, k.ASCIIArmor)
	}
	auth, err := verifySignature(sums, sig, keys)
	if err != nil {
		return nil, fmt.Errorf("the SHA256SUMS of %s %s from %s is not authentic: %w", p.ForDisplay(), v, sumsURL, err)
	}
	listed, all, err := parseSums(sums, info.Filename)
	if err != nil {
		return nil, fmt.Errorf("the SHA256SUMS of %s %s from %s: %w", p.ForDisplay(), v, sumsURL, err)
	}
	if !strings.EqualFold(listed, info.SHASum) {
		return nil, fmt.Errorf("the registry gives SHA-256 %s for %s, but its signed SHA256SUMS gives %s", info.SHASum, info.Filename, listed)
	}
	dest := filepath.Join(tmp, info.Filename)
	got, err := download(ctx, r.http, zipURL, dest)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(got, info.SHASum) {
		return nil, fmt.Errorf("the package %s downloaded from %s has SHA-256 %s, but the signed SHA256SUMS gives %s", info.Filename, zipURL, got, info.SHASum)
	}
	return &fetched{zip: dest, auth: auth, signedHashes: all}, nil
}
