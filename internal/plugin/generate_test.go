package plugin

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestV5IsGenerated fails when v5.go is not what gen_v5.go makes of v6.go:
// a fix made to one protocol version only, or a v6.go change without go
// generate.
func TestV5IsGenerated(t *testing.T) {
	t.Parallel()
	want, err := exec.Command("go", "run", "gen_v5.go", "-o", "-").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go run gen_v5.go: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go run gen_v5.go: %v", err)
	}
	got, err := os.ReadFile("v5.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("v5.go is stale: edit v6.go, never v5.go, then run go generate ./internal/plugin")
	}
}
