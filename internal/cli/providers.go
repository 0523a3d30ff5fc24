package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/logging"
	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
	terraformprovider "github.com/tetherhq/tether/provider/terraform"
	tetherprovider "github.com/tetherhq/tether/provider/tether"
)

// providerPool runs the providers of one command: it installs each on
// first use (as `tether init` would, checked against the lock file),
// starts plugin processes, and stops every one of them in close, however
// the command ends. The built-in provider runs in process.
type providerPool struct {
	ctx  context.Context
	opts install.Options
	// say prints installation progress and warnings.
	say func(string)
	// program is set for a Go program, which runs the built-in provider
	// in process whatever the CLI configuration says: the closures it
	// deploys are the program's own code, which a plugin build lacks.
	program bool

	mu sync.Mutex
	// providers holds what is known of each provider, by source address;
	// each is installed and described once, different ones at once.
	providers map[tfaddr.Provider]*pooled
	started   []provider.Provider
	closed    bool
	// early holds the processes prestart began, by executable, until
	// launch takes them or close stops them.
	early map[string]*earlyStart
	// sources holds each source address string the engine asked for a
	// schema by, parsed: it asks once an instance. Guarded by mu.
	sources map[string]tfaddr.Provider
}

// earlyStart is a plugin process begun before its provider was asked for.
type earlyStart struct {
	done chan struct{}
	c    *plugin.Client
	err  error
}

// pooled is one provider of the pool.
type pooled struct {
	installOnce sync.Once
	pkg         install.Package
	// inProcess starts a provider that runs in process (Tether's own,
	// Terraform's built-in one); nil for a plugin.
	inProcess  func() provider.Provider
	installErr error

	schemaOnce sync.Once
	schema     *provider.Schema
	schemaErr  error
	// idle holds the instance started to read the schema, handed out by
	// the first start, so that a provider used by one configuration runs
	// as one process. Guarded by the pool's mu.
	idle provider.Provider
}

// newPool makes the pool of a command run in the configuration folder
// (the working folder by then).
func (e *env) newPool(ctx context.Context, say io.Writer) (*providerPool, error) {
	opts, err := e.installOptions()
	if err != nil {
		return nil, err
	}
	var sayMu sync.Mutex
	return &providerPool{
		ctx:  ctx,
		opts: opts,
		say: func(s string) {
			sayMu.Lock()
			defer sayMu.Unlock()
			fmt.Fprintln(say, s)
		},
		providers: map[tfaddr.Provider]*pooled{},
		program:   e.src != nil,
	}, nil
}

// factory is the pool as the engine sees it.
func (pp *providerPool) factory() provider.Factory {
	return provider.Factory{
		Schema: func(source string) (*provider.Schema, error) {
			pp.mu.Lock()
			src, ok := pp.sources[source]
			pp.mu.Unlock()
			if !ok {
				var err error
				if src, err = tfaddr.ParseProviderSource(source); err != nil {
					return nil, err
				}
				pp.mu.Lock()
				if pp.sources == nil {
					pp.sources = map[string]tfaddr.Provider{}
				}
				pp.sources[source] = src
				pp.mu.Unlock()
			}
			return pp.schema(config.ProviderRequirement{Source: src})
		},
		Start: pp.start,
	}
}

// entry is the pool's record of a provider, made on first use.
func (pp *providerPool) entry(src tfaddr.Provider) *pooled {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	e, ok := pp.providers[src]
	if !ok {
		e = &pooled{}
		pp.providers[src] = e
	}
	return e
}

// schema returns a provider's schema, installing and starting it first.
// Several providers may be asked for at once; each is described once.
func (pp *providerPool) schema(req config.ProviderRequirement) (*provider.Schema, error) {
	e := pp.entry(req.Source)
	e.schemaOnce.Do(func() {
		p, err := pp.launch(req, e)
		if err != nil {
			e.schemaErr = err
			return
		}
		s, diags := p.GetSchema()
		if diags.HasErrors() {
			e.schemaErr = fmt.Errorf("reading the schema of %s: %s", req.Source.ForDisplay(), diags.Error())
			return
		}
		// Its functions, from the same response, call this instance,
		// which stays running until the command ends.
		e.schema = s
		pp.mu.Lock()
		e.idle = p
		pp.mu.Unlock()
	})
	return e.schema, e.schemaErr
}

