package differential

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tetherhq/tether/internal/e2e"
	"github.com/tetherhq/tether/internal/providertest"
)

// TestDifferentialModuleSources applies, with the real terraform and with
// tether, a configuration whose modules come from a module registry on
// 127.0.0.1 (a version constraint, //subdir), an archive the registry
// serves, and a bare git repository the test makes (?ref=): both install
// them (`terraform get`, tether on its own) and must write the same files
// and outputs.
func TestDifferentialModuleSources(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests build tether and its provider plugin, then run terraform and tether: skipped with -short")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("terraform not on PATH: the differential tests compare tether with the terraform 1.11 binary")
	}
	header := "terraform {\n  required_providers {\n    tether = {\n      source = \"tetherhq/tether\"\n    }\n  }\n}\n\n"
	module := func(name string) string {
		return header + "variable \"who\" {\n  type = string\n}\n\nresource \"tether_file\" \"f\" {\n  path    = \"out/" + name + ".txt\"\n  content = \"" + name + " for ${var.who}\\n\"\n}\n\noutput \"path\" {\n  value = tether_file.f.path\n}\n"
	}
	s := providertest.NewServer(t)
	for _, v := range []string{"1.0.0", "1.4.0", "2.0.0"} {
		if err := s.AddModule("example", "net", "tether", v, map[string]string{
			"main.tf":     module("net-" + v),
			"sub/main.tf": module("net-sub-" + v),
		}); err != nil {
			t.Fatal(err)
		}
	}
	// SSL_CERT_FILE makes both tools trust the registry's certificate.
	t.Setenv("SSL_CERT_FILE", s.CAFile)

	bare := providertest.GitRepo(t,
		providertest.GitCommit{Tag: "v1", Files: map[string]string{"app/main.tf": module("git-v1")}},
		providertest.GitCommit{Files: map[string]string{"app/main.tf": module("git-v2")}},
	)
	root := t.TempDir()
	caseDir := filepath.Join(root, "case")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	host := s.Host.String()
	mainTF := header + `module "net" {
  source  = "` + host + `/example/net/tether"
  version = "~> 1.0"
  who     = "registry"
}

module "net_sub" {
  source  = "` + host + `/example/net/tether//sub"
  version = "2.0.0"
  who     = "subdir"
}

module "archive" {
  source = "` + s.URL + `/files/modules/example-net-tether-1.0.0.tar.gz"
  who    = "archive"
}

module "git" {
  source = "git::file://` + bare + `//app?ref=v1"
  who    = "git"
}

output "paths" {
  value = [module.net.path, module.net_sub.path, module.archive.path, module.git.path]
}
`
	if err := os.WriteFile(filepath.Join(caseDir, "main.tf"), []byte(mainTF), 0o644); err != nil {
		t.Fatal(err)
	}
	runDiffCase(t, e2e.BuildDiffTools(t), caseDir)
}
