package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/platform/aws"
)

// bundleName is the program built for Lambda, zipped, beside the
// Terraform JSON synth writes (in the state folder's aws folder for
// tether).
const bundleName = "bootstrap.zip"

// onPlatform returns cfg deployed on the platform the command chose
// (--platform), or else the configuration did (a Go program's
// Stack.Platform): as it is for local, lowered onto AWS resources for
// aws.
func (e *env) onPlatform(ctx context.Context, c *common, in LoadInput, cfg *config.Config) (*config.Config, hcl.Diagnostics) {
	name := c.platform
	var p *config.Platform
	if cfg != nil && cfg.Platform != nil {
		p = cfg.Platform
		if name == "" {
			name = p.Name
		}
	}
	if name == "" || name == "local" || cfg == nil {
		return cfg, nil
	}
	fail := func(summary, format string, args ...any) (*config.Config, hcl.Diagnostics) {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}
		if p != nil && c.platform == "" {
			d.Subject = p.DeclRange.Ptr()
		}
		return nil, hcl.Diagnostics{d}
	}
	if name != "aws" {
		return fail("Unknown platform", "The platform %q is not one of local and aws.", name)
	}
	if stateDirOf(ctx) == testStateDir {
		return fail("tether test does not run on aws yet", "tether test deploys a stack of its own and runs its tests from this machine; on the aws platform it would deploy to AWS, which it does not do yet. Run it with --platform local, or deploy with tether up --platform aws and test the endpoint.")
	}
	settings, err := aws.SettingsFrom(p, in.Environ, ".")
	if err != nil {
		return fail("Invalid aws platform settings", "%s.", strings.ToUpper(err.Error()[:1])+err.Error()[1:])
	}
	schema, err := in.Schema(aws.Requirement)
	if err != nil {
		return fail("Provider not available", "The aws platform deploys through hashicorp/aws: %v", err)
	}
	out := filepath.Join(stateDirOf(ctx), "aws")
	return aws.Lower(cfg, aws.Input{
		Settings: settings, Schema: schema, BundleName: bundleName,
		Bundle: func() (aws.Bundle, error) { return aws.Build(".", out) },
	})
}
