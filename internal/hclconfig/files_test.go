package hclconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// TestFilesParsedSideBySideInOrder loads a folder of many files, read and
// parsed side by side, and checks that what the walk gets is in the order
// of the files: the outputs of all of them, and the diagnostics of the
// broken ones in file order, the same with and without the command's Files.
func TestFilesParsedSideBySideInOrder(t *testing.T) {
	dir := t.TempDir()
	for i := range 12 {
		text := fmt.Sprintf("output \"o%02d\" {\n  value = \"v%d\"\n}\n", i, i)
		if i == 3 || i == 7 {
			text = fmt.Sprintf("output \"o%02d\" {\n  value = \n}\n", i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.tf", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, files := range []*Files{nil, {}} {
		_, diags := Load(dir, Options{Files: files})
		var where []string
		for _, d := range diags {
			if d.Subject != nil {
				where = append(where, d.Subject.Filename)
			}
		}
		if len(where) != 2 || where[0] != "f03.tf" || where[1] != "f07.tf" {
			t.Errorf("Files %v: diagnostics name %v, want f03.tf then f07.tf", files != nil, where)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f03.tf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f07.tf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := Load(dir, Options{Files: &Files{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var addrs []string
	for _, n := range cfg.Nodes {
		addrs = append(addrs, n.Addr)
	}
	want := []string{"output.o00", "output.o01", "output.o02", "output.o04", "output.o05", "output.o06",
		"output.o08", "output.o09", "output.o10", "output.o11"}
	if !slices.Equal(addrs, want) {
		t.Errorf("nodes %v, want %v", addrs, want)
	}
}
