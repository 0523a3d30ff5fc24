package install

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/hashicorp/go-version"
	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
)

// ProvidersDir is where installed providers live, relative to the
// configuration folder.
const ProvidersDir = ".tether/providers"

// Installed returns the executable of every required provider other than
// the built-in one, from a folder where `tether init` has run: for each,
// the newest installed version that meets its constraints. A provider that
// is not installed is an error naming it and telling the user to run
// `tether init`.
func Installed(dir string, reqs []config.ProviderRequirement) (map[tfaddr.Provider]string, error) {
	out := map[tfaddr.Provider]string{}
	var missing []string
	for _, req := range reqs {
		if req.Source == config.BuiltinSource {
			continue
		}
		exe, err := installedExecutable(dir, req)
		if err != nil {
			return nil, err
		}
		if exe == "" {
			missing = append(missing, req.Source.ForDisplay())
			continue
		}
		out[req.Source] = exe
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("provider %s is not installed in %s; run \"tether init\" to install it",
			strings.Join(missing, ", "), filepath.Join(dir, ProvidersDir))
	}
	return out, nil
}

// installedExecutable finds the newest installed build of req that meets
// its constraints, or "" when there is none.
func installedExecutable(dir string, req config.ProviderRequirement) (string, error) {
	cons, err := constraints(req)
	if err != nil {
		return "", err
	}
	base := filepath.Join(dir, ProvidersDir, req.Source.Hostname.String(), req.Source.Namespace, req.Source.Type)
	entries, err := os.ReadDir(base)
	if err != nil {
		return "", nil
	}
	var versions []*version.Version
	for _, e := range entries {
		v, err := version.NewVersion(e.Name())
		if err != nil || !cons.Check(v) {
			continue
		}
		versions = append(versions, v)
	}
	sort.Sort(sort.Reverse(version.Collection(versions)))
	for _, v := range versions {
		platform := filepath.Join(base, v.Original(), runtime.GOOS+"_"+runtime.GOARCH)
		files, _ := os.ReadDir(platform)
		for _, f := range files {
			if strings.HasPrefix(f.Name(), "terraform-provider-"+req.Source.Type) && !f.IsDir() {
				return filepath.Join(platform, f.Name()), nil
			}
		}
	}
	return "", nil
}

func constraints(req config.ProviderRequirement) (version.Constraints, error) {
	var all version.Constraints
	for _, s := range req.Constraints {
		c, err := version.NewConstraint(s)
		if err != nil {
			return nil, fmt.Errorf("invalid version constraint %q for provider %s: %w", s, req.Source.ForDisplay(), err)
		}
		all = append(all, c...)
	}
	return all, nil
}
