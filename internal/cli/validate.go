package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/diagnostic"
	"github.com/tetherhq/tether/internal/provider"
	"github.com/tetherhq/tether/internal/refs"
	"github.com/zclconf/go-cty/cty"
)

// validate checks the configuration without state or provider API calls:
// syntax, references, arguments and their values' types against the
// providers' schemas, and the providers' own validation of each resource,
// as terraform validate does. Variables without a value are not an error
// here, as in Terraform: every value from elsewhere is taken as unknown.
func (e *env) validate(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("validate", &c)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	if len(*c.vars.list) > 0 {
		return e.errorf("validate takes no -var or -var-file: as terraform validate, it checks the configuration with every input variable unknown")
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	c.validating = true
	pool, cfg, diags := e.loadConfig(ctx, &c, nil)
	if !diags.HasErrors() {
		diags = append(diags, validateRules(cfg)...)
		diags = append(diags, validateValues(cfg, pool)...)
	}
	pool.close()
	if *asJSON {
		return e.validateJSON(diags)
	}
	e.configDiagnostics(cfg, diags)
	if diags.HasErrors() {
		return 1
	}
	fmt.Fprintln(e.stdout, "Success! The configuration is valid.")
	return 0
}

// validateJSON prints Terraform's machine-readable validation result, so
// that tools reading `terraform validate -json` read Tether's too.
func (e *env) validateJSON(diags hcl.Diagnostics) int {
	out := tfjson.ValidateOutput{FormatVersion: "1.0", Valid: !diags.HasErrors(), Diagnostics: []tfjson.Diagnostic{}}
	for _, d := range diags {
		jd := tfjson.Diagnostic{Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagError {
			jd.Severity = tfjson.DiagnosticSeverityError
			out.ErrorCount++
		} else {
			jd.Severity = tfjson.DiagnosticSeverityWarning
			out.WarningCount++
		}
		if d.Subject != nil {
			jd.Range = &tfjson.Range{
				Filename: d.Subject.Filename,
				Start:    tfjson.Pos{Line: d.Subject.Start.Line, Column: d.Subject.Start.Column, Byte: d.Subject.Start.Byte},
				End:      tfjson.Pos{Line: d.Subject.End.Line, Column: d.Subject.End.Column, Byte: d.Subject.End.Byte},
			}
		}
		out.Diagnostics = append(out.Diagnostics, jd)
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Fprintln(e.stdout, string(b))
	if !out.Valid {
		return 1
	}
	return 0
}

// validateRules checks the validation rules of module variables whose
// values the call gives as constants, as terraform validate does: with
// everything else unknown, only what is decided by constants fails here.
func validateRules(cfg *config.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	unknown := config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal })
	calls := map[string]*config.Node{}
	for _, n := range cfg.Nodes {
		if n.Kind == config.Module {
			calls[n.Addr] = n
		}
	}
	for _, n := range cfg.Nodes {
		if n.Kind != config.Variable || len(n.Postconditions) == 0 || n.Eval == nil {
			continue
		}
		inst := config.NoInstance
		if call := calls[n.Module]; n.Argument && call != nil && call.Repeat != nil {
			inst = unknownInstance(call.Repeat)
		}
		v, d := n.Eval.Evaluate(unknown, inst)
		if d.HasErrors() {
			// validateValues reports what evaluating the call finds.
			continue
		}
		for _, c := range n.Postconditions {
			diags = append(diags, c.Check(unknown, config.NoInstance, v, "Invalid value for variable")...)
		}
	}
	return diags
}

// unknownInstance is an instance of a repeated object whose key is not
// known: every instance at once.
func unknownInstance(r *config.Repeat) config.Instance {
	inst := config.Instance{Key: cty.UnknownVal(cty.Number), Each: cty.DynamicVal}
	if r.ForEach {
		inst.Key = cty.UnknownVal(cty.String)
	}
	return inst
}

// validateValues evaluates every resource and data source with every value
// it refers to unknown, which finds values of the wrong type, and asks its
// provider, unconfigured, to validate what is known.
func validateValues(cfg *config.Config, pool *providerPool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	unknown := config.ScopeFunc(func(string) cty.Value { return cty.DynamicVal })
	instances := map[string]provider.Provider{}
	for _, n := range cfg.Nodes {
		if (n.Kind != config.Resource && n.Kind != config.DataSource && n.Kind != config.Ephemeral) || n.Eval == nil {
			continue
		}
		inst := config.NoInstance
		if n.Repeat != nil {
			inst = unknownInstance(n.Repeat)
		}
		v, d := n.Eval.Evaluate(unknown, inst)
		diags = append(diags, withAddress(n, d)...)
		if d.HasErrors() || len(refs.Find(v)) > 0 {
			// A reference has no value to validate before its provider call.
			continue
		}
		p, ok := instances[n.Source]
		if !ok {
			var err error
			if p, err = pool.start(n.Source); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Provider not available", Detail: err.Error(), Subject: n.DeclRange.Ptr()})
				continue
			}
			instances[n.Source] = p
		}
		uv, _ := v.UnmarkDeep()
		switch n.Kind {
		case config.Resource:
			d = p.ValidateResourceConfig(n.Type, uv)
		case config.DataSource:
			d = p.ValidateDataSourceConfig(n.Type, uv)
		default:
			d = p.ValidateEphemeralConfig(n.Type, uv)
		}
		diags = append(diags, withAddress(n, d)...)
	}
	return diags
}

// withAddress names the object a diagnostic is about and points at its
// declaration when nothing more precise is known, as the engine's do.
func withAddress(n *config.Node, diags hcl.Diagnostics) hcl.Diagnostics {
	return diagnostic.About(n.Addr, n.DeclRange.Ptr(), diags)
}
