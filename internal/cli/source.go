package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/modules"
	"github.com/tetherhq/tether/internal/provider"
)

// Source produces the configuration a command works on. The tether
// command reads HCL files; a Go program built with the SDK runs its own
// code instead. It is called after the working folder has been changed to
// the configuration folder, before state is touched.
type Source func(in LoadInput) (*config.Config, hcl.Diagnostics)

// LoadInput is what a Source is given.
type LoadInput struct {
	Context context.Context
	// Schema returns the schema of a required provider, installing and
	// starting it first when this run has not yet: the same as `tether
	// init` would install, checked against the lock file. A Go program
	// calls it as its bindings are first used.
	Schema func(req config.ProviderRequirement) (*provider.Schema, error)
	// Vars are -var and -var-file arguments in the order given.
	Vars    []hclconfig.VarArg
	Environ []string
	// Workspace is the selected workspace, terraform.workspace in HCL.
	Workspace string
	// NewProvider starts an instance of a provider, by source address,
	// separate from the ones the engine uses, for reads made while
	// loading. The caller closes it.
	NewProvider func(source string) (provider.Provider, error)
	// Destroying is set when the configuration is loaded only to destroy
	// what state records: a Go program then need not work out what its
	// closures read.
	Destroying bool
	// Upgrade is init's --upgrade: modules are fetched again and their
	// newest allowed versions chosen.
	Upgrade bool
	// Installed takes only modules already installed (init -get=false).
	Installed bool
	// Progress receives lines saying what is being installed.
	Progress func(line string)
	// Validating is set by validate: root input variables are unknown
	// values of their types, as in terraform validate, and none is
	// required.
	Validating bool
	// Ask asks for a required root variable nothing set, on a terminal
	// (see hclconfig.Options.Ask); nil never asks.
	Ask func(query, description string) (string, bool)
	// Module installs a module a Go program calls, as init installs a
	// module block's (see ModuleInstaller); nil where modules cannot be
	// installed.
	Module func(key, source, version string) (*ModuleInstall, hcl.Diagnostics)

	// files are the command's files as already read (for the backend
	// block), for hclSource to parse nothing twice; nil for none.
	files *hclconfig.Files
	// parsed, when set, runs once hclSource has parsed the files and
	// before it loads them: loading is mostly one goroutine's work, so
	// what the command will need next can start beside it.
	parsed func()
	// dir is the folder of the configuration's files, relative to the
	// working folder; "" is the working folder. A tether test run of a
	// module loads that module, while its providers keep the working
	// folder, as in terraform test.
	dir string
}

// configDir is the folder hclSource reads.
func (in LoadInput) configDir() string {
	if in.dir == "" {
		return "."
	}
	return in.dir
}

// ModuleInstall is where a module call's module is.
type ModuleInstall struct {
	// Dir is the module's folder.
	Dir string
	// Version is the version installed from a module registry, "" for
	// other sources.
	Version string
	// Modules are the folders of the modules it calls, and theirs, by
	// key from the root ("net.vpc"), as hclconfig.Options.Modules takes
	// them.
	Modules map[string]string
}

