package install

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tetherhq/tether/internal/config"
)

// LockOptions are the inputs of Lock besides the requirements.
type LockOptions struct {
	// Options gives the folder, the CLI configuration (for registry
	// tokens and the plugin cache), the HTTP client and where progress
	// lines go. Upgrade is not used: a locked version stays locked.
	Options
	// Platforms are the OS_ARCH platforms to lock packages of; none means
	// this machine's.
	Platforms []string
	// FSMirror or NetMirror, when set, is the only source asked (a folder,
	// or an https base URL); otherwise each provider's origin registry,
	// whatever installation methods the CLI configuration names, as in
	// Terraform.
	FSMirror, NetMirror string
	// PluginCache uses the CLI configuration's plugin cache: packages
	// found there are not fetched, and those fetched are added to it.
	PluginCache bool
}

// Lock is `providers lock`: it fetches the package of every requirement
// for every platform into a temporary folder, installing nothing under
// .tether/providers, and adds their hashes to the lock file, as Terraform
// does: each provider keeps the hashes it had, and gains the h1 hash of
// each platform's package and the zh hashes a registry signed. A locked
// version stays (one that no longer meets the constraints is an error);
// a package that matches none of the hashes locked for its version is an
// error. It reports whether the lock file gained anything; on error the
// file is left as it was.
func Lock(ctx context.Context, reqs []config.ProviderRequirement, opts LockOptions) (bool, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return false, err
	}
	unlock := lockDir(dir)
	defer unlock()
	old, err := ReadLocks(dir)
	if err != nil {
		return false, err
	}
	sources, cfg, err := lockSources(&opts)
	if err != nil {
		return false, err
	}
	platforms := opts.Platforms
	if len(platforms) == 0 {
		platforms = []string{hostPlatform}
	}
	reqs = mergeReqs(reqs)
	// byPlatform[i][p] is the lock entry the package of p for platforms[i]
	// makes.
	byPlatform := make([]Locks, len(platforms))
	for i, platform := range platforms {
		got, err := fetchAll(ctx, reqs, &opts.Options, cfg, sources, old, platform)
		if err != nil {
			return false, fmt.Errorf("cannot fetch the providers for %s to compute their checksums: %w", platform, err)
		}
		byPlatform[i] = got
	}

	updated := Locks{}
	for p, e := range old {
		updated[p] = e
	}
	changed := false
	for _, req := range reqs {
		p := req.Source
		prev := old[p]
		entry := &LockEntry{Provider: p}
		if prev != nil {
			*entry = *prev
			entry.Hashes = append([]string(nil), prev.Hashes...)
		}
		for i, platform := range platforms {
			got := byPlatform[i][p]
			if first := byPlatform[0][p]; got.Version != first.Version {
				return false, fmt.Errorf("the version constraints of %s selected %s for %s but %s for %s; the source may have changed while Tether was reading it, so running this command again may succeed", p.ForDisplay(), first.Version, platforms[0], got.Version, platform)
			}
			entry.Version, entry.Constraints = got.Version, got.Constraints
			entry.Hashes = append(entry.Hashes, got.Hashes...)
			switch {
			case prev == nil:
				changed = true
				opts.progress("- Obtained %s checksums for %s; This was a new provider and the checksums for this platform are now tracked in the lock file", p.ForDisplay(), platform)
			case !containsAll(prev.Hashes, got.Hashes):
				changed = true
				opts.progress("- Obtained %s checksums for %s; Additional checksums for this platform are now tracked in the lock file", p.ForDisplay(), platform)
			default:
				opts.progress("- Obtained %s checksums for %s; All checksums for this platform were already tracked in the lock file", p.ForDisplay(), platform)
			}
		}
		entry.Hashes = sortedUnique(entry.Hashes)
		updated[p] = entry
	}
	if !sameLocks(old, updated) {
		if err := WriteLocks(dir, updated); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// lockSources are the sources Lock asks: the mirror given, or the
// registries; and the CLI configuration it runs with.
func lockSources(opts *LockOptions) ([]methodSource, *CLIConfig, error) {
	if opts.FSMirror != "" && opts.NetMirror != "" {
		return nil, nil, errors.New("the -fs-mirror and -net-mirror options cannot be used together")
	}
	cfg := &CLIConfig{}
	if opts.Config != nil {
		cfg.Tokens = opts.Config.Tokens
		cfg.File = opts.Config.File
		if opts.PluginCache {
			cfg.PluginCacheDir = opts.Config.PluginCacheDir
			cfg.PluginCacheMayBreakLock = opts.Config.PluginCacheMayBreakLock
		}
	}
	m := Method{Kind: Direct}
	switch {
	case opts.FSMirror != "":
		m = Method{Kind: FilesystemMirror, Location: opts.FSMirror}
	case opts.NetMirror != "":
		u, err := url.Parse(opts.NetMirror)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, nil, fmt.Errorf("the -net-mirror option needs a valid https: URL as the mirror's base URL, not %q", opts.NetMirror)
		}
		loc := opts.NetMirror
		if !strings.HasSuffix(loc, "/") {
			loc += "/"
		}
		m = Method{Kind: NetworkMirror, Location: loc}
	}
	cfg.Methods = []Method{m}
	sources, err := sourcesFor(cfg, &opts.Options)
	return sources, cfg, err
}

// fetchAll fetches the package of every requirement for platform into a
// temporary folder, checked against the locks, and returns the lock entry
// of each: the version, the constraints and the package's hashes.
func fetchAll(ctx context.Context, reqs []config.ProviderRequirement, opts *Options, cfg *CLIConfig, sources []methodSource, locks Locks, platform string) (Locks, error) {
	tmp, err := os.MkdirTemp("", "tether-providers-lock-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in := &installer{opts: opts, cfg: cfg, locks: locks, sources: sources, hashes: openHashCache(tmp), root: tmp, platform: platform, fetching: true}
	out := Locks{}
	var errs []error
	for _, req := range reqs {
		w, err := in.choose(ctx, req)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, entry, err := in.install(ctx, w)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[req.Source] = entry
	}
	return out, errors.Join(errs...)
}

// choose selects the version of req, and the sources that have it, as
// the locks allow.
func (in *installer) choose(ctx context.Context, req config.ProviderRequirement) (*want, error) {
	cons, err := parseConstraints(req.Source, req.Constraints)
	if err != nil {
		return nil, err
	}
	w := &want{addr: req.Source, cons: cons, lock: in.locks[req.Source]}
	if err := in.selectVersion(ctx, w); err != nil {
		return nil, err
	}
	return w, nil
}

func containsAll(have, want []string) bool {
	for _, h := range want {
		if !contains(have, h) {
			return false
		}
	}
	return true
}

var platformPattern = regexp.MustCompile(`^([a-z0-9]+)_([a-z0-9]+)$`)

// ParsePlatform checks an OS_ARCH platform such as "linux_amd64" as
// Terraform's -platform option does: two words of lowercase letters and
// digits, joined by an underscore.
func ParsePlatform(s string) error {
	if strings.Count(s, "_") != 1 {
		return errors.New("must be two words separated by an underscore")
	}
	if !platformPattern.MatchString(s) {
		osName, _, _ := strings.Cut(s, "_")
		if !regexp.MustCompile(`^[a-z0-9]+$`).MatchString(osName) {
			return errors.New("OS portion must be only lowercase letters and digits")
		}
		return errors.New("architecture portion must be only lowercase letters and digits")
	}
	return nil
}
