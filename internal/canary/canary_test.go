package canary

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindsEveryForm(t *testing.T) {
	const secret = "s3cr3t-value-0123"
	for _, prefix := range []string{"", "x", "xy"} {
		for name, text := range map[string]string{
			"raw":       prefix + secret + "!",
			"upper":     prefix + strings.ToUpper(secret),
			"hex":       prefix + hex.EncodeToString([]byte(secret)),
			"base64":    base64.StdEncoding.EncodeToString([]byte(prefix + secret + "tail")),
			"base64url": base64.URLEncoding.EncodeToString([]byte(prefix + secret)),
		} {
			if _, _, ok := Find([]byte(text), "other-secret", secret); !ok {
				t.Errorf("%s with prefix %q: not found in %q", name, prefix, text)
			}
		}
	}
	if _, _, ok := Find([]byte("s3cr3t-value-012 and nothing else"), secret); ok {
		t.Error("found a secret that is not there")
	}
}

func TestScanDir(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "state.db-wal"), []byte("\x00\x01pw-123456\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "clean"), []byte("nothing"), 0o644)
	os.WriteFile(filepath.Join(dir, "out", "file"), []byte("pw-123456"), 0o644)
	leaks, err := ScanDir(dir, []string{"pw-123456"}, "out")
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) != 1 || leaks[0].Path != "a/b/state.db-wal" {
		t.Fatalf("leaks = %v", leaks)
	}
}
