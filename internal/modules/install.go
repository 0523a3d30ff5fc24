package modules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	getter "github.com/hashicorp/go-getter/v2"
	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
	"github.com/hashicorp/terraform-svchost/disco"
)

// Installer installs the modules of one configuration folder. Resolve it
// call by call, parents first, then Save.
type Installer struct {
	// Dir is the configuration folder (absolute).
	Dir string
	// HTTP is the client for registries and archives; nil means one that
	// gives up on a server silent for a minute. Tests pass one that
	// trusts their CA.
	HTTP *http.Client
	// Tokens are registry API tokens by hostname, from the CLI
	// configuration.
	Tokens map[string]string
	// Upgrade fetches every module again and chooses the newest registry
	// versions the constraints allow, as `init -upgrade` does; otherwise
	// a module installed for the same source (and a version its
	// constraints still allow) is kept.
	Upgrade bool
	// Installed takes only modules already installed: one that is not, for
	// its source and version, is an error rather than a download, as with
	// `terraform init -get=false`.
	Installed bool
	// Progress, when set, receives Terraform-style lines such as
	// "- net in .tether/modules/net".
	Progress func(line string)

	manifest *Manifest
	changed  bool
}

// Call is one module call.
type Call struct {
	// Key is the module's key: the call names from the root joined with
	// dots.
	Key string
	// Source is the evaluated source address, Version the evaluated
	// version constraints ("" for none).
	Source, Version string
	// ParentDir is the calling module's folder (absolute): a local source
	// is relative to it, also inside a fetched package.
	ParentDir string
}

// packageSource is a call's source as Terraform records it: an absolute
// folder is a go-getter file:// package (fetched like any other package,
// which for a folder is a link to it), not a folder relative to the
// caller. Other sources are as written.
func packageSource(src string) string {
	if filepath.IsAbs(src) {
		return "file://" + filepath.ToSlash(src)
	}
	return src
}

// IsLocal reports whether a source address is a local folder.
func IsLocal(src string) bool {
	return strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../") ||
		strings.HasPrefix(src, ".\\") || strings.HasPrefix(src, "..\\")
}

var defaultClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = time.Minute
	return &http.Client{Transport: t}
}()

func (in *Installer) client() *http.Client {
	if in.HTTP != nil {
		return in.HTTP
	}
	return defaultClient
}

func (in *Installer) say(format string, args ...any) {
	if in.Progress != nil {
		in.Progress(fmt.Sprintf(format, args...))
	}
}

// Resolve returns the folder of a call's module (absolute), installing it
// when it is not installed yet for this source and version.
func (in *Installer) Resolve(ctx context.Context, c Call) (string, error) {
	if in.manifest == nil {
		m, err := ReadManifest(in.Dir)
		if err != nil {
			return "", err
		}
		in.manifest = m
	}
	if IsLocal(c.Source) {
		if c.Version != "" {
			return "", fmt.Errorf("a module loaded from a local folder has no version; remove the version argument")
		}
		dir := filepath.Join(c.ParentDir, filepath.FromSlash(c.Source))
		in.record(Record{Key: c.Key, Source: c.Source, Dir: in.rel(dir)})
		return dir, nil
	}
	c.Source = packageSource(c.Source)
	reg, isRegistry := registrySource(c.Source)
	var constraints version.Constraints
	if c.Version != "" {
		if !isRegistry {
			return "", fmt.Errorf("cannot apply a version constraint to module %q because it has a non-registry source (%s)", c.Key, c.Source)
		}
		var err error
		if constraints, err = version.NewConstraint(c.Version); err != nil {
			return "", fmt.Errorf("invalid version constraint %q: %v", c.Version, err)
		}
	}
	if old := in.manifest.find(c.Key); old != nil && !in.Upgrade && old.Source == c.Source && in.usable(old, constraints) {
		return filepath.Join(in.Dir, filepath.FromSlash(old.Dir)), nil
	}
	if in.Installed {
		return "", errors.New("-get=false installs no module: run tether get, or tether init without -get=false")
	}
	pkgDir := filepath.Join(in.Dir, ".tether", "modules", c.Key)
	if err := os.RemoveAll(pkgDir); err != nil {
		return "", err
	}
	src, subdir := getter.SourceDirSubdir(c.Source)
	var ver string
	if isRegistry {
		var err error
		in.say("Downloading %s for %s...", c.Source, c.Key)
		if src, ver, err = in.registryPackage(ctx, reg, constraints); err != nil {
			return "", err
		}
		subdir = reg.Subdir
		var inner string
		src, inner = getter.SourceDirSubdir(src)
		subdir = joinSubdir(inner, subdir)
	} else {
		in.say("Downloading %s for %s...", c.Source, c.Key)
	}
	if err := in.fetch(ctx, src, pkgDir); err != nil {
		os.RemoveAll(pkgDir)
		return "", fmt.Errorf("cannot download module %s from %s: %v", c.Key, c.Source, err)
	}
	dir := pkgDir
	if subdir != "" {
		dir = filepath.Join(pkgDir, filepath.FromSlash(subdir))
		if rel, err := filepath.Rel(pkgDir, dir); err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("the subdirectory %q of module %s is outside its package", subdir, c.Key)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("the package of module %s (%s) has no subdirectory %q", c.Key, c.Source, subdir)
		}
	}
	if ver != "" {
		in.say("- %s in %s (%s)", c.Key, in.rel(dir), ver)
	} else {
		in.say("- %s in %s", c.Key, in.rel(dir))
	}
	in.record(Record{Key: c.Key, Source: c.Source, Version: ver, Dir: in.rel(dir)})
	return dir, nil
}

