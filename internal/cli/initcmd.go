package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/install"
)

// init installs the providers a configuration requires and records them in
// the dependency lock file, as `terraform init` does. For a Go program,
// which names its providers only as it runs, it runs the program's
// declarations, installing each provider its bindings use.
func (e *env) init(ctx context.Context, args []string) int {
	c := common{initializing: true}
	fs := e.flags("init", &c)
	upgrade := fs.Bool("upgrade", false, "choose the newest versions the constraints allow, ignoring the lock file's")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
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
		return e.initialized()
	}
	reqs, diags := hclconfig.Requirements(".")
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return 1
	}
	wd, err := os.Getwd()
	if err != nil {
		return e.errorf("%v", err)
	}
	home, _ := os.UserHomeDir()
	cliCfg, err := install.LoadCLIConfig(os.Environ(), home, wd)
	if err != nil {
		return e.errorf("%v", err)
	}
	var external []config.ProviderRequirement
	for _, r := range reqs {
		if r.Source != config.BuiltinSource {
			external = append(external, r)
		}
	}
	_, warnings, err := install.Install(ctx, external, install.Options{
		Dir: wd, Config: cliCfg, Upgrade: *upgrade,
		Progress: func(line string) { fmt.Fprintln(e.stdout, line) },
	})
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if err != nil {
		return e.errorf("%v", err)
	}
	return e.initialized()
}

func (e *env) initialized() int {
	fmt.Fprintln(e.stdout, "\nTether has been successfully initialized!")
	return 0
}
