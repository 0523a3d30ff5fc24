package codegen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherhq/tether/internal/hclconfig"
	"github.com/tetherhq/tether/internal/provider"
)

// WriteDir generates the bindings into dir and removes generated files
// there that this run did not produce (a type the provider dropped), so
// that the folder holds exactly the current bindings. Files that were not
// generated are left alone. A file whose content is unchanged is not
// rewritten.
func WriteDir(dir string, schema *provider.Schema, opts Options) (Summary, error) {
	var sum Summary
	err := writeFiles(dir, func(emit func(File) error) error {
		var err error
		sum, err = Generate(schema, opts, emit)
		return err
	})
	return sum, err
}

// WriteModuleDir generates a module's bindings into dir as WriteDir does a
// provider's.
func WriteModuleDir(dir string, iface *hclconfig.Interface, opts ModuleOptions) error {
	return writeFiles(dir, func(emit func(File) error) error {
		return GenerateModule(iface, opts, emit)
	})
}

// writeFiles writes what generate emits into dir, and removes the
// generated files there that it did not emit.
func writeFiles(dir string, generate func(emit func(File) error) error) error {
	written := map[string]bool{}
	err := generate(func(f File) error {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		written[p] = true
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, f.Content) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, f.Content, 0o644)
	})
	if err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || written[p] {
			return err
		}
		if generated(p) {
			return os.Remove(p)
		}
		return nil
	})
}

// generated reports whether the file at p starts with the header that
// Generate writes.
func generated(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(header))
	n, _ := f.Read(buf)
	return string(buf[:n]) == header
}