// Save writes the manifest when anything changed.
func (in *Installer) Save() error {
	if in.manifest == nil || !in.changed {
		return nil
	}
	return in.manifest.Write(in.Dir)
}

func (in *Installer) record(r Record) {
	if old := in.manifest.find(r.Key); old != nil && *old == r {
		return
	}
	in.manifest.put(r)
	in.changed = true
}

func (in *Installer) rel(dir string) string {
	if r, err := filepath.Rel(in.Dir, dir); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(dir)
}

// usable reports whether an installed module can serve the call as it is.
func (in *Installer) usable(r *Record, constraints version.Constraints) bool {
	if fi, err := os.Stat(filepath.Join(in.Dir, filepath.FromSlash(r.Dir))); err != nil || !fi.IsDir() {
		return false
	}
	if r.Version == "" || constraints == nil {
		return r.Version == "" || constraints == nil
	}
	v, err := version.NewVersion(r.Version)
	return err == nil && constraints.Check(v)
}

// registrySource parses a module registry address
// ([HOST/]NAMESPACE/NAME/SYSTEM[//SUBDIR]).
func registrySource(src string) (tfaddr.Module, bool) {
	if strings.Contains(src, "::") || strings.Contains(src, "://") {
		return tfaddr.Module{}, false
	}
	m, err := tfaddr.ParseModuleSource(src)
	return m, err == nil
}