// ModuleInstaller returns the function that installs the modules of a Go
// program running in the working folder: into .tether/modules, recorded
// in the same modules.json as init's, a module installed before for the
// same source and a version its constraint allows kept (all fetched again
// with upgrade). key is the call's module key ("net", or "site.net" in
// component site); a local source is relative to the working folder. The
// modules the module calls are installed with it.
func ModuleInstaller(ctx context.Context, environ []string, upgrade bool, progress func(string)) func(key, source, version string) (*ModuleInstall, hcl.Diagnostics) {
	var mu sync.Mutex
	var inst *modules.Installer
	return func(key, source, version string) (*ModuleInstall, hcl.Diagnostics) {
		mu.Lock()
		defer mu.Unlock()
		fail := func(summary string, err error) (*ModuleInstall, hcl.Diagnostics) {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: err.Error()}}
		}
		wd, err := os.Getwd()
		if err != nil {
			return fail("Cannot read configuration", err)
		}
		if inst == nil {
			home, _ := os.UserHomeDir()
			cliCfg, err := install.LoadCLIConfig(environ, home, wd)
			if err != nil {
				return fail("Cannot read the CLI configuration", err)
			}
			inst = &modules.Installer{Dir: wd, Tokens: cliCfg.Tokens, Upgrade: upgrade, Progress: progress}
		}
		dir, err := inst.Resolve(ctx, modules.Call{Key: key, Source: source, Version: version, ParentDir: wd})
		if err != nil {
			return fail("Module not installed", err)
		}
		res := &ModuleInstall{Dir: dir, Modules: map[string]string{}}
		nested, diags := hclconfig.Modules(dir, hclconfig.Options{}, func(k, src, ver, parentDir string) (string, error) {
			return inst.Resolve(ctx, modules.Call{Key: key + "." + k, Source: src, Version: ver, ParentDir: parentDir})
		})
		for k, d := range nested {
			res.Modules[key+"."+k] = d
		}
		if err := inst.Save(); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot record installed modules", Detail: err.Error()})
		}
		if m, err := modules.ReadManifest(wd); err == nil {
			for _, r := range m.Modules {
				if r.Key == key {
					res.Version = r.Version
				}
			}
		}
		return res, diags
	}
}

// hclSource reads the *.tf files of the working folder, with the schemas
// of every provider they require.
func hclSource(in LoadInput) (*config.Config, hcl.Diagnostics) {
	// The three walks below read the same files: parse them once.
	files := in.files
	if files == nil {
		files = &hclconfig.Files{}
	}
	mods, diags := installModules(in, files)
	if diags.HasErrors() {
		return nil, diags
	}
	if in.parsed != nil {
		in.parsed()
	}
	reqs, d := hclconfig.RequirementsOf(in.configDir(), hclconfig.Options{Modules: mods, Files: files})
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	// Providers install and start at once: for a large provider, reading
	// its schema is seconds of the provider's own time.
	found := make([]*provider.Schema, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i], errs[i] = in.Schema(req)
		}()
	}
	wg.Wait()
	schemas := map[string]*provider.Schema{}
	for i, req := range reqs {
		if errs[i] != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Provider not available",
				Detail:   errs[i].Error(),
				Subject:  req.DeclRange.Ptr(),
			})
			continue
		}
		schemas[req.Source.String()] = found[i]
	}
	if diags.HasErrors() {
		return nil, diags
	}
	cfg, d := hclconfig.Load(in.configDir(), hclconfig.Options{
		Schemas: schemas, Vars: in.Vars, Environ: in.Environ, Modules: mods, Workspace: in.Workspace, Files: files,
		UnknownVariables: in.Validating, Ask: in.Ask,
	})
	return cfg, append(diags, d...)
}

// load starts the providers and loads the configuration from the
// invocation's source, printing diagnostics. pool is the command's pool
// when it made one already (nil: load makes it). The caller closes the
// pool it gets back.
func (e *env) load(ctx context.Context, c *common, pool *providerPool) (*providerPool, *config.Config, bool) {
	pool, cfg, diags := e.loadConfig(ctx, c, pool)
	e.configDiagnostics(cfg, diags)
	if diags.HasErrors() {
		return nil, nil, false
	}
	return pool, cfg, true
}

// progressWriter is where a command prints installation progress: init
// reports it as its output, other commands beside theirs.
func (e *env) progressWriter(c *common) io.Writer {
	if c.initializing {
		return e.stdout
	}
	return e.stderr
}

