package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	tools := buildDiffTools(t)
	for _, wantFile := range cases {
		caseDir := filepath.Dir(wantFile)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSpace(string(raw))
			env := diffEnv(tools)
			tf := side{name: "terraform", bin: tools.terraform, dir: filepath.Join(t.TempDir(), "terraform"), env: env}
			tt := side{name: "tether", bin: tools.tether, dir: filepath.Join(t.TempDir(), "tether"), env: env}
			for _, s := range []side{tf, tt} {
				if err := copyTree(caseDir, s.dir, ""); err != nil {
					t.Fatal(err)
				}
			}
			tfRes, ttRes := both(tf, tt, func(s side) cmdResult {
				if s.name == "terraform" {
					if r := s.run("get", "-no-color"); r.code != 0 || r.err != nil {
						return r
					}
					return s.run(tfPlan...)
				}
				return s.run(ttPlan...)
			})
			for _, r := range []cmdResult{tfRes, ttRes} {
				if r.err != nil || r.code != 1 {
					t.Errorf("the plan must fail (exit 1):\n%s", r)
					continue
				}
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the plan must fail saying %q:\n%s", want, r)
				}
			}
		})
	}
}
