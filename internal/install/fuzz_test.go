package install

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLockFile: any lock file either parses, and then writes back to a
// file that parses to the same locks, or is an error; never a panic.
func FuzzLockFile(f *testing.F) {
	f.Add(terraformLock)
	f.Add("provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n  hashes = [\"h1:x\"]\n}\n")
	f.Add("module \"x\" {}\n")
	f.Fuzz(func(t *testing.T, src string) {
		locks, err := parseLocks([]byte(src), LockFileName)
		if err != nil {
			return
		}
		again, err := parseLocks(locks.Bytes(), LockFileName)
		if err != nil {
			t.Fatalf("written lock does not parse: %v\n%s", err, locks.Bytes())
		}
		if string(again.Bytes()) != string(locks.Bytes()) {
			t.Fatalf("round trip changed the lock:\n%s\n%s", locks.Bytes(), again.Bytes())
		}
	})
}

// FuzzCLIConfig: any CLI configuration loads or is an error; never a
// panic.
func FuzzCLIConfig(f *testing.F) {
	f.Add("provider_installation {\n  dev_overrides {\n    \"hashicorp/time\" = \"/x\"\n  }\n  direct {\n    exclude = [\"a/b\"]\n  }\n}\n")
	f.Add("plugin_cache_dir = \"/x\"\ncredentials \"example.com\" {\n  token = \"t\"\n}\n")
	f.Add("\"\" = 1\n")
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "cli.tfrc")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		LoadCLIConfig([]string{"TF_CLI_CONFIG_FILE=" + path, "XDG_DATA_DIRS=" + dir}, dir, dir)
	})
}
