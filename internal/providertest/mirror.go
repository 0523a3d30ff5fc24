package providertest

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// UnpackedMirror lays the providers out under dir as a filesystem mirror in
// the unpacked layout, HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/BINARY, copying
// each binary, and returns dir. It is also the layout of Terraform's
// .terraform/providers and of a plugin cache.
func UnpackedMirror(t testing.TB, dir string, ps ...Provider) string {
	t.Helper()
	for _, p := range ps {
		if err := p.Unpack(dir); err != nil {
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
		if err := p.Pack(dir); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Unpack puts a copy of p into the filesystem mirror folder mirror, in the
// unpacked layout (see UnpackedMirror), for callers without a testing.TB
// such as testscript commands.
func (p Provider) Unpack(mirror string) error {
	pkg := filepath.Join(mirror, p.Source.Hostname.String(), p.Source.Namespace, p.Source.Type, p.Version, p.platform())
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return err
	}
	return copyFile(p.Executable, filepath.Join(pkg, p.BinaryName()))
}

// Pack puts p's zip into the filesystem mirror folder mirror, in the packed
// layout (see PackedMirror).
func (p Provider) Pack(mirror string) error {
	base := filepath.Join(mirror, p.Source.Hostname.String(), p.Source.Namespace, p.Source.Type)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	data, err := p.Zip()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(base, p.ZipName(p.platform())), data, 0o644)
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
