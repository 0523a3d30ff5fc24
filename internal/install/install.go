package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/filelock"
)

// ProvidersDir is where installed providers live, relative to the
// configuration folder, in Terraform's unpacked layout
// HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/.
const ProvidersDir = ".tether/providers"

// Install is `tether init`: it selects a version of every required
// provider (other than config.BuiltinSource), installs it under
// Dir/.tether/providers, and writes the lock file with what it selected.
//
// A provider in the lock file keeps its locked version unless
// opts.Upgrade is set; a locked version that no longer meets the
// constraints is an error telling to run `tether init -upgrade`. Otherwise
// the newest version that meets all constraints is selected (a prerelease
// only when a constraint names it exactly), from every installation method
// that serves the provider; the first method that lists the version
// provides it. A package already installed is reused when it matches the
// locked hashes; with a plugin cache, packages are installed into the
// cache and linked (symlinked) from Dir. A provider with a dev override is
// not installed: its override folder's binary is returned, with Dev set,
// and a warning for the caller to print.
//
// Every package is unpacked into a temporary sibling folder, checked, and
// renamed into place, so a failure never leaves half a package. As in
// Terraform, a package from the plugin cache or an unpacked filesystem
// mirror is not copied: its folder under .tether/providers is a symlink to
// it, made atomically once the package is checked (a copy where the file
// system refuses symlinks); with a plugin cache, an unpacked mirror's
// package is linked into the cache the same way, and the cache's entry
// into .tether/providers. Errors of
// several providers are joined; each names the provider and every place
// looked. The lock file is written only when every provider installed
// and its content changed (so a configuration without providers gets
// none); entries of providers no longer required are dropped.
func Install(ctx context.Context, reqs []config.ProviderRequirement, opts Options) (map[tfaddr.Provider]Package, []string, error) {
	return run(ctx, reqs, &opts, false)
}

// Ensure is what plan and up call: it returns the installed package of
// every requirement, checking each against the lock file. A provider that
// is locked and installed costs a few stat calls (the h1 hash of each
// package is cached under .tether/providers by file sizes and times); one
// that is missing is installed as Install would, and a provider new to the
// configuration is added to the lock file. A package whose hash is not in
// the lock is refused with an error that names the provider and both
// hashes. Lock entries of providers no longer required are kept.
func Ensure(ctx context.Context, reqs []config.ProviderRequirement, opts Options) (map[tfaddr.Provider]Package, []string, error) {
	return run(ctx, reqs, &opts, true)
}

