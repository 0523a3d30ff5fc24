package providertest

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// UnpackedMirror lays the providers out under dir as a filesystem mirror in
// the unpacked layout, HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/BINARY, copying
// each binary, and returns dir. It is also the layout of Terraform's
// .terraform/providers and of a plugin cache.
func UnpackedMirror(t testing.TB, dir string, ps ...Provider) string {
	t.Helper()
	for _, p := range ps {
		pkg := filepath.Join(dir, p.Source.Hostname.String(), p.Source.Namespace, p.Source.Type, p.Version, Platform())
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(p.Executable, filepath.Join(pkg, p.BinaryName())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// PackedMirror lays the providers out under dir as a filesystem mirror in
// the packed layout, HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip,
// and returns dir.
func PackedMirror(t testing.TB, dir string, ps ...Provider) string {
	t.Helper()
	for _, p := range ps {
		base := filepath.Join(dir, p.Source.Hostname.String(), p.Source.Namespace, p.Source.Type)
		if err := os.MkdirAll(base, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := p.Zip()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, p.ZipName(Platform())), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func copyFile(src, dst string) error {
	r, err := os.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
