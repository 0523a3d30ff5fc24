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
	// init plans nothing: it takes only the flags that mean something to
	// it.
	fs := e.flags("init", nil)
	dir := fs.String("C", ".", "configuration folder")
	upgrade := fs.Bool("upgrade", false, "choose the newest versions the constraints allow, ignoring the lock file's")
	noColor := fs.Bool("no-color", false, "print no colours")
	input := fs.Bool("input", true, "ask for input where it is needed")
	forceCopy := fs.Bool("force-copy", false, "copy state without asking: take over a folder's Terraform state, or move state to a changed backend (-migrate-state)")
	// Variables are read for module sources and versions that use them,
	// and for the backend block.
	var vars []varArg
	fs.Var(varArgs{list: &vars}, "var", "set an input variable, NAME=VALUE (for module sources and the backend block)")
	fs.Var(varFiles(varArgs{list: &vars}), "var-file", "read input variables from a file (for module sources and the backend block)")
	var bo backendOptions
	fs.Var(backendConfigs{&bo.configs}, "backend-config", "a backend setting KEY=VALUE, or a file of them (repeatable)")
	fs.BoolVar(&bo.migrate, "migrate-state", false, "move existing state to a changed backend")
	fs.BoolVar(&bo.reconfigure, "reconfigure", false, "use a changed backend as it is, leaving existing state where it is")
	withBackend := fs.Bool("backend", true, "set up the backend (-backend=false: skip it, and taking over Terraform's state)")
	get := fs.Bool("get", true, "install the modules the configuration calls (-get=false: use those installed)")
	lockfile := fs.String("lockfile", "", `"readonly": check the providers against .terraform.lock.hcl without changing it`)
	var pluginDirs []string
	fs.Func("plugin-dir", "install providers only from this folder, a filesystem mirror (repeatable)", func(s string) error {
		pluginDirs = append(pluginDirs, s)
		return nil
	})
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if !e.noArgs("init", pos) {
		return 1
	}
	if *lockfile != "" && *lockfile != "readonly" {
		return e.errorf(`invalid value %q for the option -lockfile: the only mode is "readonly"`, *lockfile)
	}
	if *lockfile == "readonly" && *upgrade {
		return e.errorf("-lockfile=readonly and -upgrade cannot be used together: -upgrade chooses new versions, which a read-only lock file cannot record")
	}
	e.installFlags = func(o *install.Options) {
		o.LockReadOnly = *lockfile == "readonly"
		if len(pluginDirs) > 0 {
			o.Config.PluginDirs(pluginDirs)
		}
	}
	if !*withBackend && (bo.migrate || bo.reconfigure || len(bo.configs) > 0 || *forceCopy) {
		return e.errorf("-backend=false skips the backend: -backend-config, -migrate-state, -reconfigure and -force-copy have nothing to do then")
	}
	if *noColor {
		e.color = false
	}
	c := common{dir: *dir, vars: varArgs{list: &vars}, initializing: true, upgrade: *upgrade}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	bo.migrate = bo.migrate || *forceCopy // as in Terraform, -force-copy implies -migrate-state
	if bo.migrate && bo.reconfigure {
		return e.errorf("-migrate-state and -reconfigure cannot be used together: -migrate-state moves existing state to the new backend, -reconfigure leaves it behind")
	}
	if e.src != nil {
		if !*get {
			// Its modules are installed as it runs: the flag could only
			// be ignored.
			return e.errorf("-get=false applies to *.tf files: a Go program's modules are installed as the program runs")
		}
		// A Go program: loading it installs what its bindings use, and
		// tells its backend, which is set up next.
		fmt.Fprintln(e.stdout, "Initializing provider plugins...")
		ws, ok := e.selectedWorkspace()
		if !ok {
			return 1
		}
		c.workspace = ws
		pool, cfg, diags := e.loadConfig(ctx, &c, nil)
		pool.close()
		e.configDiagnostics(cfg, diags)
		if diags.HasErrors() {
			return 1
		}
		if !*withBackend {
			return e.initialized()
		}
		if code := e.initBackend(ctx, vars, bo); code >= 0 {
			return code
		}
		if code := e.adoptTerraform(ctx, *forceCopy, *input); code >= 0 {
			return code
		}
		return e.initialized()
	}
	if *withBackend {
		if code := e.initBackend(ctx, vars, bo); code >= 0 {
			return code
		}
	}
	fmt.Fprintln(e.stdout, "Initializing modules...")
	var hv []hclconfig.VarArg
	for _, v := range vars {
		hv = append(hv, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
	}
	files := e.parsed()
	mods, ok := e.modules(LoadInput{
		Context: ctx, Environ: os.Environ(), Upgrade: *upgrade, Installed: !*get, Vars: hv,
		Progress: func(line string) { fmt.Fprintln(e.stdout, line) },
	})
	if !ok {
		return 1
	}
	reqs, diags := hclconfig.RequirementsOf(".", hclconfig.Options{Modules: mods, Files: files})
	if diags.HasErrors() {
		e.configDiagnostics(nil, diags)
		return 1
	}
	fmt.Fprintln(e.stdout, "Initializing provider plugins...")
	opts, err := e.installOptions()
	if err != nil {
		return e.errorf("%v", err)
	}
	opts.Upgrade = *upgrade
	opts.Progress = func(line string) { fmt.Fprintln(e.stdout, line) }
	var external []config.ProviderRequirement
	for _, r := range reqs {
		if !config.InProcess(r.Source) {
			external = append(external, r)
		}
	}
	pkgs, warnings, err := install.Install(ctx, external, opts)
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if err != nil {
		return e.errorf("%v", err)
	}
	keepSchemas(ctx, pkgs, opts)
	if !*withBackend {
		return e.initialized()
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

// get installs the modules the configuration calls, as terraform get
// does: init's module step alone, -update choosing again as init's
// -upgrade does. Variables are read for module sources that use them.
func (e *env) get(ctx context.Context, args []string) int {
	fs := e.flags("get", nil)
	dir := fs.String("C", ".", "configuration folder")
	update := fs.Bool("update", false, "install the newest version of each module the sources allow, replacing what is installed")
	noColor := fs.Bool("no-color", false, "print no colours")
	var vars []varArg
	fs.Var(varArgs{list: &vars}, "var", "set an input variable, NAME=VALUE (for module sources)")
	fs.Var(varFiles(varArgs{list: &vars}), "var-file", "read input variables from a file (for module sources)")
	pos, err := parse(fs, args)
	if err != nil {
		return e.flagError(fs, err)
	}
	if !e.noArgs("get", pos) {
		return 1
	}
	if *noColor {
		e.color = false
	}
	if _, isProgram := goProgramDir([]string{"-C", *dir}); isProgram {
		return e.errorf("tether get installs the modules of *.tf files; a Go program's modules are installed when it runs: use tether init")
	}
	c := common{dir: *dir}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	var hv []hclconfig.VarArg
	for _, v := range vars {
		hv = append(hv, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
	}
	if _, ok := e.modules(LoadInput{
		Context: ctx, Environ: os.Environ(), Upgrade: *update, Vars: hv,
		Progress: func(line string) { fmt.Fprintln(e.stdout, line) },
	}); !ok {
		return 1
	}
	return 0
}
