package install

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"
	svchost "github.com/hashicorp/terraform-svchost"
)

// hostPlatform is the OS_ARCH of the packages installed: this process's.
// providers lock and mirror ask the sources for other platforms too.
var hostPlatform = runtime.GOOS + "_" + runtime.GOARCH

// source is one installation method made ready to use.
type source interface {
	// String names the source for messages: "filesystem mirror /x",
	// "network mirror https://…/", "registry registry.terraform.io".
	String() string
	// versions lists the versions of addr the source has for platform
	// (OS_ARCH; a source that does not say which platforms a version has
	// lists them all). A provider the source does not know is errNotFound
	// (or an error wrapping it); any other error means the source is
	// broken.
	versions(ctx context.Context, addr tfaddr.Provider, platform string) ([]*version.Version, error)
	// fetch brings the package of addr at v for platform to the local
	// disk, into tmp (a folder the caller removes), and authenticates it as
	// far as the source can.
	fetch(ctx context.Context, addr tfaddr.Provider, v *version.Version, platform, tmp string) (*fetched, error)
}

// errNotFound is what a source answers for a provider or version it does
// not have.
var errNotFound = errors.New("not found")

// fetched is a package on local disk, not yet installed.
type fetched struct {
	// dir is an unpacked package folder, or zip the package's zip; one is
	// set.
	dir, zip string
	// auth is how the package was authenticated, for the progress line:
	// "signed by HashiCorp", "self-signed, key ID …", "verified checksum" or
	// "unauthenticated".
	auth string
	// signedHashes are hashes the source vouched for with a signature
	// (the "zh:" hashes of every platform in a signed SHA256SUMS), recorded
	// in the lock file beside the package's own h1.
	signedHashes []string
	// wantHashes, when set, are the hashes the source said the package
	// has; the package must match one of them.
	wantHashes []string
}

// sourcesFor makes the sources of cfg's installation methods.
func sourcesFor(cfg *CLIConfig, opts *Options) ([]methodSource, error) {
	var out []methodSource
	for _, m := range cfg.Methods {
		var s source
		switch m.Kind {
		case FilesystemMirror:
			s = fsMirror{dir: m.Location}
		case NetworkMirror:
			s = &netMirror{base: m.Location, http: opts.client(), token: cfg.Tokens[mirrorHost(m.Location)]}
		case Direct:
			s = newRegistry(opts.client(), cfg.Tokens)
		default:
			return nil, fmt.Errorf("unknown provider installation method %q", m.Kind)
		}
		out = append(out, methodSource{m, s})
	}
	return out, nil
}

// methodSource is a source with the patterns that say which providers it
// serves.
type methodSource struct {
	Method
	source
}

// mirrorHost is the hostname of a network mirror's URL in the form tokens
// are kept by, or "".
func mirrorHost(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	h, err := svchost.ForComparison(u.Host)
	if err != nil {
		return ""
	}
	return h.String()
}