// Locked returns the installed package of every provider the lock file
// of opts.Dir selects, where that version is installed and its hash is
// locked: what Ensure would return for a configuration that requires
// them, known before the configuration is read, so that a command can
// start the providers while it reads the configuration. It installs
// nothing and writes nothing but the hash cache. A provider that is not
// installed, fails its lock check or has a development override is left
// out: Ensure, called with the configuration's requirements, says what is
// wrong with it.
func Locked(opts Options) (map[tfaddr.Provider]Package, error) {
	in := &installer{opts: &opts, cfg: opts.Config, ensure: true, platform: hostPlatform}
	if in.cfg == nil {
		in.cfg = &CLIConfig{}
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	in.root = filepath.Join(dir, ProvidersDir)
	unlock := lockDir(dir)
	defer unlock()
	if in.locks, err = ReadLocks(dir); err != nil {
		return nil, err
	}
	if len(in.locks) == 0 {
		return nil, nil
	}
	if _, err := os.Stat(in.root); err != nil {
		return nil, nil
	}
	defer flock(filepath.Join(in.root, ".lock"))()
	in.hashes = openHashCache(in.root)
	defer in.hashes.save()
	out := map[tfaddr.Provider]Package{}
	for addr, entry := range in.locks {
		if _, dev := in.cfg.DevOverrides[addr]; dev {
			continue
		}
		if pkg, ok, err := in.ready(&want{addr: addr, lock: entry}); err == nil && ok {
			out[addr] = pkg
		}
	}
	return out, nil
}

// installer carries one Install or Ensure call.
type installer struct {
	opts    *Options
	cfg     *CLIConfig
	ensure  bool
	locks   Locks
	sources []methodSource
	hashes  *hashCache
	root    string // Dir/.tether/providers
	// platform is the OS_ARCH of the packages: hostPlatform, but for
	// providers lock and mirror.
	platform string
	// fetching is set for providers lock and mirror, which install into a
	// temporary root: the progress lines are theirs ("- Fetching …"), and
	// nothing installed before is reused.
	fetching bool
}

// want is one provider to install.
type want struct {
	addr  tfaddr.Provider
	cons  constraintSet
	lock  *LockEntry // nil when not locked
	pick  *version.Version
	from  []methodSource // sources that list pick, in order
	found string         // where versions were looked for, for errors
}

func run(ctx context.Context, reqs []config.ProviderRequirement, opts *Options, ensure bool) (map[tfaddr.Provider]Package, []string, error) {
	in := &installer{opts: opts, cfg: opts.Config, ensure: ensure, platform: hostPlatform}
	if in.cfg == nil {
		in.cfg = &CLIConfig{Methods: []Method{{Kind: Direct}}}
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, nil, err
	}
	in.root = filepath.Join(dir, ProvidersDir)
	unlock := lockDir(dir)
	defer unlock()
	if len(mergeReqs(reqs)) > 0 {
		if err := os.MkdirAll(in.root, 0o755); err != nil {
			return nil, nil, fmt.Errorf("cannot create %s: %w", in.root, err)
		}
		defer flock(filepath.Join(in.root, ".lock"))()
	}
	if in.locks, err = ReadLocks(dir); err != nil {
		return nil, nil, err
	}
	if in.sources, err = sourcesFor(in.cfg, opts); err != nil {
		return nil, nil, err
	}
	in.hashes = openHashCache(in.root)
	defer in.hashes.save()

	out := map[tfaddr.Provider]Package{}
	var warnings []string
	var errs []error
	var wants []*want
	var dev []string
	for _, req := range mergeReqs(reqs) {
		if path, ok := in.cfg.DevOverrides[req.Source]; ok {
			pkg, err := devPackage(req.Source, path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out[req.Source] = pkg
			dev = append(dev, fmt.Sprintf(" - %s in %s", req.Source.ForDisplay(), path))
			continue
		}
		cons, err := parseConstraints(req.Source, req.Constraints)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		wants = append(wants, &want{addr: req.Source, cons: cons, lock: in.locks[req.Source]})
	}
	if len(dev) > 0 {
		warnings = append(warnings, "Provider development overrides are in effect. The following providers are used from the folders the CLI configuration names, without version selection, checksums or a lock file entry:\n"+
			strings.Join(dev, "\n")+
			"\nThey may not behave as any released version does.")
	}

	newLocks := Locks{}
	if in.ensure {
		for p, e := range in.locks {
			newLocks[p] = e
		}
	} else {
		for p, e := range in.locks {
			if _, isDev := in.cfg.DevOverrides[p]; isDev {
				newLocks[p] = e
			}
		}
	}
	for _, w := range wants {
		if in.ensure {
			if pkg, ok, err := in.ready(w); err != nil {
				errs = append(errs, err)
				continue
			} else if ok {
				out[w.addr] = pkg
				newLocks[w.addr] = w.lock
				continue
			}
		}
		if err := in.selectVersion(ctx, w); err != nil {
			errs = append(errs, err)
		}
	}
	for _, w := range wants {
		if w.pick == nil {
			continue
		}
		pkg, entry, err := in.install(ctx, w)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[w.addr] = pkg
		newLocks[w.addr] = entry
	}
	if len(errs) > 0 {
		return nil, warnings, errors.Join(errs...)
	}
	switch {
	case sameLocks(in.locks, newLocks):
	case opts.LockReadOnly && !sameSelections(in.locks, newLocks):
		return nil, warnings, errors.New("Provider dependency changes detected: the required providers or their versions differ from " + LockFileName + ", which -lockfile=readonly keeps as it is. To use and record them, run tether init without -lockfile=readonly")
	case opts.LockReadOnly:
		warnings = append(warnings, "Provider lock file not updated: the providers' checksums differ from those in "+LockFileName+", which -lockfile=readonly keeps as it is. To record them, run tether init without -lockfile=readonly")
	default:
		if err := WriteLocks(dir, newLocks); err != nil {
			return nil, warnings, err
		}
	}
	return out, warnings, nil
}

// dirLocks serializes the calls on one configuration folder within the
// process, so that two Ensure calls (a command starting providers one by
// one) never lose each other's lock file updates; flock on
// .tether/providers/.lock does the same between processes.
var dirLocks sync.Map // abs folder -> *sync.Mutex

func lockDir(dir string) func() {
	m, _ := dirLocks.LoadOrStore(dir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// mergeReqs folds repeated requirements of one provider into one, with all
// their constraints.
func mergeReqs(reqs []config.ProviderRequirement) []config.ProviderRequirement {
	var out []config.ProviderRequirement
	idx := map[tfaddr.Provider]int{}
	for _, r := range reqs {
		if config.InProcess(r.Source) {
			continue
		}
		if i, ok := idx[r.Source]; ok {
			out[i].Constraints = append(out[i].Constraints, r.Constraints...)
			continue
		}
		idx[r.Source] = len(out)
		r.Constraints = append([]string(nil), r.Constraints...)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return providerLess(out[i].Source, out[j].Source) })
	return out
}

func sameLocks(a, b Locks) bool {
	return string(a.Bytes()) == string(b.Bytes())
}

// sameSelections reports whether two lock files select the same providers
// at the same versions under the same constraints, whatever their hashes.
func sameSelections(a, b Locks) bool {
	if len(a) != len(b) {
		return false
	}
	for p, ea := range a {
		eb, ok := b[p]
		if !ok || (ea == nil) != (eb == nil) {
			return false
		}
		if ea != nil && (ea.Version != eb.Version || ea.Constraints != eb.Constraints) {
			return false
		}
	}
	return true
}

// packageDir is where version v of p is installed.
func (in *installer) packageDir(p tfaddr.Provider, v string) string {
	return filepath.Join(in.root, p.Hostname.String(), p.Namespace, p.Type, v, in.platform)
}

// ready is Ensure's fast path: it returns the installed package of w when
// the lock file has w at a version that meets its constraints and that
// version is installed with a locked hash. A locked version that no longer
// meets the constraints, or an installed package whose hash is not locked,
// is an error; a package that is not installed is (false, nil).
func (in *installer) ready(w *want) (Package, bool, error) {
	if w.lock == nil {
		return Package{}, false, nil
	}
	v, err := version.NewSemver(w.lock.Version)
	if err != nil {
		return Package{}, false, err
	}
	if !w.cons.allows(v) {
		return Package{}, false, lockConflict(w, v)
	}
	dir := in.packageDir(w.addr, w.lock.Version)
	if _, err := os.Stat(dir); err != nil {
		return Package{}, false, nil
	}
	if err := in.checkInstalled(w, dir); err != nil {
		return Package{}, false, err
	}
	exe, err := executableIn(dir, w.addr.Type)
	if err != nil {
		return Package{}, false, fmt.Errorf("provider %s %s is installed in %s, but %v; run \"tether init\" to reinstall it", w.addr.ForDisplay(), w.lock.Version, dir, err)
	}
	return Package{Provider: w.addr, Version: w.lock.Version, Dir: dir, Executable: exe}, true, nil
}

// checkInstalled refuses an installed package whose h1 hash is not among
// the locked ones. A lock entry without hashes accepts any package.
func (in *installer) checkInstalled(w *want, dir string) error {
	if len(w.lock.Hashes) == 0 {
		return nil
	}
	got, err := in.hashes.h1(dir)
	if err != nil {
		return fmt.Errorf("cannot compute the checksum of provider %s in %s: %w", w.addr.ForDisplay(), dir, err)
	}
	if contains(w.lock.Hashes, got) {
		return nil
	}
	return fmt.Errorf("provider %s %s installed in %s does not match the dependency lock file %s: %s. Run \"tether init -upgrade\" to select and lock a new package, or restore the installed files (\"tether init\" reinstalls them)",
		w.addr.ForDisplay(), w.lock.Version, dir, LockFileName, hashMismatch("the package", w.lock.Hashes, got))
}

func lockConflict(w *want, v *version.Version) error {
	return fmt.Errorf("provider %s is locked at version %s in %s, which does not meet the configuration's version constraints %q; run \"tether init -upgrade\" to select a new version",
		w.addr.ForDisplay(), v, LockFileName, w.cons.String())
}

// selectVersion picks the version of w to install and the sources that
// have it, printing Terraform's progress lines.
func (in *installer) selectVersion(ctx context.Context, w *want) error {
	var locked *version.Version
	if w.lock != nil && !in.opts.Upgrade {
		v, err := version.NewSemver(w.lock.Version)
		if err != nil {
			return err
		}
		if !w.cons.allows(v) {
			return lockConflict(w, v)
		}
		locked = v
		in.installing("- Reusing previous version of %s from the dependency lock file", w.addr.ForDisplay())
		// A locked version already installed or cached needs no source
		// (Terraform asks the sources all the same; this works offline).
		if in.local(w, w.lock.Version) != "" {
			w.pick = v
			return nil
		}
	} else if s := w.cons.String(); s != "" {
		in.installing("- Finding %s versions matching %q...", w.addr.ForDisplay(), s)
	} else {
		in.installing("- Finding latest version of %s...", w.addr.ForDisplay())
	}

	bySource := map[string][]methodSource{}
	var all []*version.Version
	var looked []string
	for _, s := range in.sources {
		if !s.serves(w.addr) {
			continue
		}
		vs, err := s.versions(ctx, w.addr, in.platform)
		if errors.Is(err, errNotFound) {
			looked = append(looked, fmt.Sprintf("%s: %v", s, notFoundReason(err, in.platform)))
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot list the versions of provider %s from %s: %w", w.addr.ForDisplay(), s, err)
		}
		var listed []string
		for _, v := range vs {
			if _, ok := bySource[v.String()]; !ok {
				all = append(all, v)
			}
			bySource[v.String()] = append(bySource[v.String()], s)
			listed = append(listed, v.String())
		}
		sortVersions(listed)
		looked = append(looked, fmt.Sprintf("%s: has %s", s, strings.Join(listed, ", ")))
	}
	w.found = strings.Join(looked, "; ")
	if len(looked) == 0 {
		return fmt.Errorf("provider %s is not served by any provider installation method of the CLI configuration%s", w.addr.ForDisplay(), configNote(in.cfg))
	}
	if len(all) == 0 {
		return fmt.Errorf("provider %s was not found; looked in: %s", w.addr.ForDisplay(), w.found)
	}
	if locked != nil {
		if _, ok := bySource[locked.String()]; !ok {
			return fmt.Errorf("provider %s %s (locked in %s) is not available; looked in: %s", w.addr.ForDisplay(), locked, LockFileName, w.found)
		}
		w.pick = locked
	} else if w.pick = w.cons.newest(all); w.pick == nil {
		return fmt.Errorf("no available version of provider %s meets the constraints %q; looked in: %s", w.addr.ForDisplay(), w.cons.String(), w.found)
	}
	w.from = bySource[w.pick.String()]
	return nil
}

// installing prints a progress line of Install and Ensure; providers
// lock and mirror print their own.
func (in *installer) installing(format string, args ...any) {
	if !in.fetching {
		in.opts.progress(format, args...)
	}
}

func notFoundReason(err error, platform string) string {
	if msg := strings.TrimPrefix(err.Error(), errNotFound.Error()+": "); msg != errNotFound.Error() {
		return msg
	}
	return "no package for " + platform
}

func configNote(cfg *CLIConfig) string {
	if cfg.File == "" {
		return ""
	}
	return " (" + cfg.File + ")"
}

func sortVersions(vs []string) {
	sort.Slice(vs, func(i, j int) bool {
		a, _ := version.NewSemver(vs[i])
		b, _ := version.NewSemver(vs[j])
		if a == nil || b == nil {
			return vs[i] < vs[j]
		}
		return a.LessThan(b)
	})
}

func devPackage(p tfaddr.Provider, dir string) (Package, error) {
	exe, err := executableIn(dir, p.Type)
	if err != nil {
		return Package{}, fmt.Errorf("the dev override of provider %s: %w", p.ForDisplay(), err)
	}
	return Package{Provider: p, Dir: dir, Executable: exe, Dev: true}, nil
}

// flock takes an exclusive lock on the file path, waiting for it, so that
// two processes never install into one folder at once; the returned
// function releases it. A lock that cannot be taken is skipped: it guards
// against a rare race and must not stop an install.
func flock(path string) func() {
	unlock, err := filelock.Lock(path)
	if err != nil {
		return func() {}
	}
	return unlock
}
