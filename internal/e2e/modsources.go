package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tetherhq/tether/internal/providertest"
)

// moduleSources gives scenarios modules from elsewhere than their folder:
// a module registry on 127.0.0.1, one server shared by the scenarios of a
// test (each publishes under names of its own), and bare git repositories.
type moduleSources struct {
	t      *testing.T
	once   sync.Once
	server *providertest.Server
}

// registry is the command `modregistry NAMESPACE/NAME/SYSTEM VERSION DIR`:
// it publishes the files under DIR as that version of the module and sets
// REGISTRY to the registry's host, and SSL_CERT_FILE so that tether and
// the programs it runs trust it.
func (m *moduleSources) registry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: modregistry NAMESPACE/NAME/SYSTEM VERSION DIR")
	}
	m.once.Do(func() { m.server = providertest.NewServer(m.t) })
	parts := strings.Split(args[0], "/")
	if len(parts) != 3 {
		ts.Fatalf("modregistry: %q is not NAMESPACE/NAME/SYSTEM", args[0])
	}
	files := filesUnder(ts, ts.MkAbs(args[2]))
	ts.Check(m.server.AddModule(parts[0], parts[1], parts[2], args[1], files))
	ts.Setenv("REGISTRY", m.server.Host.String())
	ts.Setenv("SSL_CERT_FILE", m.server.CAFile)
}

// gitRepo is the command `gitrepo DIR TAG`: it makes a bare git
// repository of one commit holding the files under DIR, tagged TAG, and
// sets GITREPO to its path.
func (m *moduleSources) gitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gitrepo DIR TAG")
	}
	if _, err := exec.LookPath("git"); err != nil {
		ts.Fatalf("the git command is needed to make a repository")
	}
	files := filesUnder(ts, ts.MkAbs(args[0]))
	ts.Setenv("GITREPO", providertest.GitRepo(m.t, providertest.GitCommit{Tag: args[1], Files: files}))
}

// filesUnder reads the files under dir by slash path.
func filesUnder(ts *testscript.TestScript, dir string) map[string]string {
	files := map[string]string{}
	ts.Check(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	}))
	return files
}
