package install

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// netMirror is a network mirror speaking Terraform's provider network
// mirror protocol under base (an https URL ending in "/"):
//
//	GET base/HOST/NAMESPACE/TYPE/index.json   {"versions": {"1.0.0": {}}}
//	GET base/HOST/NAMESPACE/TYPE/VERSION.json {"archives": {"linux_amd64": {"url": "…", "hashes": ["h1:…"]}}}
//
// An archive URL may be relative to the VERSION.json URL.
type netMirror struct {
	base  string
	http  *http.Client
	token string // for the mirror's host, from the credentials
}

func (m *netMirror) String() string { return "network mirror " + m.base }

func (m *netMirror) providerURL(p tfaddr.Provider, file string) string {
	return m.base + p.Hostname.String() + "/" + p.Namespace + "/" + p.Type + "/" + file
}

func (m *netMirror) versions(ctx context.Context, p tfaddr.Provider, _ string) ([]*version.Version, error) {
	var index struct {
		Versions map[string]struct{} `json:"versions"`
	}
	err := getJSON(ctx, m.http, m.providerURL(p, "index.json"), m.token, &index)
	var se *statusError
	if errors.As(err, &se) && (se.code == http.StatusNotFound || se.code == http.StatusGone) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	var out []*version.Version
	for s := range index.Versions {
		v, err := version.NewSemver(s)
		if err != nil {
			return nil, fmt.Errorf("%s lists %q, which is not a version number", m.providerURL(p, "index.json"), s)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errNotFound
	}
	return out, nil
}

func (m *netMirror) fetch(ctx context.Context, p tfaddr.Provider, v *version.Version, platform, tmp string) (*fetched, error) {
	metaURL := m.providerURL(p, v.String()+".json")
	var meta struct {
		Archives map[string]struct {
			URL    string   `json:"url"`
			Hashes []string `json:"hashes"`
		} `json:"archives"`
	}
	if err := getJSON(ctx, m.http, metaURL, m.token, &meta); err != nil {
		return nil, err
	}
	a, ok := meta.Archives[platform]
	if !ok {
		var have []string
		for k := range meta.Archives {
			have = append(have, k)
		}
		sort.Strings(have)
		return nil, fmt.Errorf("%s has no package for %s (it has %v)", metaURL, platform, have)
	}
	base, _ := url.Parse(metaURL)
	ref, err := url.Parse(a.URL)
	if err != nil || a.URL == "" {
		return nil, fmt.Errorf("%s gives an invalid archive URL %q", metaURL, a.URL)
	}
	zipURL := base.ResolveReference(ref).String()
	dest := filepath.Join(tmp, "package.zip")
	if _, err := download(ctx, m.http, zipURL, dest); err != nil {
		return nil, err
	}
	f := &fetched{zip: dest, auth: "unauthenticated", wantHashes: a.Hashes}
	if len(a.Hashes) > 0 {
		f.auth = "verified checksum"
	}
	return f, nil
}
