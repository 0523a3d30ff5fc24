package cli

import (
	"context"
	"fmt"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
)

// init installs the providers a configuration requires and records them in
// the dependency lock file, as `terraform init` does. For a Go program,
// which names its providers only as it runs, it runs the program's
// declarations, installing each provider its bindings use.
func (e *env) init(ctx context.Context, args []string) int {
	// init reads no variables and plans nothing: it takes only the flags
	// that mean something to it.
	fs := e.flags("init", nil)
	dir := fs.String("C", ".", "configuration folder")
	upgrade := fs.Bool("upgrade", false, "choose the newest versions the constraints allow, ignoring the lock file's")
	noColor := fs.Bool("no-color", false, "print no colours")
	input := fs.Bool("input", true, "ask for input where it is needed")
	forceCopy := fs.Bool("force-copy", false, "take over a folder's Terraform state without asking")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if !e.noArgs("init", pos) {
		return 1
	}
	if *noColor {
		e.color = false
	}
	var vars []varArg
	c := common{dir: *dir, vars: varArgs{list: &vars}, initializing: true, upgrade: *upgrade}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	fmt.Fprintln(e.stdout, "Initializing provider plugins...")
	if e.src != nil {
		// A Go program: loading it installs what its bindings use.
		pool, cfg, diags := e.loadConfig(ctx, &c)
		pool.close()
		e.configDiagnostics(cfg, diags)
		if diags.HasErrors() {
			return 1
		}
		if code := e.adoptTerraform(ctx, *forceCopy, *input); code >= 0 {
			return code
		}
		return e.initialized()
	}
	reqs, diags := hclconfig.Requirements(".")
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return 1
	}
	opts, err := installOptions()
	if err != nil {
		return e.errorf("%v", err)
	}
	opts.Upgrade = *upgrade
	opts.Progress = func(line string) { fmt.Fprintln(e.stdout, line) }
	var external []config.ProviderRequirement
	for _, r := range reqs {
		if r.Source != config.BuiltinSource {
			external = append(external, r)
		}
	}
	_, warnings, err := install.Install(ctx, external, opts)
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if err != nil {
		return e.errorf("%v", err)
	}
	if code := e.adoptTerraform(ctx, *forceCopy, *input); code >= 0 {
		return code
	}
	return e.initialized()
}

func (e *env) initialized() int {
	fmt.Fprintln(e.stdout, "\nTether has been successfully initialized!")
	return 0
}