// commandPool makes the provider pool of a command and, but for init
// (which starts no provider), begins the providers the lock file selects
// (see prestart).
func (e *env) commandPool(ctx context.Context, c *common) (*providerPool, hcl.Diagnostics) {
	pool, err := e.newPool(ctx, e.progressWriter(c))
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the CLI configuration", Detail: err.Error()}}
	}
	pool.opts.Upgrade = c.upgrade
	if !c.initializing {
		pool.prestart()
	}
	return pool, nil
}

// loadConfig is load without printing: on errors the providers are
// already closed.
func (e *env) loadConfig(ctx context.Context, c *common, pool *providerPool) (*providerPool, *config.Config, hcl.Diagnostics) {
	say := e.progressWriter(c)
	if pool == nil {
		var diags hcl.Diagnostics
		if pool, diags = e.commandPool(ctx, c); diags.HasErrors() {
			return nil, nil, diags
		}
	}
	var vars []hclconfig.VarArg
	for _, v := range *c.vars.list {
		vars = append(vars, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
	}
	src := e.src
	if src == nil {
		src = hclSource
	}
	environ := os.Environ()
	if c.environ != nil {
		environ = c.environ
	}
	in := LoadInput{
		Context: ctx, Schema: pool.schema, Vars: vars, Environ: environ,
		NewProvider: pool.start, Destroying: c.destroying, Workspace: c.workspace, Validating: c.validating,
		Upgrade: c.upgrade, Progress: func(line string) { fmt.Fprintln(say, line) },
		files: e.parsed(), parsed: c.parsed, dir: c.configDir,
	}
	in.Module = ModuleInstaller(ctx, environ, c.upgrade, in.Progress)
	if c.input && e.stdinTTY && inputAllowed(environ) {
		in.Ask = e.askVariable
	}
	cfg, diags := src(in)
	if !diags.HasErrors() {
		e.noteProgram(cfg)
		lowered, d := e.onPlatform(ctx, c, in, cfg)
		diags = append(diags, d...)
		if !d.HasErrors() {
			cfg = lowered
		}
	}
	if diags.HasErrors() {
		pool.close()
		return nil, cfg, diags
	}
	return pool, cfg, diags
}

// configDiagnostics prints diagnostics about a configuration, with
// excerpts of its sources where it was read.
func (e *env) configDiagnostics(cfg *config.Config, diags hcl.Diagnostics) {
	var srcs map[string][]byte
	if cfg != nil {
		srcs = cfg.Sources
	}
	if len(diags) > 0 && e.diagSink != nil {
		e.diagSink(diags, srcs)
	} else if len(diags) > 0 {
		e.writeDiagnostics(diags, srcs)
	}
}

// modules is installModules with the configuration's files, printing
// diagnostics.
func (e *env) modules(in LoadInput) (map[string]string, bool) {
	mods, diags := installModules(in, e.parsed())
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return nil, false
	}
	return mods, true
}

// installModules finds the folder of every module the configuration
// calls, installing into .tether/modules what is not installed yet for its
// source and version (everything again with --upgrade), as init does:
// plan and up install what is missing on their own, as they do providers.
func installModules(in LoadInput, files *hclconfig.Files) (map[string]string, hcl.Diagnostics) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()}}
	}
	home, _ := os.UserHomeDir()
	cliCfg, err := install.LoadCLIConfig(in.Environ, home, wd)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the CLI configuration", Detail: err.Error()}}
	}
	inst := &modules.Installer{Dir: wd, Tokens: cliCfg.Tokens, Upgrade: in.Upgrade, Installed: in.Installed, Progress: in.Progress}
	ctx := in.Context
	if ctx == nil {
		ctx = context.Background()
	}
	dirs, diags := hclconfig.Modules(in.configDir(), hclconfig.Options{Vars: in.Vars, Environ: in.Environ, Files: files}, func(key, source, version, parentDir string) (string, error) {
		return inst.Resolve(ctx, modules.Call{Key: key, Source: source, Version: version, ParentDir: parentDir})
	})
	if err := inst.Save(); err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot record installed modules", Detail: err.Error()})
	}
	return dirs, diags
}