// start returns a new unconfigured instance of a provider.
func (pp *providerPool) start(source string) (provider.Provider, error) {
	src, err := tfaddr.ParseProviderSource(source)
	if err != nil {
		return nil, err
	}
	e := pp.entry(src)
	pp.mu.Lock()
	if p := e.idle; p != nil {
		e.idle = nil
		pp.mu.Unlock()
		return p, nil
	}
	pp.mu.Unlock()
	return pp.launch(config.ProviderRequirement{Source: src}, e)
}

// prestart begins, in the background, a process of every provider the
// lock file selects that is installed and passes its lock check, so that
// a large provider's start-up (a fraction of a second for the AWS
// provider) overlaps the reading of the configuration instead of
// following it. Nothing is trusted early: launch takes a process only
// when Ensure, given the configuration's requirements, picks the same
// executable, so version constraints and hashes are checked as before;
// a process nobody takes is stopped by close. With -upgrade the lock
// file's versions are not the ones that will run, so nothing starts.
func (pp *providerPool) prestart() {
	if pp.opts.Upgrade {
		return
	}
	pkgs, err := install.Locked(pp.opts)
	if err != nil {
		return // Ensure reports a lock file it cannot read
	}
	opts := plugin.StartOptions{SchemaCacheDir: schemaCacheDir(pp.opts)}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	for _, pkg := range pkgs {
		if pp.early == nil {
			pp.early = map[string]*earlyStart{}
		}
		es := &earlyStart{done: make(chan struct{})}
		pp.early[pkg.Executable] = es
		logging.Core().Debug("starting a locked provider while the configuration is read", "provider", pkg.Provider.String(), "version", pkg.Version)
		go func() {
			defer close(es.done)
			es.c, es.err = plugin.StartWith(pp.ctx, pkg.Executable, opts)
		}()
	}
}

// takeEarly returns the process prestart began for exe, if it started.
func (pp *providerPool) takeEarly(exe string) (*plugin.Client, bool) {
	pp.mu.Lock()
	es, ok := pp.early[exe]
	delete(pp.early, exe)
	pp.mu.Unlock()
	if !ok {
		return nil, false
	}
	<-es.done
	if es.err != nil {
		// Started again below, so that the error is the one a start
		// at this point gives, with the provider named.
		return nil, false
	}
	return es.c, true
}

