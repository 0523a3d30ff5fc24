package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	tfjson "github.com/hashicorp/terraform-json"
)

// validate checks the configuration without state or provider API calls:
// syntax, references, and arguments against the providers' schemas.
// Variables without a value are not an error here, as in Terraform.
func (e *env) validate(ctx context.Context, args []string) int {
	var c common
	fs := e.flags("validate", &c)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if code := e.parseCommon(fs, &c, args); code >= 0 {
		return code
	}
	if err := c.chdir(); err != nil {
		return e.errorf("%v", err)
	}
	pool, cfg, diags := e.loadConfig(ctx, &c)
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
