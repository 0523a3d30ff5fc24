package cli

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	getter "github.com/hashicorp/go-getter/v2"
	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/codegen"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/modules"
	"github.com/tetherhq/tether/internal/provider"
)

// genModule writes Go bindings for the module at source: a local folder
// (relative to the working folder, where the program runs), a module
// registry address, git:: or an archive URL, fetched as init fetches
// modules. The providers the module requires are installed and started as
// init and plan do, to read the types of its resources.
func (e *env) genModule(ctx context.Context, source, version, out, pkg string) int {
	mod, err := e.readModule(ctx, source, version)
	if err != nil {
		return e.errorf("%v", err)
	}
	defer mod.cleanup()
	if len(mod.diags) > 0 {
		e.configDiagnostics(nil, mod.diags)
		if mod.diags.HasErrors() {
			return 1
		}
	}
	if pkg == "" {
		pkg = moduleName(source)
	}
	cmd := "tether gen --module " + source
	if version != "" {
		cmd += " --version " + version
	}
	if pkg != moduleName(source) {
		cmd += " --package " + pkg
	}
	opts := codegen.ModuleOptions{Package: pkg, Source: source, Version: version, Installed: mod.version, Command: cmd}
	if out == "" {
		out = pkg
	}
	if err := codegen.WriteModuleDir(out, mod.iface, opts); err != nil {
		return e.errorf("%v", err)
	}
	what := source
	if mod.version != "" {
		what += " " + mod.version
	}
	fmt.Fprintf(e.stdout, "Generated bindings for module %s: %s and %s, package %s under %s.\n",
		what, count(len(mod.iface.Variables), "variable"), count(len(mod.iface.Outputs), "output"), pkg, out)
	return 0
}

// moduleRead is a module's interface, read for generating bindings.
type moduleRead struct {
	iface   *hclconfig.Interface
	version string // installed from a registry
	diags   hcl.Diagnostics
	cleanup func()
}

// readModule fetches the module at source and reads its interface. An
// error is returned when nothing could be read; diagnostics about the
// module are in the result.
func (e *env) readModule(ctx context.Context, source, version string) (*moduleRead, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	// What is fetched goes to a folder of its own, gone afterwards: the
	// bindings need the module's files only while they are generated, and
	// the program's .tether/modules is the program's to fill.
	tmp, err := os.MkdirTemp("", "tether-gen-module-")
	if err != nil {
		return nil, err
	}
	res := &moduleRead{cleanup: func() { os.RemoveAll(tmp) }}
	home, _ := os.UserHomeDir()
	cliCfg, err := install.LoadCLIConfig(os.Environ(), home, wd)
	if err != nil {
		res.cleanup()
		return nil, fmt.Errorf("cannot read the CLI configuration: %v", err)
	}
	inst := &modules.Installer{Dir: tmp, Tokens: cliCfg.Tokens, Progress: func(line string) { fmt.Fprintln(e.stderr, line) }}
	dir, err := inst.Resolve(ctx, modules.Call{Key: "module", Source: source, Version: version, ParentDir: wd})
	if err != nil {
		res.cleanup()
		return nil, fmt.Errorf("cannot fetch module %s: %v", source, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		res.cleanup()
		return nil, fmt.Errorf("the module source %q does not name a folder (looked for %s)", source, dir)
	}
	if err := inst.Save(); err == nil {
		if m, err := modules.ReadManifest(tmp); err == nil {
			for _, r := range m.Modules {
				if r.Key == "module" {
					res.version = r.Version
				}
			}
		}
	}
	// The modules it calls are installed beside it.
	nested := &modules.Installer{Dir: tmp, Tokens: cliCfg.Tokens, Progress: inst.Progress}
	mods, diags := hclconfig.Modules(dir, hclconfig.Options{}, func(key, src, ver, parentDir string) (string, error) {
		return nested.Resolve(ctx, modules.Call{Key: "module." + key, Source: src, Version: ver, ParentDir: parentDir})
	})
	res.diags = diags
	if diags.HasErrors() {
		return res, nil
	}
	reqs, diags := hclconfig.Requirements(dir, mods)
	res.diags = append(res.diags, diags...)
	if diags.HasErrors() {
		return res, nil
	}
	pool, err := e.newPool(ctx, e.stderr)
	if err != nil {
		res.cleanup()
		return nil, fmt.Errorf("cannot read the CLI configuration: %v", err)
	}
	defer pool.close()
	schemas := map[string]*provider.Schema{}
	for _, req := range reqs {
		s, err := pool.schema(req)
		if err != nil {
			res.diags = append(res.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Provider not available",
				Detail:   fmt.Sprintf("The module needs provider %s, whose schema gives the types of its resources: %v", req.Source.ForDisplay(), err),
				Subject:  req.DeclRange.Ptr(),
			})
			continue
		}
		schemas[req.Source.String()] = s
	}
	if res.diags.HasErrors() {
		return res, nil
	}
	iface, diags := hclconfig.ReadInterface(dir, hclconfig.Options{Schemas: schemas, Modules: mods})
	res.diags = append(res.diags, diags...)
	res.iface = iface
	return res, nil
}

// moduleName is the default package name of a module's bindings: the last
// element of its path (the subdirectory, the repository, or the registry
// module's name), without the terraform-PROVIDER- prefix of registry
// modules' repositories.
func moduleName(source string) string {
	src, subdir := getter.SourceDirSubdir(source)
	name := subdir
	if name == "" {
		if i := strings.Index(src, "::"); i >= 0 {
			src = src[i+2:]
		}
		src, _, _ = strings.Cut(src, "?")
		src = strings.TrimSuffix(strings.TrimRight(filepath.ToSlash(src), "/"), ".git")
		for _, ext := range []string{".tar.gz", ".tgz", ".zip", ".tar"} {
			src = strings.TrimSuffix(src, ext)
		}
		if !modules.IsLocal(source) && !filepath.IsAbs(source) && strings.Count(src, "/") >= 2 && !strings.Contains(src, "://") {
			// A registry address: [HOST/]NAMESPACE/NAME/SYSTEM.
			parts := strings.Split(src, "/")
			src = parts[len(parts)-2]
		}
		name = src
	}
	name = path.Base(strings.TrimRight(name, "/"))
	if rest, ok := strings.CutPrefix(name, "terraform-"); ok {
		if _, after, ok := strings.Cut(rest, "-"); ok && after != "" {
			name = after
		}
	}
	return codegen.PackageName(name)
}
