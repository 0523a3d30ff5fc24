package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// terraformLock is a lock file as terraform 1.11 writes it.
const terraformLock = `# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/local" {
  version = "1.4.1"
  hashes = [
    "h1:abc=",
  ]
}

provider "registry.terraform.io/hashicorp/time" {
  version     = "0.14.2"
  constraints = "~> 0.14.0"
  hashes = [
    "h1:0Y6Ox3oTp1yFHqJxFyCEcNxBfB+mqs2ytUqQoKWUZgo=",
    "zh:0a2e1d8f1b8c8b8ef6e2a7c2e6a1a5a5c0f4e8b1f0a5a3e0d7c5b2a9f8e7d6c5",
    "zh:1b3f2e9a0c9d9c9f07f3b8d3f7b2b6b6d1f5f9c2a1b6b4f1e8d6c3b0a9f8e7d6",
  ]
}
`

func TestLockRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LockFileName), []byte(terraformLock), 0o644); err != nil {
		t.Fatal(err)
	}
	locks, err := ReadLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(locks.Bytes()); got != terraformLock {
		t.Errorf("written back differently:\n%s\nwant:\n%s", got, terraformLock)
	}
	e := locks[timeAddr]
	if e == nil || e.Version != "0.14.2" || e.Constraints != "~> 0.14.0" || len(e.Hashes) != 3 {
		t.Errorf("time entry = %+v", e)
	}
	// A missing file is no locks and no error.
	if l, err := ReadLocks(t.TempDir()); err != nil || len(l) != 0 {
		t.Errorf("missing file: %v, %v", l, err)
	}
}

func TestLockSortsAndDeduplicates(t *testing.T) {
	l := Locks{timeAddr: {Provider: timeAddr, Version: "0.14.2", Hashes: []string{"zh:b", "h1:a", "zh:b"}}}
	want := `# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/time" {
  version = "0.14.2"
  hashes = [
    "h1:a",
    "zh:b",
  ]
}
`
	if got := string(l.Bytes()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestLockInvalid(t *testing.T) {
	tests := []struct {
		name, src, want string // want: the start of the error
	}{
		{"syntax", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \n}\n", LockFileName + ":2:"},
		{"short address", "provider \"hashicorp/time\" {\n  version = \"1.0.0\"\n}\n", LockFileName + ":1:10: Invalid provider source address"},
		{"no version", "provider \"registry.terraform.io/hashicorp/time\" {\n}\n", LockFileName + ":1:"},
		{"bad version", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"v1.0\"\n}\n", LockFileName + ":2:13: Invalid provider version number"},
		{"version not a string", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = [1]\n}\n", LockFileName + ":2:13: Incorrect value type"},
		{"empty hashes", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n  hashes = []\n}\n", LockFileName + ":3:12: Invalid provider hash set"},
		{"bad hash", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n  hashes = [\n    \"nocolon\",\n  ]\n}\n", LockFileName + ":4:5: Invalid provider hash string"},
		{"bad constraints", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n  constraints = \"soon\"\n}\n", LockFileName + ":3:17: Invalid provider version constraints"},
		{"duplicate", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n}\nprovider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n}\n", LockFileName + ":4:1: Duplicate provider lock"},
		{"unknown argument", "provider \"registry.terraform.io/hashicorp/time\" {\n  version = \"1.0.0\"\n  color = \"red\"\n}\n", LockFileName + ":3:3: Unsupported argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, LockFileName), []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadLocks(dir)
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("error %q\ndoes not start with %q", got, tt.want)
			}
		})
	}
}

func fmtList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ";")
}

func containsStr(s, sub string) bool { return strings.Contains(s, sub) }