// launch installs a provider if needed (once) and starts an instance.
func (pp *providerPool) launch(req config.ProviderRequirement, e *pooled) (provider.Provider, error) {
	e.installOnce.Do(func() { e.pkg, e.inProcess, e.installErr = pp.install(req) })
	if e.installErr != nil {
		return nil, e.installErr
	}
	var p provider.Provider
	if e.inProcess != nil {
		p = e.inProcess()
	} else {
		opts := plugin.StartOptions{SchemaCacheDir: schemaCacheDir(pp.opts)}
		c, early := pp.takeEarly(e.pkg.Executable)
		var err error
		if !early {
			c, err = plugin.StartWith(pp.ctx, e.pkg.Executable, opts)
		}
		// A binary just written may still be open for writing in a process
		// that forked meanwhile and has not exec'd yet (Go issue 22315): the
		// kernel refuses to run it for that moment.
		for try := 0; err != nil && strings.Contains(err.Error(), "text file busy") && try < 20; try++ {
			time.Sleep(50 * time.Millisecond)
			c, err = plugin.StartWith(pp.ctx, e.pkg.Executable, opts)
		}
		if err != nil {
			return nil, fmt.Errorf("provider %s %s: %w", req.Source.ForDisplay(), e.pkg.Version, err)
		}
		p = c
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.closed {
		p.Close()
		return nil, fmt.Errorf("provider %s cannot start: the run is over", req.Source.ForDisplay())
	}
	pp.started = append(pp.started, p)
	return p, nil
}

// schemaCacheDir is where providers' schemas are kept across runs (see
// plugin.StartOptions), beside the installed providers.
func schemaCacheDir(opts install.Options) string {
	return filepath.Join(opts.Dir, install.ProvidersDir, ".schemas")
}

// keepSchemas fills the schema cache with the schema of each plugin
// installed, at once, so that the first plan after `init` starts them
// without asking for it. A provider that fails to start is not init's
// concern (Terraform's init starts none): the plan that needs it says
// what is wrong.
func keepSchemas(ctx context.Context, pkgs map[tfaddr.Provider]install.Package, opts install.Options) {
	ctx, cancel := context.WithTimeout(ctx, keepSchemaTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, pkg := range pkgs {
		if pkg.Dev || pkg.Executable == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := plugin.KeepSchema(ctx, pkg.Executable, schemaCacheDir(opts)); err != nil {
				logging.Core().Debug("schema not kept", "provider", pkg.Provider.String(), "error", err)
			}
		}()
	}
	wg.Wait()
}

// keepSchemaTimeout bounds keepSchemas: a provider that does not start
// within it is left for the plan to report.
const keepSchemaTimeout = time.Minute

// install finds or installs the package of a provider, or says how to
// start it in process: the built-in one runs in process unless a
// development override names a build of it to run as a plugin, as
// Terraform would (but never for a Go program); Terraform's built-in terraform provider always does.
func (pp *providerPool) install(req config.ProviderRequirement) (install.Package, func() provider.Provider, error) {
	if req.Source.IsBuiltIn() {
		if req.Source != config.TerraformSource {
			return install.Package{}, nil, fmt.Errorf("there is no built-in provider named %q: the only one is terraform (%s)", req.Source.Type, config.TerraformSource)
		}
		return install.Package{}, terraformprovider.New, nil
	}
	if req.Source == config.BuiltinSource {
		dir := ""
		if pp.opts.Config != nil {
			dir = pp.opts.Config.DevOverrides[config.BuiltinSource]
		}
		if dir != "" && pp.program {
			pp.say(fmt.Sprintf("Note: the development override for %s is not used: a Go program runs the built-in provider itself, for its closures.", req.Source.ForDisplay()))
			dir = ""
		}
		if dir == "" {
			return install.Package{}, tetherprovider.New, nil
		}
		exe, err := overrideExecutable(dir)
		if err != nil {
			return install.Package{}, nil, err
		}
		pp.say(fmt.Sprintf("Warning: provider development overrides are in effect: %s runs from %s.", req.Source.ForDisplay(), dir))
		return install.Package{Provider: req.Source, Dir: dir, Executable: exe, Dev: true}, nil, nil
	}
	opts := pp.opts
	opts.Progress = pp.say
	pkgs, warnings, err := install.Ensure(pp.ctx, []config.ProviderRequirement{req}, opts)
	for _, w := range warnings {
		pp.say("Warning: " + w)
	}
	if err != nil {
		return install.Package{}, nil, err
	}
	pkg, ok := pkgs[req.Source]
	if !ok {
		return install.Package{}, nil, fmt.Errorf("provider %s was not installed", req.Source.ForDisplay())
	}
	return pkg, nil, nil
}

// close stops every provider the pool started. Later starts fail.
func (pp *providerPool) close() {
	if pp == nil {
		return
	}
	pp.mu.Lock()
	started := pp.started
	pp.started, pp.closed = nil, true
	for _, e := range pp.providers {
		e.idle = nil
	}
	early := pp.early
	pp.early = nil
	pp.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range started {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	for _, es := range early {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-es.done
			if es.c != nil {
				es.c.Close()
			}
		}()
	}
	wg.Wait()
}

// overrideExecutable finds the built-in provider's plugin binary in a
// development override folder.
func overrideExecutable(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("the development override for tetherhq/tether names %s, which cannot be read: %w", dir, err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(e.Name(), "terraform-provider-tether") {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", fmt.Errorf("the development override for tetherhq/tether names %s, which holds no terraform-provider-tether executable", dir)
}

// installOptions are what installing providers in the working folder
// needs: the folder and Terraform's CLI configuration, read from the
// environment and the home folder as Terraform reads them, with what
// init's flags change.
func (e *env) installOptions() (install.Options, error) {
	wd, err := os.Getwd()
	if err != nil {
		return install.Options{}, err
	}
	home, _ := os.UserHomeDir()
	cliCfg, err := install.LoadCLIConfig(os.Environ(), home, wd)
	if err != nil {
		return install.Options{}, err
	}
	opts := install.Options{Dir: wd, Config: cliCfg}
	if e.installFlags != nil {
		e.installFlags(&opts)
	}
	return opts, nil
}
