package hclconfig

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/hashicorp/hcl/v2/hclsyntax"
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

// TestFilesLetGoOfBlocks loads a configuration with the command's Files, as
// a command does, and checks that the files no longer keep the blocks the
// configuration's nodes do not hold (a block's header is dead weight for
// the rest of the run), while the backend block is still read from them
// without a parse and a later Load, which needs every block, reads the
// files whole again.
func TestFilesLetGoOfBlocks(t *testing.T) {
	dir := t.TempDir()
	text := "terraform {\n  backend \"local\" {\n    path = \"x.tfstate\"\n  }\n}\n\noutput \"o\" {\n  value = \"x\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files := &Files{}
	opts := Options{Files: files}
	if b, diags := Backend(dir, opts); diags.HasErrors() || b == nil || b.Settings["path"] != "x.tfstate" {
		t.Fatalf("Backend before Load: %v, %v", b, diags)
	}
	var output weak.Pointer[hclsyntax.Block]
	for _, rf := range files.read {
		for _, b := range rf.file.Body.(*hclsyntax.Body).Blocks {
			if b.Type == "output" {
				output = weak.Make(b)
			}
		}
	}
	cfg, diags := Load(dir, opts)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runtime.GC()
	if output.Value() != nil {
		t.Error("the output block is still held once the configuration is loaded")
	}
	if b, diags := Backend(dir, opts); diags.HasErrors() || b == nil || b.Settings["path"] != "x.tfstate" {
		t.Errorf("Backend after Load: %v, %v", b, diags)
	}
	again, diags := Load(dir, opts)
	if diags.HasErrors() || len(again.Nodes) != len(cfg.Nodes) {
		t.Errorf("a second Load with the same files: %d nodes, want %d (%v)", len(again.Nodes), len(cfg.Nodes), diags)
	}
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(files)
}
