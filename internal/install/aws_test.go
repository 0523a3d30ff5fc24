package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestEnsureLargeProvider installs hashicorp/aws 5.100.0 (a 700 MB binary)
// from the machine's local mirror and checks that Ensure does not hash it
// again on every call: the h1 cached by file size and time makes it a few
// stat calls. It reports both timings.
func TestEnsureLargeProvider(t *testing.T) {
	mirror := providertest.AWSMirror()
	if mirror == "" {
		t.Skip("no local mirror with registry.terraform.io/hashicorp/aws/5.100.0 on this machine (set TETHER_AWS_MIRROR to one)")
	}
	f := newFixture(t, mirrorConfig(FilesystemMirror, mirror), nil)
	reqs := require("hashicorp/aws", "5.100.0")
	start := time.Now()
	if _, _, err := f.install(reqs); err != nil {
		t.Fatal(err)
	}
	t.Logf("Install: %v", time.Since(start))

	start = time.Now()
	if _, _, err := f.ensure(reqs); err != nil {
		t.Fatal(err)
	}
	cachedTime := time.Since(start)

	os.Remove(filepath.Join(f.dir, ProvidersDir, hashCacheFile))
	start = time.Now()
	if _, _, err := f.ensure(reqs); err != nil {
		t.Fatal(err)
	}
	hashedTime := time.Since(start)
	t.Logf("Ensure with the hash cache: %v; hashing the package: %v", cachedTime, hashedTime)
	if cachedTime > time.Second {
		t.Errorf("Ensure took %v with the hash cache", cachedTime)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ProvidersDir, hashCacheFile)); err != nil {
		t.Errorf("hash cache not written again: %v", err)
	}
}
