package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

// An unpacked filesystem mirror's package is linked into the providers
// folder, as Terraform links it, not copied (the AWS provider is 700 MB a
// folder); where no symlink can be made it is copied. Either way the lock
// holds its h1 hash and a later run refuses it once it no longer matches.
// Not parallel: one case replaces symlink.
func TestUnpackedMirrorIsLinked(t *testing.T) {
	tm := providertest.Time(t)
	for _, tc := range []struct {
		name       string
		noSymlinks bool
	}{
		{"symlink", false},
		{"copy where links fail", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noSymlinks {
				symlink = func(string, string) error { return errors.New("operation not permitted") }
				t.Cleanup(func() { symlink = os.Symlink })
			}
			mirror := providertest.UnpackedMirror(t, t.TempDir(), tm)
			source := filepath.Join(mirror, tm.Source.Hostname.String(), tm.Source.Namespace, tm.Source.Type, tm.Version, providertest.Platform())
			f := newFixture(t, mirrorConfig(FilesystemMirror, mirror), nil)
			reqs := requireAt(tm.Source, tm.Version)
			pkgs, _, err := f.install(reqs)
			if err != nil {
				t.Fatal(err)
			}
			pkg := pkgs[tm.Source]
			info, err := os.Lstat(pkg.Dir)
			if err != nil {
				t.Fatal(err)
			}
			installed := pkg.Dir
			if tc.noSymlinks {
				if !info.IsDir() {
					t.Fatalf("%s is %v, want a folder (a copy)", pkg.Dir, info.Mode())
				}
			} else {
				if target, err := os.Readlink(pkg.Dir); err != nil || target != source {
					t.Fatalf("%s links to %q (%v), want the mirror's %s", pkg.Dir, target, err, source)
				}
				installed = source
			}
			if got, want := f.locks()[tm.Source].Hashes, h1(t, tm); len(got) != 1 || got[0] != want {
				t.Errorf("lock hashes %v, want [%s]", got, want)
			}
			if _, _, err := f.ensure(reqs); err != nil {
				t.Fatalf("Ensure of the installed package: %v", err)
			}

			// The package changes where it is installed from: the
			// mirror's own file for a link, the copy otherwise.
			exe := filepath.Join(installed, filepath.Base(pkg.Executable))
			file, err := os.OpenFile(exe, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			file.Write([]byte("tampered"))
			file.Close()
			_, _, err = f.ensure(reqs)
			if err == nil || !strings.Contains(err.Error(), "hashicorp/time") || !strings.Contains(err.Error(), h1(t, tm)) {
				t.Errorf("Ensure of a changed package: %v, want a hash mismatch naming hashicorp/time and the locked hash", err)
			}
		})
	}
}
