package hclconfig

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/marks"
)

// TestConfigFilesTofu: OpenTofu's .tofu and .tofu.json files are read, and
// each hides the .tf or .tf.json file of the same name (only that one).
func TestConfigFilesTofu(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"tofu only", []string{"main.tofu", "vars.tofu.json"}, []string{"main.tofu", "vars.tofu.json"}},
		{"tofu hides tf", []string{"main.tf", "main.tofu", "other.tf"}, []string{"main.tofu", "other.tf"}},
		{"tofu.json hides tf.json", []string{"a.tf.json", "a.tofu.json"}, []string{"a.tofu.json"}},
		{"tofu does not hide tf.json", []string{"a.tf.json", "a.tofu"}, []string{"a.tf.json", "a.tofu"}},
		{"tofu.json does not hide tf", []string{"a.tf", "a.tofu.json"}, []string{"a.tf", "a.tofu.json"}},
		{"override", []string{"override.tf", "override.tofu"}, []string{"override.tofu"}},
		{"others ignored", []string{"a.tofutest.hcl", "b.tofuvars", "c.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := configFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("configFiles = %q, want %q", got, tc.want)
			}
		})
	}
	for name, want := range map[string]bool{"override.tofu": true, "x_override.tofu.json": true, "main.tofu": false} {
		if isOverrideFile(name) != want {
			t.Errorf("isOverrideFile(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestCheckEnabled: lifecycle { enabled } takes what converts to a bool;
// null, a sensitive or ephemeral value are errors; unknown is left to the
// engine, which refuses it while planning.
func TestCheckEnabled(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    cty.Value
		want cty.Value // cty.NilVal: an error
	}{
		{"true", cty.True, cty.True},
		{"string", cty.StringVal("false"), cty.False},
		{"unknown", cty.UnknownVal(cty.Bool), cty.UnknownVal(cty.Bool)},
		{"null", cty.NullVal(cty.Bool), cty.NilVal},
		{"number", cty.NumberIntVal(1), cty.NilVal},
		{"sensitive", cty.True.Mark(marks.Sensitive), cty.NilVal},
		{"ephemeral", cty.True.Mark(marks.Ephemeral), cty.NilVal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := checkEnabled(tc.v, hcl.Range{Filename: "main.tf"})
			if tc.want == cty.NilVal {
				if !diags.HasErrors() || diags[0].Summary != "Invalid enabled argument" || diags[0].Subject == nil {
					t.Errorf("checkEnabled(%#v) = %#v, %v; want an Invalid enabled argument error at the expression", tc.v, got, diags)
				}
				return
			}
			if diags.HasErrors() || !got.RawEquals(tc.want) {
				t.Errorf("checkEnabled(%#v) = %#v, %v; want %#v", tc.v, got, diags, tc.want)
			}
		})
	}
}
