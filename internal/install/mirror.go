package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-version"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/tetherhq/tether/internal/config"
)

// MirrorOptions are the inputs of Mirror besides the requirements.
type MirrorOptions struct {
	// Options gives the configuration folder (for its lock file), the CLI
	// configuration (for registry tokens), the HTTP client and where
	// progress lines go.
	Options
	// Platforms are the OS_ARCH platforms to mirror packages of; none
	// means this machine's.
	Platforms []string
	// Out is the mirror folder written.
	Out string
	// IgnoreLock selects the newest version the constraints allow instead
	// of the locked one.
	IgnoreLock bool
}

// Mirror is `providers mirror`: it downloads the release zip of every
// requirement for every platform from its origin registry, checked as
// installing checks it, into Out in the packed layout of a filesystem
// mirror (HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip),
// and writes beside each provider's zips the index.json and VERSION.json
// of the network mirror protocol, with each zip's h1 hash, so that the
// folder served by any static HTTP server is a network mirror. The indexes
// list every zip in the folder, mirrored now or before. Errors of several
// providers or platforms are joined; what could be mirrored is kept.
func Mirror(ctx context.Context, reqs []config.ProviderRequirement, opts MirrorOptions) error {
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return fmt.Errorf("cannot create the mirror folder: %w", err)
	}
	sources, cfg, err := lockSources(&LockOptions{Options: opts.Options})
	if err != nil {
		return err
	}
	locks := Locks{}
	if !opts.IgnoreLock {
		if locks, err = ReadLocks(opts.Dir); err != nil {
			return err
		}
	}
	platforms := opts.Platforms
	if len(platforms) == 0 {
		platforms = []string{hostPlatform}
	}
	tmp, err := os.MkdirTemp("", "tether-providers-mirror-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	in := &installer{opts: &opts.Options, cfg: cfg, locks: locks, sources: sources, hashes: openHashCache(tmp), root: tmp, platform: platforms[0], fetching: true}
	var errs []error
	for _, req := range mergeReqs(reqs) {
		opts.progress("- Mirroring %s...", req.Source.ForDisplay())
		w, err := in.choose(ctx, req)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case w.lock != nil:
			opts.progress("  - Selected v%s to match dependency lock file", w.pick)
		case w.cons.String() != "":
			opts.progress("  - Selected v%s to meet constraints %s", w.pick, w.cons.String())
		default:
			opts.progress("  - Selected v%s with no constraints", w.pick)
		}
		for _, platform := range platforms {
			opts.progress("  - Downloading package for %s...", platform)
			if err := mirrorPackage(ctx, w, platform, opts.Out, &opts.Options); err != nil {
				errs = append(errs, fmt.Errorf("cannot mirror %s %s for %s: %w", w.addr.ForDisplay(), w.pick, platform, err))
			}
		}
	}
	if err := writeMirrorIndexes(opts.Out); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// mirrorPackage downloads the zip of w for platform and puts it in place
// under out, by way of a hidden sibling file renamed over it.
func mirrorPackage(ctx context.Context, w *want, platform, out string, opts *Options) error {
	tmp, err := os.MkdirTemp("", "tether-provider-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	f, err := w.from[0].fetch(ctx, w.addr, w.pick, platform, tmp)
	if err != nil {
		return err
	}
	if f.zip == "" {
		return fmt.Errorf("%s gave an unpacked package, not a release zip", w.from[0])
	}
	auth, _, _ := strings.Cut(f.auth, ", key ID")
	opts.progress("  - Package authenticated: %s", auth)
	dir := filepath.Join(out, w.addr.Hostname.String(), w.addr.Namespace, w.addr.Type)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	target := filepath.Join(dir, fmt.Sprintf("terraform-provider-%s_%s_%s.zip", w.addr.Type, w.pick, platform))
	staging := filepath.Join(dir, "."+filepath.Base(target))
	data, err := os.ReadFile(f.zip)
	if err != nil {
		return err
	}
	if err := os.WriteFile(staging, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(staging, target); err != nil {
		os.Remove(staging)
		return err
	}
	return nil
}

// writeMirrorIndexes writes the network mirror indexes of every provider
// folder under out that holds release zips: index.json listing the
// versions, and VERSION.json each zip by platform with its URL (relative)
// and h1 hash.
func writeMirrorIndexes(out string) error {
	m := fsMirror{dir: out}
	var errs []error
	for _, p := range m.providers() {
		dir := m.providerDir(p)
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Maps, not structs, so that keys come sorted, as in Terraform's.
		type archive map[string]any
		byVersion := map[string]map[string]archive{}
		prefix := "terraform-provider-" + p.Type + "_"
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), prefix)
			if !ok || !strings.HasSuffix(rest, ".zip") || e.IsDir() {
				continue
			}
			parts := strings.SplitN(strings.TrimSuffix(rest, ".zip"), "_", 2)
			if len(parts) != 2 || ParsePlatform(parts[1]) != nil {
				continue
			}
			v, err := version.NewSemver(parts[0])
			if err != nil {
				continue
			}
			h1, err := dirhash.HashZip(filepath.Join(dir, e.Name()), dirhash.Hash1)
			if err != nil {
				errs = append(errs, fmt.Errorf("cannot compute the hash of %s: %w", filepath.Join(dir, e.Name()), err))
				continue
			}
			if byVersion[v.String()] == nil {
				byVersion[v.String()] = map[string]archive{}
			}
			byVersion[v.String()][parts[1]] = archive{"url": e.Name(), "hashes": []string{h1}}
		}
		if len(byVersion) == 0 {
			continue
		}
		versions := map[string]struct{}{}
		for v, archives := range byVersion {
			versions[v] = struct{}{}
			if err := writeIndex(filepath.Join(dir, v+".json"), map[string]any{"archives": archives}); err != nil {
				errs = append(errs, err)
			}
		}
		if err := writeIndex(filepath.Join(dir, "index.json"), map[string]any{"versions": versions}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeIndex writes v as Terraform writes its mirror indexes: indented by
// two spaces, keys sorted, no final newline.
func writeIndex(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("cannot write the mirror index %s: %w", path, err)
	}
	return nil
}
