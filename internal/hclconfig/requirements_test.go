package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRequirementsOfUses checks what the providers' uses make of the
// requirements: each implied provider is required where it is first used
// (a provider block before the resources after it), a provider argument
// names the provider, and each use of a name that implies no source is
// reported.
func TestRequirementsOfUses(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // source @ where required
		diags     []string
	}{
		{
			name: "provider block first",
			src:  "provider \"aws\" {\n  region = \"x\"\n}\n\nresource \"aws_s3_bucket\" \"b\" {\n}\n",
			want: []string{"registry.terraform.io/hashicorp/aws @ main.tf:1,1-15"},
		},
		{
			name: "resource first",
			src:  "resource \"aws_s3_bucket\" \"b\" {\n}\n\nprovider \"aws\" {\n  region = \"x\"\n}\n",
			want: []string{"registry.terraform.io/hashicorp/aws @ main.tf:1,1-29"},
		},
		{
			name: "provider argument",
			src:  "resource \"aws_s3_bucket\" \"b\" {\n  provider = google.west\n}\n\ndata \"tether_value\" \"d\" {\n}\n",
			want: []string{"registry.terraform.io/hashicorp/google @ main.tf:1,1-29", "registry.terraform.io/tetherhq/tether @ main.tf:5,1-24"},
		},
		{
			name:  "invalid name used twice",
			src:   "resource \"a..b_x\" \"one\" {\n}\n\nresource \"a..b_y\" \"two\" {\n}\n\nephemeral \"tether_value\" \"e\" {\n}\n",
			want:  []string{"registry.terraform.io/tetherhq/tether @ main.tf:7,1-29"},
			diags: []string{"Invalid provider local name @ main.tf:1,1-24", "Invalid provider local name @ main.tf:4,1-24"},
		},
		{
			name: "wrong labels left out",
			src:  "resource \"aws_s3_bucket\" {\n}\n\nresource \"tether_value\" \"v\" {\n}\n",
			want: []string{"registry.terraform.io/tetherhq/tether @ main.tf:4,1-28"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			reqs, diags := RequirementsOf(dir, Options{})
			var got, gotDiags []string
			for _, r := range reqs {
				got = append(got, fmt.Sprintf("%s @ %s", r.Source, r.DeclRange))
			}
			for _, d := range diags {
				gotDiags = append(gotDiags, fmt.Sprintf("%s @ %s", d.Summary, d.Subject))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("requirements %q, want %q", got, tc.want)
			}
			if !slices.Equal(gotDiags, tc.diags) {
				t.Errorf("diagnostics %q, want %q", gotDiags, tc.diags)
			}
		})
	}
}

// TestWalksDoNotCopyResources checks that the walks of parsed files that
// read a few kinds of block (the requirements, the module calls, the
// backend) cost no allocation per resource block: a large configuration
// has thousands, and a walk that asks for every top-level block copies
// each.
func TestWalksDoNotCopyResources(t *testing.T) {
	resolve := func(key, source, version, parentDir string) (string, error) {
		return filepath.Join(parentDir, source), nil
	}
	for name, walk := range map[string]func(dir string, opts Options){
		"RequirementsOf": func(dir string, opts Options) { RequirementsOf(dir, opts) },
		"Modules":        func(dir string, opts Options) { Modules(dir, opts, resolve) },
		"Backend":        func(dir string, opts Options) { Backend(dir, opts) },
	} {
		t.Run(name, func(t *testing.T) {
			allocs := func(n int) float64 {
				dir := t.TempDir()
				var b strings.Builder
				b.WriteString("terraform {\n  backend \"local\" {\n    path = \"x.tfstate\"\n  }\n}\n\n")
				for i := range n {
					fmt.Fprintf(&b, "resource \"tether_value\" \"r%d\" {\n  input = \"v%d\"\n}\n\n", i, i)
				}
				if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				opts := Options{Files: &Files{}}
				walk(dir, opts)
				return testing.AllocsPerRun(5, func() { walk(dir, opts) })
			}
			small, large := allocs(10), allocs(1010)
			if per := (large - small) / 1000; per >= 1 {
				t.Errorf("%.1f allocations per resource block (%v for 10, %v for 1,010)", per, small, large)
			}
		})
	}
}
