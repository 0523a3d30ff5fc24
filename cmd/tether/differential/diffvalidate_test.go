package differential

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestDifferentialValidate validates every configuration under
// testdata/diffvalidate with `terraform validate -json` and `tether
// validate --json`, with no variable given: both must agree on whether it
// is valid and report the same errors (summary, file and line).
func TestDifferentialValidate(t *testing.T) {
	tools := differentialTools(t)
	cases, err := filepath.Glob(filepath.Join("testdata", "diffvalidate", "*", "main.tf"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases in testdata/diffvalidate: %v", err)
	}
	for _, mainFile := range cases {
		caseDir := filepath.Dir(mainFile)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			tf, tt := twoSides(t, tools, caseDir)
			tfOut, ttOut := e2e.Both(tf, tt, func(s e2e.Side) validation {
				if s.Name == "terraform" {
					// get installs the local modules; with the provider a
					// dev override, init is not needed. A configuration it
					// refuses is validate's to report.
					s.Run("get", "-no-color")
					return validated(s.Run("validate", "-json", "-no-color"))
				}
				return validated(s.Run("validate", "--json"))
			})
			for _, v := range []validation{tfOut, ttOut} {
				if v.err != nil {
					t.Fatalf("%v\n%s", v.err, v.res)
				}
			}
			if tfOut.out.Valid != ttOut.out.Valid || !slices.Equal(tfOut.errors, ttOut.errors) {
				t.Errorf("validate differs:\nterraform: valid=%v %q\ntether:    valid=%v %q\n%s\n%s",
					tfOut.out.Valid, tfOut.errors, ttOut.out.Valid, ttOut.errors, tfOut.res, ttOut.res)
			}
		})
	}
}

// validation is what one tool's validate -json said.
type validation struct {
	res    e2e.CmdResult
	out    tfjson.ValidateOutput
	errors []string // "file:line: summary", sorted
	err    error
}

func validated(r e2e.CmdResult) validation {
	v := validation{res: r}
	if r.Err != nil || (r.Code != 0 && r.Code != 1) {
		v.err = fmt.Errorf("validate did not run to a verdict")
		return v
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v.out); err != nil {
		v.err = fmt.Errorf("validate -json output is not terraform-json's ValidateOutput: %w", err)
		return v
	}
	if want := !v.out.Valid; (r.Code == 1) != want {
		v.err = fmt.Errorf("exit %d does not match valid=%v", r.Code, v.out.Valid)
	}
	for _, d := range v.out.Diagnostics {
		if d.Severity != tfjson.DiagnosticSeverityError {
			continue
		}
		at := "?"
		if d.Range != nil {
			at = fmt.Sprintf("%s:%d", filepath.ToSlash(d.Range.Filename), d.Range.Start.Line)
		}
		v.errors = append(v.errors, at+": "+d.Summary)
	}
	slices.Sort(v.errors)
	return v
}
