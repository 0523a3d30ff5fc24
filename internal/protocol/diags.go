package protocol

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
)

// AttributePather is what a diagnostic's Extra implements, possibly behind
// hcl.DiagnosticExtraUnwrapper, when the diagnostic is about one attribute
// of the object a call was about. Providers attach it so that Terraform,
// and the engine, can point at that attribute in the configuration.
type AttributePather interface {
	AttributePath() cty.Path
}

// PathExtra is the AttributePather this package attaches to diagnostics
// it decodes.
type PathExtra struct {
	Path cty.Path
}

func (e PathExtra) AttributePath() cty.Path { return e.Path }

// DiagnosticsToTF converts diagnostics for sending to Terraform.
func DiagnosticsToTF(diags hcl.Diagnostics) []*tfprotov6.Diagnostic {
	if len(diags) == 0 {
		return nil
	}
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		if d == nil {
			continue
		}
		td := &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  d.Summary,
			Detail:   d.Detail,
		}
		if d.Severity == hcl.DiagWarning {
			td.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if pe, ok := hcl.DiagnosticExtra[AttributePather](d); ok {
			if p := pe.AttributePath(); len(p) > 0 {
				td.Attribute = PathToTF(p)
			}
		}
		out = append(out, td)
	}
	return out
}

// DiagnosticsFromTF converts diagnostics received over the protocol. A
// diagnostic of invalid severity counts as an error: something went wrong
// even if the sender could not say how badly.
func DiagnosticsFromTF(in []*tfprotov6.Diagnostic) hcl.Diagnostics {
	if len(in) == 0 {
		return nil
	}
	out := make(hcl.Diagnostics, 0, len(in))
	for _, td := range in {
		if td == nil {
			continue
		}
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  td.Summary,
			Detail:   td.Detail,
		}
		if td.Severity == tfprotov6.DiagnosticSeverityWarning {
			d.Severity = hcl.DiagWarning
		}
		if td.Attribute != nil && len(td.Attribute.Steps()) > 0 {
			d.Extra = PathExtra{Path: PathFromTF(td.Attribute)}
		}
		out = append(out, d)
	}
	return out
}
