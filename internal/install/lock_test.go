package install

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tetherhq/tether/internal/providertest"
)

// TestLockFromRegistry locks a provider from its registry: the package's
// h1 hash and the zh hashes of every platform the signed SHA256SUMS lists
// are recorded, and nothing is installed.
func TestLockFromRegistry(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Time(t))
	f := newFixture(t, "provider_installation {\n  direct {}\n}\n", srv.Client)
	addr := srv.Address("hashicorp", "time")
	opts := LockOptions{Options: f.opts(false)}
	changed, err := Lock(context.Background(), requireAt(addr, "~> 0.14"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Error("Lock reports no change to a new lock file")
	}
	wantLines(t, f.lines,
		"- Fetching "+addr.ForDisplay()+" 0.14.2 for "+hostPlatform+"...",
		"- Retrieved "+addr.ForDisplay()+" 0.14.2 for "+hostPlatform+" (self-signed, key ID "+srv.KeyID+")",
		"- Obtained "+addr.ForDisplay()+" checksums for "+hostPlatform+"; This was a new provider and the checksums for this platform are now tracked in the lock file")
	e := f.locks()[addr]
	if e == nil || e.Version != "0.14.2" || e.Constraints != "~> 0.14" {
		t.Fatalf("lock entry %+v", e)
	}
	var h1s, zhs int
	for _, h := range e.Hashes {
		switch {
		case strings.HasPrefix(h, "h1:"):
			h1s++
		case strings.HasPrefix(h, "zh:"):
			zhs++
		}
	}
	if h1s != 1 || zhs != 2 {
		t.Errorf("hashes %v: want one h1 and the zh of both platforms the sums list", e.Hashes)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ProvidersDir)); !os.IsNotExist(err) {
		t.Errorf("providers lock installed something: %v", f.files())
	}

	// Again: nothing new.
	opts.Options = f.opts(false)
	if changed, err := Lock(context.Background(), requireAt(addr, "~> 0.14"), opts); err != nil || changed {
		t.Errorf("second Lock: changed %v, error %v", changed, err)
	}
}

// TestLockMatchesTerraform runs terraform providers lock and Lock over the
// same packed filesystem mirror holding the time provider built for two
// platforms, and compares the lock files.
func TestLockMatchesTerraform(t *testing.T) {
	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the differential test needs terraform 1.11")
	}
	other := "darwin_arm64"
	if hostPlatform == other {
		other = "linux_amd64"
	}
	cross, err := providertest.BuildFor("time", other)
	if err != nil {
		t.Skipf("the time provider cannot be built for %s: %v", other, err)
	}
	mirror := providertest.PackedMirror(t, t.TempDir(), providertest.Time(t), cross)
	main := "terraform {\n  required_providers {\n    time = {\n      source  = \"hashicorp/time\"\n      version = \"~> 0.14.0\"\n    }\n  }\n}\n"
	tf := newTerraform(t, tfBin, os.DevNull, "")
	theirs := tf.dir(t, main)
	cmd := exec.Command(tfBin, "providers", "lock", "-no-color", "-fs-mirror="+mirror, "-platform="+hostPlatform, "-platform="+other)
	cmd.Dir, cmd.Env = theirs, tf.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform providers lock: %v\n%s", err, out)
	}
	f := newFixture(t, "", nil)
	_, err = Lock(context.Background(), require("hashicorp/time", "~> 0.14.0"), LockOptions{
		Options: f.opts(false), Platforms: []string{hostPlatform, other}, FSMirror: mirror,
	})
	if err != nil {
		t.Fatal(err)
	}
	ours, want := readFile(t, filepath.Join(f.dir, LockFileName)), readFile(t, filepath.Join(theirs, LockFileName))
	if ours != want {
		t.Errorf("lock files differ; ours:\n%s\nterraform's:\n%s", ours, want)
	}
	if got, want := sortedLines(f.lines), progressLines(string(out)); got != want {
		t.Errorf("progress lines differ; ours:\n%s\nterraform's:\n%s", got, want)
	}
}

// TestMirrorMatchesTerraform mirrors a provider from a registry with
// Mirror and with terraform providers mirror: the two folders hold the
// same files, byte for byte, and each tool installs from the other's as a
// filesystem mirror with the same lock file.
func TestMirrorMatchesTerraform(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Time(t))
	addr := srv.Address("hashicorp", "time")
	f := newFixture(t, "provider_installation {\n  direct {}\n}\n", srv.Client)
	ours := t.TempDir()
	opts := MirrorOptions{Options: f.opts(false), Out: ours}
	if err := Mirror(context.Background(), requireAt(addr, "~> 0.14"), opts); err != nil {
		t.Fatal(err)
	}
	wantLines(t, f.lines,
		"- Mirroring "+addr.ForDisplay()+"...",
		"  - Selected v0.14.2 to meet constraints ~> 0.14",
		"  - Downloading package for "+hostPlatform+"...",
		"  - Package authenticated: self-signed")
	index := filepath.Join(ours, addr.Hostname.String(), "hashicorp", "time", "index.json")
	if got := readFile(t, index); got != "{\n  \"versions\": {\n    \"0.14.2\": {}\n  }\n}" {
		t.Errorf("index.json:\n%s", got)
	}

	tfBin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH; the rest compares with terraform 1.11")
	}
	main := "terraform {\n  required_providers {\n    time = {\n      source  = \"" + addr.String() + "\"\n      version = \"~> 0.14\"\n    }\n  }\n}\n"
	tf := newTerraform(t, tfBin, f.cfg.File, srv.CAFile)
	theirs := t.TempDir()
	cmd := exec.Command(tfBin, "providers", "mirror", "-no-color", theirs)
	cmd.Dir, cmd.Env = tf.dir(t, main), tf.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform providers mirror: %v\n%s", err, out)
	} else if got, want := strings.Join(f.lines, "\n"), strings.TrimSpace(string(out)); got != want {
		t.Errorf("progress lines differ; ours:\n%s\nterraform's:\n%s", got, want)
	}
	if a, b := tree(t, ours), tree(t, theirs); a != b {
		t.Errorf("mirrors differ; ours:\n%s\nterraform's:\n%s", a, b)
	}

	// Each installs from the other's mirror.
	fromTheirs := newFixture(t, mirrorConfig(FilesystemMirror, theirs), nil)
	if _, _, err := fromTheirs.install(requireAt(addr, "~> 0.14")); err != nil {
		t.Fatalf("installing from terraform's mirror: %v", err)
	}
	tfOurs := newTerraform(t, tfBin, loadConfig(t, mirrorConfig(FilesystemMirror, ours)).File, "")
	theirDir := tfOurs.dir(t, main)
	tfOurs.init(t, theirDir)
	if a, b := readFile(t, filepath.Join(fromTheirs.dir, LockFileName)), readFile(t, filepath.Join(theirDir, LockFileName)); a != b {
		t.Errorf("lock files differ; ours from terraform's mirror:\n%s\nterraform's from ours:\n%s", a, b)
	}
}

// tree lists the files under dir with their content, for comparing two
// folders.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, _ := os.ReadFile(path)
		if strings.HasSuffix(rel, ".zip") {
			sum, _ := zipSHA256(path)
			data = []byte(sum)
		}
		out = append(out, rel+":\n"+string(data))
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}
