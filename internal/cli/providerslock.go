package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
)

// platformsArg is a repeatable -platform=OS_ARCH option.
type platformsArg struct{ list *[]string }

func (p platformsArg) String() string { return "" }
func (p platformsArg) Set(s string) error {
	if err := install.ParsePlatform(s); err != nil {
		return fmt.Errorf("%q is not a valid target platform: %v", s, err)
	}
	*p.list = append(*p.list, s)
	return nil
}

// providersLock is `providers lock`: the lock file gains the checksums of
// the providers' packages for every platform asked for, as Terraform's
// does; nothing is installed.
func (e *env) providersLock(ctx context.Context, args []string) int {
	fs := e.flags("providers lock", nil)
	dir := fs.String("C", ".", "configuration folder")
	var platforms []string
	fs.Var(platformsArg{&platforms}, "platform", "a target platform OS_ARCH to lock packages of (repeatable; default: this machine's)")
	fsMirror := fs.String("fs-mirror", "", "ask only this filesystem mirror folder")
	netMirror := fs.String("net-mirror", "", "ask only this network mirror (an https base URL)")
	pluginCache := fs.Bool("enable-plugin-cache", false, "use the plugin cache of the CLI configuration")
	fs.BoolVar(new(bool), "no-color", false, "print no colours")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if *fsMirror != "" && *netMirror != "" {
		return e.errorf("the -fs-mirror and -net-mirror options cannot be used together")
	}
	c := common{dir: *dir}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	reqs, ok := e.lockableRequirements(ctx, "providers lock")
	if !ok {
		return 1
	}
	if len(pos) > 0 {
		if reqs, ok = e.onlyProviders(reqs, pos); !ok {
			return 1
		}
	}
	opts, err := e.installOptions()
	if err != nil {
		return e.errorf("%v", err)
	}
	opts.Progress = func(line string) { fmt.Fprintln(e.stdout, line) }
	changed, err := install.Lock(ctx, reqs, install.LockOptions{
		Options: opts, Platforms: platforms, FSMirror: *fsMirror, NetMirror: *netMirror, PluginCache: *pluginCache,
	})
	if err != nil {
		return e.errorf("%v", err)
	}
	if changed {
		fmt.Fprintf(e.stdout, "\nSuccess! Tether has updated the lock file.\n\nReview the changes in %s and then commit to your\nversion control system to retain the new checksums.\n\n", install.LockFileName)
	} else {
		fmt.Fprint(e.stdout, "\nSuccess! Tether has validated the lock file and found no need for changes.\n")
	}
	return 0
}

// lockableRequirements are the providers the configuration requires
// but the built-in one, which is never installed nor locked. A Go program
// is refused: it names its providers only as it runs.
func (e *env) lockableRequirements(ctx context.Context, cmd string) ([]config.ProviderRequirement, bool) {
	if _, isGo := goProgramDir(nil); isGo {
		e.errorf("tether %s reads *.tf files, and this folder holds a Go program, which names its providers only as it runs; tether init installs and locks them", cmd)
		return nil, false
	}
	mods, ok := e.modules(e.quietLoad(ctx))
	if !ok {
		return nil, false
	}
	all, diags := hclconfig.RequirementsOf(".", hclconfig.Options{Modules: mods, Files: e.parsed()})
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return nil, false
	}
	var out []config.ProviderRequirement
	for _, r := range all {
		if !config.InProcess(r.Source) {
			out = append(out, r)
		}
	}
	return out, true
}

// onlyProviders keeps the requirements of the providers named, each of
// which the configuration must require.
func (e *env) onlyProviders(reqs []config.ProviderRequirement, names []string) ([]config.ProviderRequirement, bool) {
	want := map[tfaddr.Provider]bool{}
	var bad []string
	for _, n := range names {
		p, err := tfaddr.ParseProviderSource(n)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%q is not a provider source address: %v", n, err))
			continue
		}
		found := false
		for _, r := range reqs {
			found = found || r.Source == p
		}
		if !found {
			bad = append(bad, fmt.Sprintf("the provider %s is not required by the current configuration", p))
			continue
		}
		want[p] = true
	}
	if len(bad) > 0 {
		e.errorf("%s", strings.Join(bad, "; "))
		return nil, false
	}
	var out []config.ProviderRequirement
	for _, r := range reqs {
		if want[r.Source] {
			out = append(out, r)
		}
	}
	return out, true
}

// providersMirror is `providers mirror DIR`: the release zips of the
// providers the configuration requires, from their origin registries,
// with the indexes of a network mirror, as Terraform's.
func (e *env) providersMirror(ctx context.Context, args []string) int {
	fs := e.flags("providers mirror", nil)
	dir := fs.String("C", ".", "configuration folder")
	var platforms []string
	fs.Var(platformsArg{&platforms}, "platform", "a target platform OS_ARCH to mirror packages of (repeatable; default: this machine's)")
	useLock := fs.Bool("lock-file", true, "mirror the versions the lock file selects")
	fs.BoolVar(new(bool), "no-color", false, "print no colours")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) != 1 {
		return e.providersUsage("mirror", "tether providers mirror needs one argument, the mirror folder to write")
	}
	out, err := filepath.Abs(pos[0])
	if err != nil {
		return e.errorf("%v", err)
	}
	c := common{dir: *dir}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	reqs, ok := e.lockableRequirements(ctx, "providers mirror")
	if !ok {
		return 1
	}
	opts, err := e.installOptions()
	if err != nil {
		return e.errorf("%v", err)
	}
	opts.Progress = func(line string) { fmt.Fprintln(e.stdout, line) }
	err = install.Mirror(ctx, reqs, install.MirrorOptions{Options: opts, Platforms: platforms, Out: out, IgnoreLock: !*useLock})
	if err != nil {
		return e.errorf("%v", err)
	}
	return 0
}
