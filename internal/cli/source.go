package cli

import (
	"context"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/ui"
)

// Source produces the configuration a command works on. The tether
// command reads HCL files; a Go program built with the SDK runs its own
// code instead. It is called after the working folder has been changed to
// the configuration folder, before state is touched.
type Source func(in LoadInput) (*config.Config, hcl.Diagnostics)

// LoadInput is what a Source is given.
type LoadInput struct {
	Context context.Context
	// Schemas are the schemas of the providers Tether runs, by local name;
	// Sources their source addresses.
	Schemas map[string]*provider.Schema
	Sources map[string][]string
	// Vars are -var and -var-file arguments in the order given.
	Vars    []hclconfig.VarArg
	Environ []string
	// NewProvider starts an instance of a provider, separate from the one
	// the engine uses, for reads made while loading. The caller closes it.
	NewProvider func(name string) (provider.Provider, error)
	// Destroying is set when the configuration is loaded only to destroy
	// what state records: a Go program then need not work out what its
	// closures read.
	Destroying bool
}

// hclSource reads the *.tf files of the working folder.
func hclSource(in LoadInput) (*config.Config, hcl.Diagnostics) {
	return hclconfig.Load(".", hclconfig.Options{Schemas: in.Schemas, Sources: in.Sources, Vars: in.Vars, Environ: in.Environ})
}

// load starts the providers and loads the configuration from the
// invocation's source, printing diagnostics. The caller closes the
// providers it gets back.
func (e *env) load(ctx context.Context, c *common) (map[string]provider.Provider, map[string]*provider.Schema, *config.Config, bool) {
	provs, schemas, cfg, diags := e.loadConfig(ctx, c)
	e.configDiagnostics(cfg, diags)
	if diags.HasErrors() {
		return nil, nil, nil, false
	}
	return provs, schemas, cfg, true
}

// loadConfig is load without printing: on errors the providers are
// already closed.
func (e *env) loadConfig(ctx context.Context, c *common) (map[string]provider.Provider, map[string]*provider.Schema, *config.Config, hcl.Diagnostics) {
	provs, schemas, sources, diags := providers()
	var vars []hclconfig.VarArg
	for _, v := range *c.vars.list {
		vars = append(vars, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
	}
	src := e.src
	if src == nil {
		src = hclSource
	}
	in := LoadInput{
		Context: ctx, Schemas: schemas, Sources: sources, Vars: vars, Environ: os.Environ(),
		NewProvider: newProvider, Destroying: c.destroying,
	}
	cfg, d := src(in)
	diags = append(diags, d...)
	if diags.HasErrors() {
		for _, p := range provs {
			p.Close()
		}
		return nil, nil, cfg, diags
	}
	return provs, schemas, cfg, diags
}

// configDiagnostics prints diagnostics about a configuration, with
// excerpts of its sources where it was read.
func (e *env) configDiagnostics(cfg *config.Config, diags hcl.Diagnostics) {
	var srcs map[string][]byte
	if cfg != nil {
		srcs = cfg.Sources
	}
	if len(diags) > 0 {
		ui.WriteDiagnostics(e.stderr, diags, srcs, e.color)
	}
}
