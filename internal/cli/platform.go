package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/backend"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/platform/aws"
	"github.com/tetherhq/tether/internal/state"
)

// bundleName is the program built for Lambda, zipped, beside the
// Terraform JSON synth writes (in the state folder's aws folder for
// tether).
const bundleName = "bootstrap.zip"

// onPlatform returns cfg deployed on the platform the command chose
// (--platform), or else the configuration did (a Go program's
// Stack.Platform), or else state was applied with: as it is for local,
// lowered onto AWS resources for aws. A choice that differs from state's
// is an error: the plan would replace one platform's objects by the
// other's.
func (e *env) onPlatform(ctx context.Context, c *common, in LoadInput, cfg *config.Config) (*config.Config, hcl.Diagnostics) {
	name, by := c.platform, "--platform"
	var p *config.Platform
	if cfg != nil && cfg.Platform != nil {
		p = cfg.Platform
		if name == "" {
			name, by = p.Name, "the program's Platform call"
		}
	}
	fail := func(summary, format string, args ...any) (*config.Config, hcl.Diagnostics) {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}
		if p != nil && c.platform == "" {
			d.Subject = p.DeclRange.Ptr()
		}
		return nil, hcl.Diagnostics{d}
	}
	switch {
	case name == "" && c.recorded != "":
		name = c.recorded
	case c.recorded != "" && orLocal(name) != c.recorded:
		return fail("Platform differs from state's",
			"This state was applied with the %s platform, and %s chooses %s: the plan would destroy what runs on %s and deploy it again on %s. To move, destroy first (tether destroy --platform %s), then deploy on %s; to stay, leave the choice out or choose %s.",
			c.recorded, by, orLocal(name), c.recorded, orLocal(name), c.recorded, orLocal(name), c.recorded)
	}
	if name == "" || name == "local" || cfg == nil {
		return cfg, nil
	}
	if name != "aws" {
		return fail("Unknown platform", "The platform %q is not one of local and aws.", name)
	}
	settings, err := aws.SettingsFrom(p, in.Environ, ".")
	if err != nil {
		return fail("Invalid aws platform settings", "%s.", strings.ToUpper(err.Error()[:1])+err.Error()[1:])
	}
	if stateDirOf(ctx) == testStateDir {
		// tether test deploys a stack of its own beside the one up
		// deployed: its objects need names of their own.
		settings.Prefix += "-test"
	}
	schema, err := in.Schema(aws.Requirement)
	if err != nil {
		return fail("Provider not available", "The aws platform deploys through hashicorp/aws: %v", err)
	}
	// The executable is linked in the main state folder's aws folder,
	// whichever state folder the zip is for: tether test then finds up's
	// build of the same program up to date.
	out := filepath.Join(stateDirOf(ctx), "aws")
	build := func() (aws.Bundle, error) { return aws.Build(".", filepath.Join(stateDir, "aws"), out) }
	if in.Destroying {
		// Destroying a function needs none of its code: the bundle is
		// named, never built.
		build = func() (aws.Bundle, error) { return aws.Bundle{Path: filepath.Join(out, bundleName)}, nil }
	}
	return aws.Lower(cfg, aws.Input{Settings: settings, Schema: schema, BundleName: bundleName, Bundle: build})
}

func orLocal(name string) string {
	if name == "" {
		return "local"
	}
	return name
}

// localTypes are the resources only the local platform leaves in state:
// the aws platform deploys each as AWS resources.
var localTypes = map[string]bool{"tether_function": true, "tether_router": true, "tether_route": true, "tether_kv": true}

// recordedPlatform is the platform the state in dir (the selected
// workspace's) was applied with: aws when it holds objects the aws
// platform tagged as its own (aws.Deployed), local when it holds the
// local runtime's functions, routers, routes or stores, and "" when it
// holds neither or cannot be read here (opening it again reports why).
func (e *env) recordedPlatform(ctx context.Context, c *common, dir string) string {
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	settings := backend.Local
	if dir == stateDir && e.src == nil {
		var vars []hclconfig.VarArg
		for _, v := range *c.vars.list {
			vars = append(vars, hclconfig.VarArg{Name: v.name, Value: v.value, File: v.file})
		}
		// The same parse as the configuration's, which a large one makes
		// worth sharing.
		block, diags := hclconfig.Backend(".", hclconfig.Options{Vars: vars, Environ: os.Environ(), Files: e.parsed()})
		if diags.HasErrors() {
			return ""
		}
		s, err := backend.Resolve(stateDir, block)
		if err != nil {
			return ""
		}
		settings = s
	}
	b, err := backend.Open(ctx, dir, settings)
	if err != nil {
		return ""
	}
	defer b.Close()
	ws := c.workspace
	if ws == "" {
		ws = backend.DefaultWorkspace
	}
	if ok, err := b.StateExists(ctx, ws); err != nil || !ok {
		return ""
	}
	// A peek: the command's own open, next, checks the file once.
	store, err := b.PeekState(ctx, ws)
	if err != nil {
		return ""
	}
	defer store.Close()
	platform, err := platformOf(ctx, store)
	if err != nil {
		return ""
	}
	return platform
}

// platformOf is the platform whose objects store holds (see
// recordedPlatform). It reads only the objects of the types that tell,
// so that a large state is not loaded for it before the run loads it
// again.
func platformOf(ctx context.Context, store state.Store) (string, error) {
	telling := func(m state.Mode, typ string) bool {
		return m == state.Managed && (localTypes[typ] || strings.HasPrefix(typ, "aws_"))
	}
	platform := ""
	err := state.ScanObjects(ctx, store, telling, func(o *state.Object) bool {
		switch {
		case localTypes[o.Type]:
			platform = "local"
		case aws.Deployed(o.Type, o.Value):
			platform = aws.Name
		}
		return platform == ""
	})
	return platform, err
}
