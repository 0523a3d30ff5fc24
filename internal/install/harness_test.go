package install

import (
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	tfaddr "github.com/hashicorp/terraform-registry-address"

	"github.com/tetherhq/tether/internal/config"
	"github.com/tetherhq/tether/internal/providertest"
)

// The harness of this package's installation tests: a configuration
// folder, a CLI configuration written to a file and loaded as the CLI
// would, and the progress lines an Install or Ensure printed.

// fixture is one configuration folder and how to install into it.
type fixture struct {
	t     *testing.T
	dir   string
	cfg   *CLIConfig
	http  *http.Client
	lines []string
}

func newFixture(t *testing.T, cliConfig string, client *http.Client) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), http: client}
	if cliConfig != "" {
		f.cfg = loadConfig(t, cliConfig)
	}
	return f
}

// loadConfig writes src to a CLI configuration file and loads it, with an
// empty home folder and environment.
func loadConfig(t *testing.T, src string) *CLIConfig {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "cli.tfrc")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadCLIConfig([]string{"TF_CLI_CONFIG_FILE=" + path}, dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func (f *fixture) opts(upgrade bool) Options {
	f.lines = nil
	return Options{Dir: f.dir, Config: f.cfg, Upgrade: upgrade, HTTP: f.http, Progress: func(l string) { f.lines = append(f.lines, l) }}
}

func (f *fixture) install(reqs []config.ProviderRequirement) (map[tfaddr.Provider]Package, []string, error) {
	return Install(context.Background(), reqs, f.opts(false))
}

func (f *fixture) upgrade(reqs []config.ProviderRequirement) (map[tfaddr.Provider]Package, []string, error) {
	return Install(context.Background(), reqs, f.opts(true))
}

func (f *fixture) ensure(reqs []config.ProviderRequirement) (map[tfaddr.Provider]Package, []string, error) {
	return Ensure(context.Background(), reqs, f.opts(false))
}

func (f *fixture) locks() Locks {
	f.t.Helper()
	l, err := ReadLocks(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

func (f *fixture) writeLock(src string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, LockFileName), []byte(src), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// files lists every file and folder under dir/.tether/providers (but the
// hash cache), relative, to check that nothing was left half installed.
func (f *fixture) files() []string {
	var out []string
	root := filepath.Join(f.dir, ProvidersDir)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != root && d.Name() != hashCacheFile && d.Name() != ".lock" {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// require builds requirements from pairs of source address and constraint
// ("" for none).
func require(pairs ...string) []config.ProviderRequirement {
	var out []config.ProviderRequirement
	for i := 0; i+1 < len(pairs); i += 2 {
		r := config.ProviderRequirement{Source: tfaddr.MustParseProviderSource(pairs[i])}
		if pairs[i+1] != "" {
			r.Constraints = []string{pairs[i+1]}
		}
		out = append(out, r)
	}
	return out
}

func requireAt(p tfaddr.Provider, constraint string) []config.ProviderRequirement {
	r := config.ProviderRequirement{Source: p}
	if constraint != "" {
		r.Constraints = []string{constraint}
	}
	return []config.ProviderRequirement{r}
}

func h1(t *testing.T, p providertest.Provider) string {
	t.Helper()
	h, err := p.H1()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mirrorConfig(kind MethodKind, location string) string {
	key := map[MethodKind]string{FilesystemMirror: "path", NetworkMirror: "url"}[kind]
	return "provider_installation {\n  " + string(kind) + " {\n    " + key + " = \"" + location + "\"\n  }\n}\n"
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q\ndoes not say %q", err, p)
		}
	}
}
