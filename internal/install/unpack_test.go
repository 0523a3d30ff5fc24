package install

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnzip(t *testing.T) {
	type entry struct {
		name string
		mode fs.FileMode
		body string
	}
	tests := []struct {
		name    string
		entries []entry
		want    map[string]fs.FileMode // files and their permissions
		err     string
	}{
		{"binary and folder", []entry{{"terraform-provider-x_v1.0.0_x5", 0o755, "bin"}, {"docs/", fs.ModeDir | 0o755, ""}, {"docs/README", 0o644, "hi"}},
			map[string]fs.FileMode{"terraform-provider-x_v1.0.0_x5": 0o755, "docs/README": 0o644}, ""},
		{"outside the folder", []entry{{"../evil", 0o644, "x"}}, nil, `has an entry "../evil" outside its folder`},
		{"absolute", []entry{{"/etc/evil", 0o644, "x"}}, nil, "outside its folder"},
		{"symlink", []entry{{"link", fs.ModeSymlink | 0o777, "/etc/passwd"}}, nil, `has an entry "link" that is not a regular file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			for _, e := range tt.entries {
				h := &zip.FileHeader{Name: e.name}
				h.SetMode(e.mode)
				w, _ := zw.CreateHeader(h)
				w.Write([]byte(e.body))
			}
			zw.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "p.zip")
			os.WriteFile(path, buf.Bytes(), 0o644)
			out := filepath.Join(dir, "out")
			os.Mkdir(out, 0o755)
			err := unzip(path, out)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, perm := range tt.want {
				info, err := os.Stat(filepath.Join(out, name))
				if err != nil || info.Mode().Perm() != perm {
					t.Errorf("%s: %v %v, want mode %v", name, info, err, perm)
				}
			}
		})
	}
}
