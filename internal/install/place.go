package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// install puts the selected version of w in place, from the installed
// folder, the plugin cache or its first source, and returns the package
// and its new lock entry.
//
// The hashes locked for that version (when the lock has it) must match:
// an installed or cached package that does not is replaced from the
// source, and a fetched package that does not is refused. The new entry
// keeps those hashes and adds the package's h1 and, when the source
// signed them, the "zh:" hashes of every platform's zip.
func (in *installer) install(ctx context.Context, w *want) (Package, *LockEntry, error) {
	vs := w.pick.String()
	final := in.packageDir(w.addr, vs)
	var prior []string
	if w.lock != nil && w.lock.Version == vs {
		prior = w.lock.Hashes
	}
	done := func(hashes []string) (Package, *LockEntry, error) {
		exe, err := executableIn(final, w.addr.Type)
		if err != nil {
			return Package{}, nil, fmt.Errorf("provider %s %s: %w", w.addr.ForDisplay(), vs, err)
		}
		entry := &LockEntry{Provider: w.addr, Version: vs, Constraints: w.cons.String(), Hashes: sortedUnique(hashes)}
		return Package{Provider: w.addr, Version: vs, Dir: final, Executable: exe}, entry, nil
	}

	switch in.local(w, vs) {
	case "installed":
		in.installing("- Using previously-installed %s v%s", w.addr.ForDisplay(), vs)
		return done(prior)
	case "cached":
		h1, err := hashDir(in.cachedDir(w, vs))
		if err == nil && len(prior) > 0 && !contains(prior, h1) {
			// Only plugin_cache_may_break_dependency_lock_file gets here
			// with a package the lock does not have: as in Terraform, it
			// lifts the rule for versions not locked, no more.
			err = errors.New(hashMismatch("the plugin cache's copy", prior, h1))
		}
		if err == nil {
			err = link(in.cachedDir(w, vs), final)
		}
		if err != nil {
			return Package{}, nil, fmt.Errorf("cannot link provider %s %s from the plugin cache: %w", w.addr.ForDisplay(), vs, err)
		}
		in.installing("- Using %s v%s from the shared cache directory", w.addr.ForDisplay(), vs)
		return done(append([]string{h1}, prior...))
	}
	if in.fetching {
		// providers lock takes what the source has and adds its hashes to
		// the locked ones, as Terraform's does: a package of another
		// platform matches none of them.
		prior = nil
	}
	cached := in.cachedDir(w, vs)
	if len(w.from) == 0 {
		return Package{}, nil, fmt.Errorf("provider %s %s is not installed and no installation method has it", w.addr.ForDisplay(), vs)
	}

	src := w.from[0]
	in.installing("- Installing %s v%s...", w.addr.ForDisplay(), vs)
	if in.fetching {
		in.opts.progress("- Fetching %s %s for %s...", w.addr.ForDisplay(), vs, in.platform)
	}
	tmp, err := os.MkdirTemp("", "tether-provider-")
	if err != nil {
		return Package{}, nil, err
	}
	defer os.RemoveAll(tmp)
	fail := func(err error) (Package, *LockEntry, error) {
		removeEmptyParents(final, in.root)
		return Package{}, nil, fmt.Errorf("cannot install provider %s %s from %s: %w", w.addr.ForDisplay(), vs, src, err)
	}
	f, err := src.fetch(ctx, w.addr, w.pick, in.platform, tmp)
	if err != nil {
		return fail(err)
	}
	target := final
	if cached != "" {
		target = cached
	}
	if f.dir != "" {
		// An unpacked local package is linked, not copied, as Terraform
		// links it: into the plugin cache when there is one (whose entry
		// is then linked into the providers folder, as any cached package
		// is), else into the providers folder.
		h1, err := in.linkLocal(f, target, prior, w.addr.Type)
		if err == nil && cached != "" {
			if err = link(cached, final); err != nil {
				err = fmt.Errorf("cannot link it from the plugin cache: %w", err)
			}
		}
		if err != nil {
			return fail(err)
		}
		in.hashes.put(final, h1)
		in.installed(w, f)
		return done(append([]string{h1}, prior...))
	}
	staged, err := stage(f, target)
	if err != nil {
		return fail(err)
	}
	h1, err := in.verify(f, staged, prior)
	if err == nil {
		_, err = executableIn(staged, w.addr.Type)
	}
	if err == nil {
		err = commit(staged, target)
	}
	if err != nil {
		os.RemoveAll(staged)
		return fail(err)
	}
	if cached != "" {
		if err := link(cached, final); err != nil {
			return fail(fmt.Errorf("cannot link it from the plugin cache: %w", err))
		}
	}
	in.hashes.put(final, h1)
	in.installed(w, f)
	hashes := append([]string{h1}, prior...)
	return done(append(hashes, f.signedHashes...))
}

