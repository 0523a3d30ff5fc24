package differential

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
)

// TestDifferentialErrors plans every configuration under testdata/differr
// with the real terraform and with tether: both must refuse it (exit 1),
// each saying the summary the case's want_error file holds, which is
// Terraform's. A case folder holds main.tf, any modules, and want_error.
func TestDifferentialErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests build tether and its provider plugin, then run terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	t.Parallel()
	cases, err := filepath.Glob(filepath.Join("testdata", "differr", "*", "want_error"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/differr")
	}
	tools := e2e.BuildDiffTools(t)
	for _, wantFile := range cases {
		caseDir := filepath.Dir(wantFile)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(raw))
			env := e2e.DiffEnv(tools)
			tf := e2e.Side{Name: "terraform", Bin: tools.Terraform, Dir: filepath.Join(t.TempDir(), "terraform"), Env: env}
			tt := e2e.Side{Name: "tether", Bin: tools.Tether, Dir: filepath.Join(t.TempDir(), "tether"), Env: env}
			for _, s := range []e2e.Side{tf, tt} {
				if err := e2e.CopyTree(caseDir, s.Dir, ""); err != nil {
					t.Fatal(err)
				}
			}
			tfRes, ttRes := e2e.Both(tf, tt, func(s e2e.Side) e2e.CmdResult {
				if s.Name == "terraform" {
					if r := s.Run("get", "-no-color"); r.Code != 0 || r.Err != nil {
						return r
					}
					return s.Run(e2e.TFPlan...)
				}
				return s.Run(e2e.TTPlan...)
			})
			for _, r := range []e2e.CmdResult{tfRes, ttRes} {
				if r.Err != nil || r.Code != 1 {
					t.Errorf("the plan must fail (exit 1):\n%s", r)
					continue
				}
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("the plan must fail saying %q:\n%s", want, r)
				}
			}
		})
	}
}