func joinSubdir(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

// fetch gets a package (a go-getter source: git::, an archive URL, a
// file:// folder, linked as Terraform links it) into dst. Only the
// getters Terraform uses for modules are offered: git, HTTP and file,
// with HTTP's X-Terraform-Get redirection off, since a registry's is
// followed above.
func (in *Installer) fetch(ctx context.Context, src, dst string) error {
	client := &getter.Client{
		Getters: []getter.Getter{
			&getter.GitGetter{Detectors: []getter.Detector{new(getter.GitHubDetector), new(getter.GitDetector), new(getter.BitBucketDetector), new(getter.GitLabDetector)}},
			&getter.HttpGetter{Client: in.client(), Netrc: true, XTerraformGetDisabled: true},
			new(getter.FileGetter),
		},
	}
	_, err := client.Get(ctx, &getter.Request{Src: src, Dst: dst, Pwd: in.Dir, GetMode: getter.ModeDir})
	return err
}

// registryPackage asks a module registry for the newest version the
// constraints allow and where its package is, as Terraform's module
// registry protocol says:
//
//	GET BASE/NAMESPACE/NAME/SYSTEM/versions
//	GET BASE/NAMESPACE/NAME/SYSTEM/VERSION/download  -> X-Terraform-Get
func (in *Installer) registryPackage(ctx context.Context, m tfaddr.Module, constraints version.Constraints) (src, ver string, err error) {
	p := m.Package
	base, err := in.serviceURL(ctx, p.Host)
	if err != nil {
		return "", "", err
	}
	token := in.Tokens[p.Host.String()]
	path := url.PathEscape(p.Namespace) + "/" + url.PathEscape(p.Name) + "/" + url.PathEscape(p.TargetSystem)
	versionsURL := base.JoinPath(path, "versions")
	var list struct {
		Modules []struct {
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		} `json:"modules"`
	}
	resp, err := in.get(ctx, versionsURL.String(), token)
	if err != nil {
		return "", "", fmt.Errorf("cannot list the versions of module %s: %v", p.ForDisplay(), err)
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&list)
	resp.Body.Close()
	if err != nil {
		return "", "", fmt.Errorf("the registry's list of versions of module %s is not valid JSON: %v", p.ForDisplay(), err)
	}
	var avail version.Collection
	for _, mod := range list.Modules {
		for _, v := range mod.Versions {
			if pv, err := version.NewVersion(v.Version); err == nil {
				avail = append(avail, pv)
			}
		}
	}
	sort.Sort(sort.Reverse(avail))
	var chosen *version.Version
	for _, v := range avail {
		// A prerelease is chosen only when a constraint names it exactly,
		// as in Terraform.
		if v.Prerelease() != "" && (constraints == nil || !strings.Contains(constraints.String(), v.Original())) {
			continue
		}
		if constraints == nil || constraints.Check(v) {
			chosen = v
			break
		}
	}
	if chosen == nil {
		var all []string
		for _, v := range avail {
			all = append(all, v.Original())
		}
		return "", "", fmt.Errorf("module %s has no version matching %q (available: %s)", p.ForDisplay(), constraints, strings.Join(all, ", "))
	}
	downloadURL := base.JoinPath(path, chosen.Original(), "download")
	resp, err = in.get(ctx, downloadURL.String(), token)
	if err != nil {
		return "", "", fmt.Errorf("cannot find the package of module %s %s: %v", p.ForDisplay(), chosen.Original(), err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("X-Terraform-Get")
	if loc == "" {
		return "", "", fmt.Errorf("the registry did not say where the package of module %s %s is (no X-Terraform-Get header at %s)", p.ForDisplay(), chosen.Original(), downloadURL)
	}
	// A relative location is relative to the download URL; a go-getter
	// source with a forced getter (git::...) is taken as it is.
	if !strings.Contains(loc, "::") {
		if u, err := url.Parse(loc); err == nil && !u.IsAbs() {
			loc = downloadURL.ResolveReference(u).String()
		}
	}
	return loc, chosen.Original(), nil
}

func (in *Installer) get(ctx context.Context, u, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := in.client().Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s answered %s", u, resp.Status)
	}
	return resp, nil
}

// serviceURL discovers the modules.v1 base URL of a registry host. The
// discovery document is fetched with the installer's client and token,
// then read by disco as Terraform reads it.
func (in *Installer) serviceURL(ctx context.Context, host svchost.Hostname) (*url.URL, error) {
	docURL := "https://" + host.String() + "/.well-known/terraform.json"
	resp, err := in.get(ctx, docURL, in.Tokens[host.String()])
	if err != nil {
		return nil, fmt.Errorf("service discovery for %s failed: %v", host.ForDisplay(), err)
	}
	services := map[string]any{}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&services)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("service discovery for %s failed: %s is not valid JSON", host.ForDisplay(), docURL)
	}
	d := disco.New()
	d.ForceHostServices(host, services)
	u, err := d.DiscoverServiceURL(host, "modules.v1")
	if err != nil {
		var notProvided *disco.ErrServiceNotProvided
		if errors.As(err, &notProvided) {
			return nil, fmt.Errorf("host %s does not offer a module registry (no modules.v1 in %s)", host.ForDisplay(), docURL)
		}
		return nil, fmt.Errorf("service discovery for %s failed: %v", host.ForDisplay(), err)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}
