package plugin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// upstreamStubs is the terraform-plugin-go release the stubs are copied
// from (see tfplugin6/README.md).
const upstreamStubs = "github.com/hashicorp/terraform-plugin-go@v0.31.0"

// TestStubsMatchUpstream checks that tfplugin5 and tfplugin6 are
// terraform-plugin-go's generated code plus the one documented change, so
// that nobody edits them by accident and an update is a plain copy.
func TestStubsMatchUpstream(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(upstreamStubs))
	if _, err := os.Stat(root); err != nil {
		t.Skipf("%s is not in the module cache", upstreamStubs)
	}
	for _, v := range []int{5, 6} {
		pkg := fmt.Sprintf("tfplugin%d", v)
		upstream := filepath.Join(root, fmt.Sprintf("tfprotov%d", v), "internal", pkg)
		for _, name := range []string{pkg + ".proto", pkg + ".pb.go", pkg + "_grpc.pb.go"} {
			want, err := os.ReadFile(filepath.Join(upstream, name))
			if err != nil {
				t.Fatal(err)
			}
			if name == pkg+".pb.go" {
				want = localRegistries(t, want, v)
			}
			got, err := os.ReadFile(filepath.Join(pkg, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from %s plus the registry change", pkg, name, upstreamStubs)
			}
		}
	}
}

// localRegistries applies the change README.md describes.
func localRegistries(t *testing.T, src []byte, v int) []byte {
	t.Helper()
	edits := []struct{ re, repl string }{
		{`(?m)^(\t\t\tNumServices: +[0-9]+,)$`, "$1\n\t\t\tFileRegistry:  localFiles,"},
		{fmt.Sprintf(`(?m)^(\t\tMessageInfos: +file_tfplugin%d_proto_msgTypes,)$`, v), "$1\n\t\tTypeRegistry:      localTypes,"},
	}
	for _, e := range edits {
		re := regexp.MustCompile(e.re)
		if n := len(re.FindAllIndex(src, -1)); n != 1 {
			t.Fatalf("tfplugin%d.pb.go: %d matches for %s, want 1", v, n, e.re)
		}
		src = re.ReplaceAll(src, []byte(e.repl))
	}
	return src
}
