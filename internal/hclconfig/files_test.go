package hclconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFilesReadOnce walks a configuration as a command does (Modules,
// RequirementsOf, Load) with one Files, and breaks a file on disk after
// the first walk: the later walks do not see it, since each file is read
// and parsed once. Without Files, each walk reads the files again and
// finds the error.
func TestFilesReadOnce(t *testing.T) {
	for _, shared := range []bool{true, false} {
		name := "without Files"
		if shared {
			name = "with Files"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			main := filepath.Join(dir, "main.tf")
			child := filepath.Join(dir, "child", "main.tf")
			write := func(path, text string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(main, "module \"c\" {\n  source = \"./child\"\n}\n\noutput \"o\" {\n  value = module.c.v\n}\n")
			write(child, "output \"v\" {\n  value = \"x\"\n}\n")
			var opts Options
			if shared {
				opts.Files = &Files{}
			}
			mods, diags := Modules(dir, opts, func(key, source, version, parentDir string) (string, error) {
				return filepath.Join(parentDir, source), nil
			})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			write(main, "this is { not HCL")
			write(child, "nor { this")
			opts.Modules = mods
			_, reqDiags := RequirementsOf(dir, opts)
			cfg, loadDiags := Load(dir, opts)
			if !shared {
				if !reqDiags.HasErrors() || !loadDiags.HasErrors() {
					t.Fatalf("the broken files were not read again: %v; %v", reqDiags, loadDiags)
				}
				return
			}
			if reqDiags.HasErrors() || loadDiags.HasErrors() {
				t.Fatalf("a file was read again: %v; %v", reqDiags, loadDiags)
			}
			if got := string(cfg.Sources["main.tf"]); got == "this is { not HCL" || got == "" {
				t.Errorf("Sources holds %q, not the file as first read", got)
			}
		})
	}
}
