package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
)

// providers is Terraform's `providers` command family: with no subcommand,
// the tree of providers the configuration and state require; lock,
// and mirror as their own functions. (schema -json is not written yet.)
func (e *env) providers(ctx context.Context, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "lock":
			return e.providersLock(ctx, args[1:])
		case "mirror":
			return e.providersMirror(ctx, args[1:])
		case "schema":
			return e.errorf("tether providers schema -json is not supported yet. tether gen --from reads the document terraform providers schema -json writes")
		}
	}
	fs := e.flags("providers", nil)
	dir := fs.String("C", ".", "configuration folder")
	fs.BoolVar(new(bool), "no-color", false, "print no colours")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if len(pos) > 0 {
		return e.errorf("unknown providers subcommand %q: use lock or mirror, or none to show the providers the configuration requires", pos[0])
	}
	c := common{dir: *dir}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	if _, isGo := goProgramDir(nil); isGo {
		return e.errorf("tether providers reads *.tf files, and this folder holds a Go program, which names its providers only as it runs; tether init installs them")
	}
	mods, ok := e.modules(e.quietLoad(ctx))
	if !ok {
		return 1
	}
	tree, diags := hclconfig.RequirementsTree(".", hclconfig.Options{Modules: mods, Files: e.parsed()})
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return 1
	}
	inState, ok := e.stateProviders(ctx)
	if !ok {
		return 1
	}
	fmt.Fprint(e.stdout, "\nProviders required by configuration:\n.\n")
	if err := writeRequirementsTree(e.stdout, tree, ""); err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintln(e.stdout)
	if len(inState) > 0 {
		fmt.Fprint(e.stdout, "Providers required by state:\n\n")
		for _, p := range inState {
			fmt.Fprintf(e.stdout, "    provider[%s]\n\n", p)
		}
	}
	return 0
}

// quietLoad is what the providers commands load modules with: progress,
// when a module must be installed first, goes to stderr, so that the
// output is the command's alone.
func (e *env) quietLoad(ctx context.Context) LoadInput {
	return LoadInput{Context: ctx, Environ: os.Environ(), Progress: func(line string) { fmt.Fprintln(e.stderr, line) }}
}

// writeRequirementsTree draws a module's requirements and its calls as
// Terraform does (treeprint's box drawing), with the prefix of the lines
// above it.
func writeRequirementsTree(w io.Writer, m *hclconfig.ModuleRequirements, prefix string) error {
	type line struct {
		text  string
		child *hclconfig.ModuleRequirements
	}
	var lines []line
	for _, r := range m.Requirements {
		cons, err := install.ConstraintsString(r.Source, r.Constraints)
		if err != nil {
			return err
		}
		text := "provider[" + r.Source.String() + "]"
		if cons != "" {
			text += " " + cons
		}
		lines = append(lines, line{text: text})
	}
	for _, c := range m.Children {
		lines = append(lines, line{text: "module." + c.Name, child: c.ModuleRequirements})
	}
	for i, l := range lines {
		branch, indent := "├── ", "│   "
		if i == len(lines)-1 {
			branch, indent = "└── ", "    "
		}
		fmt.Fprintf(w, "%s%s%s\n", prefix, branch, l.text)
		if l.child != nil {
			if err := writeRequirementsTree(w, l.child, prefix+indent); err != nil {
				return err
			}
		}
	}
	return nil
}

// stateProviders lists the providers the selected workspace's state
// records objects of, sorted; none when there is no state yet.
func (e *env) stateProviders(ctx context.Context) ([]string, bool) {
	ws, ok := e.selectedWorkspace()
	if !ok {
		return nil, false
	}
	b, ok := e.openBackend(ctx, nil)
	if !ok {
		return nil, false
	}
	defer b.Close()
	if exists, err := b.StateExists(ctx, ws); err != nil {
		e.errorf("%v", err)
		return nil, false
	} else if !exists {
		return nil, true
	}
	store, ok := e.openWorkspace(ctx, b, ws, true)
	if !ok {
		return nil, false
	}
	defer store.Close()
	snap, err := store.Load(ctx)
	if err != nil {
		e.errorf("%v", err)
		return nil, false
	}
	seen := map[tfaddr.Provider]bool{}
	var out []string
	for _, o := range snap.Objects {
		pc, err := addr.ParseProviderConfig(o.Provider)
		if err != nil {
			e.errorf("%s in state: %v", o.Address, err)
			return nil, false
		}
		if !seen[pc.Source] {
			seen[pc.Source] = true
			out = append(out, pc.Source.String())
		}
	}
	sort.Strings(out)
	return out, true
}

// providersUsage is the error for a providers subcommand's bad arguments.
func (e *env) providersUsage(sub, msg string) int {
	fmt.Fprintf(e.stderr, "Error: %s\n\nRun \"tether providers %s --help\" to see its options.\n", strings.TrimSpace(msg), sub)
	return 1
}

func init() {
	help["providers"] = `Usage: tether providers [options]
       tether providers lock [options] [PROVIDER...]
       tether providers mirror [options] DIR

  Prints the tree of modules in the configuration with the providers each
  requires and the version constraints it puts on them, then the providers
  whose objects state records, as terraform providers does.

Subcommands:
  lock                  Record the providers' checksums for several platforms
                        in .terraform.lock.hcl, installing nothing
  mirror DIR            Write the providers' packages into a mirror folder

Options:
  -C DIR                Use the configuration in DIR (default: current folder)
`
	help["providers lock"] = `Usage: tether providers lock [options] [PROVIDER...]

  Records in .terraform.lock.hcl the checksums of each provider's package
  for every platform asked for, as terraform providers lock does: the h1
  hash of each package and, from a registry, the zh hashes its signed
  SHA256SUMS lists. Hashes already locked are kept; a locked version stays
  locked. Packages are fetched into a temporary folder: nothing is
  installed. By default each provider comes from its origin registry,
  whatever the CLI configuration's installation methods; -fs-mirror or
  -net-mirror asks that mirror alone. With PROVIDER source addresses, only
  those providers.

Options:
  -C DIR                Use the configuration in DIR (default: current folder)
  -platform=OS_ARCH     A platform to lock packages of, such as linux_amd64
                        (repeatable; default: this machine's)
  -fs-mirror=DIR        Fetch from this filesystem mirror only
  -net-mirror=URL       Fetch from this network mirror (https) only
  -enable-plugin-cache  Use the CLI configuration's plugin cache
`
	help["providers mirror"] = `Usage: tether providers mirror [options] DIR

  Downloads the release zip of each provider the configuration requires,
  from its origin registry, for every platform asked for, into DIR in the
  packed layout of a filesystem mirror, and writes beside them the
  index.json and VERSION.json of a network mirror, as terraform providers
  mirror does: DIR serves Tether and Terraform as a filesystem_mirror, or
  as a network_mirror from any static HTTPS server. The versions are the
  lock file's, or the newest the constraints allow. DIR is relative to the
  folder the command runs in.

Options:
  -C DIR                Use the configuration in DIR (default: current folder)
  -platform=OS_ARCH     A platform to mirror packages of, such as linux_amd64
                        (repeatable; default: this machine's)
  -lock-file=false      Ignore the lock file's versions
`
}