// installed prints the progress line of a package put in place.
func (in *installer) installed(w *want, f *fetched) {
	if in.fetching {
		in.opts.progress("- Retrieved %s %s for %s (%s)", w.addr.ForDisplay(), w.pick, in.platform, f.auth)
		return
	}
	in.opts.progress("- Installed %s v%s (%s)", w.addr.ForDisplay(), w.pick, f.auth)
}

// local says where version vs of w is already on disk with a hash the
// lock file has for that version: "installed" under the providers folder,
// "cached" in the plugin cache, or "" (also when the lock has no hashes
// for it, since then there is nothing to check the package against, and
// the package is installed from its source so that the lock gets every
// hash the source vouches for). With plugin_cache_may_break_dependency_lock_file,
// as in Terraform, any package the cache has for vs is "cached".
func (in *installer) local(w *want, vs string) string {
	locked := w.lock != nil && w.lock.Version == vs && len(w.lock.Hashes) > 0
	if locked {
		if _, err := os.Stat(in.packageDir(w.addr, vs)); err == nil {
			if h, err := in.hashes.h1(in.packageDir(w.addr, vs)); err == nil && contains(w.lock.Hashes, h) {
				return "installed"
			}
		}
	}
	if c := in.cachedDir(w, vs); c != "" && (locked || in.cfg.PluginCacheMayBreakLock) {
		if h, err := hashDir(c); err == nil && (in.cfg.PluginCacheMayBreakLock || contains(w.lock.Hashes, h)) {
			return "cached"
		}
	}
	return ""
}

// cachedDir is where version vs of w is in the plugin cache, or "" when
// there is no plugin cache.
func (in *installer) cachedDir(w *want, vs string) string {
	c := in.cfg.PluginCacheDir
	if c == "" {
		return ""
	}
	abs, err := filepath.Abs(c)
	if err != nil {
		return ""
	}
	return filepath.Join(abs, w.addr.Hostname.String(), w.addr.Namespace, w.addr.Type, vs, in.platform)
}

// linkLocal installs the unpacked package folder f.dir by making target
// (in the providers folder or the plugin cache) a symlink to it, after
// checking its hash and executable, and returns its h1.
func (in *installer) linkLocal(f *fetched, target string, prior []string, typ string) (string, error) {
	src, err := filepath.Abs(f.dir)
	if err != nil {
		return "", err
	}
	h1, err := in.verify(f, src, prior)
	if err != nil {
		return "", err
	}
	if _, err := executableIn(src, typ); err != nil {
		return "", err
	}
	if err := link(src, target); err != nil {
		return "", err
	}
	return h1, nil
}

// verify checks a staged package against the hashes its source gave and
// those locked for its version, and returns its h1 hash.
func (in *installer) verify(f *fetched, staged string, prior []string) (string, error) {
	h1, err := hashDir(staged)
	if err != nil {
		return "", err
	}
	if len(f.wantHashes) > 0 && len(h1Hashes(f.wantHashes)) > 0 && !contains(f.wantHashes, h1) {
		return "", fmt.Errorf("the package has hash %s, but the mirror lists %v", h1, f.wantHashes)
	}
	if len(prior) == 0 || contains(prior, h1) {
		return h1, nil
	}
	if f.dir != "" && len(h1Hashes(prior)) == 0 {
		// Only "zh:" hashes are locked, and an unpacked package has no zip
		// to check them against: Terraform accepts it, and so do we.
		return h1, nil
	}
	if f.zip != "" {
		if zh, err := zipSHA256(f.zip); err == nil && contains(prior, zh) {
			return h1, nil
		}
	}
	return "", fmt.Errorf("%s; run \"tether init -upgrade\" if the new package is to be trusted", hashMismatch("the package", prior, h1))
}

// link makes final a symlink to a package folder elsewhere (in the plugin
// cache or an unpacked filesystem mirror), replacing what was there
// atomically. Terraform links from both the same way. Where the file
// system cannot hold a symlink, final is a copy instead, as Terraform
// falls back to one; the caller has checked the source's hash, and the
// copy's is checked again on every later run, like any installed folder.
func link(cached, final string) error {
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.link-%d", final, os.Getpid())
	os.Remove(tmp)
	if err := symlink(cached, tmp); err != nil {
		staged, cerr := stage(&fetched{dir: cached}, final)
		if cerr != nil {
			return fmt.Errorf("cannot link %s (%v), nor copy it: %w", cached, err, cerr)
		}
		tmp = staged
	}
	if err := commit(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// symlink is os.Symlink, but for the tests of link's fallback.
var symlink = os.Symlink

// removeEmptyParents removes the folders from dir up to (not including)
// root that are empty, such as those made for a package that then failed.
func removeEmptyParents(dir, root string) {
	for dir != root && len(dir) > len(root) {
		if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
			return
		}
		dir = filepath.Dir(dir)
	}
}
