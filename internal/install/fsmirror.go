package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// fsMirror is a filesystem mirror folder in either of Terraform's layouts:
//
//	HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/...                        (unpacked)
//	HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip (packed)
//
// When a version is in both layouts, the unpacked one is used.
type fsMirror struct{ dir string }

func (m fsMirror) String() string { return "filesystem mirror " + m.dir }

// providers lists the providers the mirror has a folder for, holding
// packages of any version and platform, as Terraform counts them when it
// excludes them from direct installation; entries that are not valid
// addresses are skipped.
func (m fsMirror) providers() []tfaddr.Provider {
	var out []tfaddr.Provider
	hosts, _ := os.ReadDir(m.dir)
	for _, h := range hosts {
		namespaces, _ := os.ReadDir(filepath.Join(m.dir, h.Name()))
		for _, ns := range namespaces {
			types, _ := os.ReadDir(filepath.Join(m.dir, h.Name(), ns.Name()))
			for _, t := range types {
				p, err := tfaddr.ParseProviderSource(h.Name() + "/" + ns.Name() + "/" + t.Name())
				entries, _ := os.ReadDir(filepath.Join(m.dir, h.Name(), ns.Name(), t.Name()))
				if err == nil && len(entries) > 0 {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// packages lists the packages of p for platform, by version.
func (m fsMirror) packages(p tfaddr.Provider, platform string) map[string]string {
	base := m.providerDir(p)
	out := map[string]string{}
	entries, _ := os.ReadDir(base)
	prefix := "terraform-provider-" + p.Type + "_"
	for _, e := range entries {
		name := e.Name()
		if rest, ok := strings.CutPrefix(name, prefix); ok && strings.HasSuffix(name, ".zip") {
			rest = strings.TrimSuffix(rest, ".zip")
			if v, ok := strings.CutSuffix(rest, "_"+platform); ok {
				if _, dup := out[v]; !dup {
					out[v] = filepath.Join(base, name)
				}
			}
			continue
		}
		dir := filepath.Join(base, name, platform)
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			out[name] = dir
		}
	}
	return out
}

func (m fsMirror) providerDir(p tfaddr.Provider) string {
	return filepath.Join(m.dir, p.Hostname.String(), p.Namespace, p.Type)
}

func (m fsMirror) versions(_ context.Context, p tfaddr.Provider, platform string) ([]*version.Version, error) {
	if info, err := os.Stat(m.dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("the mirror folder %s cannot be read: %v", m.dir, errOrNotDir(err))
	}
	var out []*version.Version
	for s := range m.packages(p, platform) {
		if v, err := version.NewSemver(s); err == nil {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errNotFound
	}
	return out, nil
}

func errOrNotDir(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("not a folder")
}

func (m fsMirror) fetch(_ context.Context, p tfaddr.Provider, v *version.Version, platform, _ string) (*fetched, error) {
	pkgs := m.packages(p, platform)
	path, ok := pkgs[v.Original()]
	if !ok {
		for s, pth := range pkgs {
			if pv, err := version.NewSemver(s); err == nil && pv.Equal(v) {
				path, ok = pth, true
				break
			}
		}
	}
	if !ok {
		return nil, fmt.Errorf("%s has no package of %s %s for %s", m, p.ForDisplay(), v, platform)
	}
	if strings.HasSuffix(path, ".zip") {
		return &fetched{zip: path, auth: "unauthenticated"}, nil
	}
	return &fetched{dir: path, auth: "unauthenticated"}, nil
}
