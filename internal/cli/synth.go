package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/builtinplugin"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/install"
	"github.com/tetherhq/tether/internal/synth"
)

// synth writes the configuration as Terraform JSON.
func (e *env) synth(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("synth", &c)
	out := fs.String("out", "tether.out", "folder to write the Terraform JSON to, relative to the configuration folder")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	if len(*c.vars.list) > 0 {
		return e.errorf("synth writes the variables' declarations, not values: give -var and -var-file to terraform where it runs the output instead.")
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	// Synth writes declarations, not values: an answer to a variable's
	// question would not reach Terraform.
	c.input = false
	pool, cfg, ok := e.load(ctx, &c, nil)
	pool.close()
	if !ok {
		return 1
	}
	if e.src == nil {
		// HCL's backend block is read apart from the configuration; synth
		// writes it into the root module's terraform block.
		b, ok := e.backendBlock(nil)
		if !ok {
			return 1
		}
		cfg.Backend = b
	}
	files, diags := synth.Files(cfg, *out)
	plugin := !diags.HasErrors() && synth.UsesBuiltin(files)
	if plugin {
		diags = append(diags, builtinPlugin(cfg)...)
	}
	if !diags.HasErrors() {
		diags = append(diags, synth.WriteFiles(cfg, files, *out)...)
	}
	e.configDiagnostics(cfg, diags)
	if diags.HasErrors() {
		return 1
	}
	if plugin {
		if err := forgetBuiltinLock(*out); err != nil {
			return e.errorf("cannot update %s in %s: %v", install.LockFileName, *out, err)
		}
	}
	// Terraform reads these from the folder it runs in, as Tether read
	// them from the configuration folder.
	vars, _ := filepath.Glob("*.auto.tfvars*")
	if _, err := os.Stat("terraform.tfvars"); err == nil {
		vars = append(vars, "terraform.tfvars")
	}
	if _, err := os.Stat("terraform.tfvars.json"); err == nil {
		vars = append(vars, "terraform.tfvars.json")
	}
	for _, v := range vars {
		if !strings.HasSuffix(v, ".tfvars") && !strings.HasSuffix(v, ".tfvars.json") {
			continue
		}
		b, err := os.ReadFile(v)
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, v), b, 0o644)
		}
		if err != nil {
			return e.errorf("cannot copy %s to %s: %v", v, *out, err)
		}
	}
	fmt.Fprintf(e.stdout, "Wrote the configuration as Terraform JSON to %s; run terraform init and apply there.\n", filepath.Join(*out, synth.FileName))
	return 0
}

// builtinPlugin adds the built-in provider's plugin to the files synth
// copies: this executable, which serves it under the plugin's name
// (builtinplugin.Main), in the implied local mirror of the output folder,
// where terraform init finds it without the registry.
func builtinPlugin(cfg *config.Config) hcl.Diagnostics {
	exe, err := os.Executable()
	var mirror string
	if err == nil {
		mirror, err = builtinplugin.MirrorPath(Version)
	}
	if err != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot write the built-in provider",
			Detail:   fmt.Sprintf("The configuration uses the built-in provider, which synth copies into terraform.d/plugins for Terraform to find, but %v.", err),
		}}
	}
	if cfg.Files == nil {
		cfg.Files = map[string]string{}
	}
	cfg.Files[mirror] = exe
	return nil
}

// forgetBuiltinLock removes the built-in provider from the lock file of
// the output folder: the plugin synth wrote may be another build than the
// one recorded, whose checksum Terraform refuses to replace (even with
// init -upgrade), and terraform init records the new one.
func forgetBuiltinLock(dir string) error {
	locks, err := install.ReadLocks(dir)
	if err != nil {
		return err
	}
	if _, ok := locks[config.BuiltinSource]; !ok {
		return nil
	}
	delete(locks, config.BuiltinSource)
	return install.WriteLocks(dir, locks)
}
