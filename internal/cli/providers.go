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
	"github.com/tetherhq/tether/internal/plugin"
	"github.com/tetherhq/tether/internal/provider"
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

	mu      sync.Mutex
	pkgs    map[string]install.Package
	schemas map[string]*provider.Schema
	// idle holds the instance started to read a schema, handed out by
	// the first start, so that a provider used by one configuration runs
	// as one process.
	idle    map[string]provider.Provider
	started []provider.Provider
	closed  bool
}

// newPool makes the pool of a command run in the configuration folder
// (the working folder by then).
func (e *env) newPool(ctx context.Context, say io.Writer) (*providerPool, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	cliCfg, err := install.LoadCLIConfig(os.Environ(), home, wd)
	if err != nil {
		return nil, err
	}
	return &providerPool{
		ctx:     ctx,
		opts:    install.Options{Dir: wd, Config: cliCfg},
		say:     func(s string) { fmt.Fprintln(say, s) },
		pkgs:    map[string]install.Package{},
		schemas: map[string]*provider.Schema{},
		idle:    map[string]provider.Provider{},
	}, nil
}

// factory is the pool as the engine sees it.
func (pp *providerPool) factory() provider.Factory {
	return provider.Factory{
		Schema: func(source string) (*provider.Schema, error) {
			src, err := tfaddr.ParseProviderSource(source)
			if err != nil {
				return nil, err
			}
			return pp.schema(config.ProviderRequirement{Source: src})
		},
		Start: pp.start,
	}
}

// schema returns a provider's schema, installing and starting it first.
func (pp *providerPool) schema(req config.ProviderRequirement) (*provider.Schema, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	key := req.Source.String()
	if s, ok := pp.schemas[key]; ok {
		return s, nil
	}
	p, err := pp.launch(req)
	if err != nil {
		return nil, err
	}
	s, diags := p.GetSchema()
	if diags.HasErrors() {
		return nil, fmt.Errorf("reading the schema of %s: %s", req.Source.ForDisplay(), diags.Error())
	}
	if c, ok := p.(*plugin.Client); ok {
		// Functions are called on this instance, which stays running
		// until the command ends.
		fns, diags := c.GetFunctions(pp.ctx)
		if diags.HasErrors() {
			return nil, fmt.Errorf("reading the functions of %s: %s", req.Source.ForDisplay(), diags.Error())
		}
		s.Functions = fns
	}
	pp.schemas[key] = s
	pp.idle[key] = p
	return s, nil
}

// start returns a new unconfigured instance of a provider.
func (pp *providerPool) start(source string) (provider.Provider, error) {
	src, err := tfaddr.ParseProviderSource(source)
	if err != nil {
		return nil, err
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	key := src.String()
	if p, ok := pp.idle[key]; ok {
		delete(pp.idle, key)
		return p, nil
	}
	return pp.launch(config.ProviderRequirement{Source: src})
}

// launch installs a provider if needed and starts an instance. The caller
// holds mu.
func (pp *providerPool) launch(req config.ProviderRequirement) (provider.Provider, error) {
	if pp.closed {
		return nil, fmt.Errorf("provider %s cannot start: the run is over", req.Source.ForDisplay())
	}
	key := req.Source.String()
	pkg, ok := pp.pkgs[key]
	if !ok && req.Source == config.BuiltinSource {
		// In process, unless a development override names a build of it
		// to run as a plugin, as Terraform would.
		dir := ""
		if pp.opts.Config != nil {
			dir = pp.opts.Config.DevOverrides[config.BuiltinSource]
		}
		if dir == "" {
			p := tetherprovider.New()
			pp.started = append(pp.started, p)
			return p, nil
		}
		exe, err := overrideExecutable(dir)
		if err != nil {
			return nil, err
		}
		pp.say(fmt.Sprintf("Warning: provider development overrides are in effect: %s runs from %s.", req.Source.ForDisplay(), dir))
		pkg, ok = install.Package{Provider: req.Source, Dir: dir, Executable: exe, Dev: true}, true
		pp.pkgs[key] = pkg
	}
	if !ok {
		opts := pp.opts
		opts.Progress = pp.say
		pkgs, warnings, err := install.Ensure(pp.ctx, []config.ProviderRequirement{req}, opts)
		for _, w := range warnings {
			pp.say("Warning: " + w)
		}
		if err != nil {
			return nil, err
		}
		pkg, ok = pkgs[req.Source]
		if !ok {
			return nil, fmt.Errorf("provider %s was not installed", req.Source.ForDisplay())
		}
		pp.pkgs[key] = pkg
	}
	opts := plugin.StartOptions{SchemaCacheDir: filepath.Join(pp.opts.Dir, install.ProvidersDir, ".schemas")}
	p, err := plugin.StartWith(pp.ctx, pkg.Executable, opts)
	// A binary just written may still be open for writing in a process
	// that forked meanwhile and has not exec'd yet (Go issue 22315): the
	// kernel refuses to run it for that moment.
	for try := 0; err != nil && strings.Contains(err.Error(), "text file busy") && try < 20; try++ {
		time.Sleep(50 * time.Millisecond)
		p, err = plugin.StartWith(pp.ctx, pkg.Executable, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("provider %s %s: %w", req.Source.ForDisplay(), pkg.Version, err)
	}
	pp.started = append(pp.started, p)
	return p, nil
}

// close stops every provider the pool started. Later starts fail.
func (pp *providerPool) close() {
	if pp == nil {
		return
	}
	pp.mu.Lock()
	started := pp.started
	pp.started, pp.idle, pp.closed = nil, map[string]provider.Provider{}, true
	pp.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range started {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
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
