package install

import (
	"fmt"
	"net/http"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"
)

// Options are the inputs of Install and Ensure besides the requirements.
type Options struct {
	// Dir is the configuration folder: the lock file and .tether/providers
	// live here.
	Dir string
	// Config is the CLI configuration, from LoadCLIConfig. Nil means no
	// CLI configuration at all: direct installation from each provider's
	// registry, no plugin cache, no dev overrides.
	Config *CLIConfig
	// Upgrade ignores the versions in the lock file and selects the newest
	// version the constraints allow, as `init -upgrade` does.
	Upgrade bool
	// LockReadOnly leaves the lock file as it is, as `terraform init
	// -lockfile=readonly` does: a change of version or provider is an
	// error, and new hashes of locked versions are a warning.
	LockReadOnly bool
	// HTTP is the client for registries and network mirrors; nil means a
	// client that gives up on a server that does not answer within a
	// minute (but lets a large download take as long as it takes). Tests
	// pass one that trusts their CA.
	HTTP *http.Client
	// Progress, when set, receives Terraform-style progress lines such as
	// "- Installing hashicorp/time v0.14.2...".
	Progress func(line string)
}

// Package is an installed provider, ready to run.
type Package struct {
	Provider tfaddr.Provider
	// Version is the installed version, "" for a dev override.
	Version string
	// Dir is the package folder (under .tether/providers, or the dev
	// override folder), and Executable the provider binary in it.
	Dir        string
	Executable string
	// Dev is true for a dev_overrides build, which is not locked.
	Dev bool
}

var defaultClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = time.Minute
	return &http.Client{Transport: t}
}()

func (o *Options) client() *http.Client {
	if o.HTTP != nil {
		return o.HTTP
	}
	return defaultClient
}

func (o *Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}
